#!/usr/bin/env node
// A tiny MCP server on stdio (newline-delimited JSON-RPC), published by the tests to a local npm
// registry so that `npx -y levelcode-test-echo-server` fetches and runs it. One tool, `echo`,
// which also says which ecosystem served it. No dependencies: what npx fetches is this file.
"use strict";
const readline = require("readline");

const TOOLS = [
  {
    name: "echo",
    description: "Returns the text it is given.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

function answer(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "levelcode-test-echo-server", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call":
      return { content: [{ type: "text", text: `npm echo: ${request.params.arguments.text}` }] };
    default:
      return undefined;
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (request.id === undefined) return; // a notification
  const result = answer(request);
  if (result === undefined) {
    send({ id: request.id, error: { code: -32601, message: `unknown method ${request.method}` } });
  } else {
    send({ id: request.id, result });
  }
});
