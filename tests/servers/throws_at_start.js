// A Node server that dies at start, as a real one does when its configuration is missing: an
// uncaught Error thrown from a function, so Node prints the throw site, the error and its stack.
function readConfig() {
  throw new Error("cannot read the config: ENOENT: no such file, open 'server.json'");
}
readConfig();
