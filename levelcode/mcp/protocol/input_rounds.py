"""2026-07-28's multi-round-trip requests: a request answered with `resultType: input_required`
is sent again with the answers to its `inputRequests` (each answered by the session's handler
for that method, as if the server had asked it itself) and its opaque `requestState`, until it
completes — bounded in rounds and in requests per round. A server of the older era never
answers this way, so for it this is one plain request.

And the older way of needing the user first: a tool call refused with URLElicitationRequired
(-32042) names the pages the user must open; each is put to the user as a URL request through the
session's handler, and the call retried once if they agreed to all of them
(`call_after_browser_steps`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from levelcode.core.errors import ProtocolError, RemoteError
from levelcode.mcp.protocol.deadline import CallDeadline
from levelcode.mcp.protocol.session import McpSession

MAX_INPUT_ROUNDS = 10
MAX_INPUT_REQUESTS = 20
URL_ELICITATION_REQUIRED = -32042
MAX_BROWSER_STEPS = 3  # pages a refused call may ask the user to open before it is retried
TASK_METHODS = frozenset({"tools/call"})  # the requests the tasks extension may answer with a task


async def request_until_complete(
    session: McpSession,
    method: str,
    params: Mapping[str, object],
    *,
    timeout: float | None,
    tool: str | None = None,
    deadline: CallDeadline | None = None,
) -> Mapping[str, object]:
    sent: dict[str, object] = dict(params)
    for round_ in range(MAX_INPUT_ROUNDS):
        result = await session.request(method, sent, timeout=timeout, tool=tool, deadline=deadline)
        kind = result.get("resultType", "complete")
        if kind == "complete" or (kind == "task" and method in TASK_METHODS):
            return result  # a task handle: the caller follows it (protocol/task_calls.py)
        if kind != "input_required":
            raise ProtocolError(f"unknown resultType {kind!r}", server=session.server, tool=tool)
        if result.get("inputRequests"):
            sent["inputResponses"] = await fulfil(session, result["inputRequests"], tool)
            if deadline is not None:
                deadline.touch()  # the time the user took to answer is not the server's
        else:
            sent.pop("inputResponses", None)
            await asyncio.sleep(min(0.05 * 2**round_, 0.25))
        sent.pop("requestState", None)
        if isinstance(result.get("requestState"), str):
            sent["requestState"] = result["requestState"]
    raise ProtocolError(
        f"still asking to retry after {MAX_INPUT_ROUNDS} rounds", server=session.server, tool=tool
    )


async def fulfil(session: McpSession, requests: object, tool: str | None) -> dict[str, object]:
    """The input requests, answered one by one as if the server had asked them itself."""
    server = session.server
    if not isinstance(requests, Mapping) or len(requests) > MAX_INPUT_REQUESTS:
        raise ProtocolError("malformed inputRequests", server=server, tool=tool)
    answers: dict[str, object] = {}
    for key, request in requests.items():
        method = request.get("method") if isinstance(request, Mapping) else None
        params = request.get("params", {}) if isinstance(request, Mapping) else None
        if not isinstance(method, str) or not isinstance(params, Mapping):
            raise ProtocolError(f"malformed input request {str(key)[:60]!r}", server=server, tool=tool)
        if not session.handles(method):
            raise ProtocolError(
                f"asked for {method[:60]!r} (input from the user), which this session cannot answer",
                server=server,
                tool=tool,
            )
        answers[str(key)] = await session.handle_server_request(method, params)
    return answers


async def call_after_browser_steps(
    session: McpSession, tool: str, params: Mapping[str, object], deadline: CallDeadline, *, server: str
) -> Mapping[str, object]:
    """The call; when the server first needs the user in a browser (-32042), each such step is put
    to the user as a URL request, and the call retried once if they agreed to all of them."""
    try:
        return await request_until_complete(
            session, "tools/call", params, timeout=None, tool=tool, deadline=deadline
        )
    except RemoteError as exc:
        steps = url_steps(exc)
        if not steps:
            raise
        for step in steps:
            answer = await session.handle_server_request("elicitation/create", step)
            if answer.get("action") != "accept":
                hosts = ", ".join(str(s.get("url"))[:200] for s in steps)
                raise RemoteError(
                    f"it needs the user to open {hosts} first, and that was not done",
                    server=server,
                    code=URL_ELICITATION_REQUIRED,
                ) from exc
        deadline.touch()  # the time spent in the browser is not the server's
        return await request_until_complete(
            session, "tools/call", params, timeout=None, tool=tool, deadline=deadline
        )


def url_steps(error: RemoteError) -> list[Mapping[str, object]]:
    """The URL elicitations a -32042 error says must come first (at most MAX_BROWSER_STEPS)."""
    data = error.data
    if error.code != URL_ELICITATION_REQUIRED or not isinstance(data, Mapping):
        return []
    steps = data.get("elicitations")
    if not isinstance(steps, list):
        return []
    return [s for s in steps if isinstance(s, Mapping) and s.get("mode") == "url"][:MAX_BROWSER_STEPS]
