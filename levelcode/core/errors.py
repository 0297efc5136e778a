"""LevelCode's one exception tree. Third-party exceptions are translated into it once, at the edge.

LevelCodeError
├── ConfigError                a request about configuration that cannot be met (unknown server
│   │                          name, unparsable command line); a bad *entry* in a config file is
│   │                          not raised but reported as a `ConfigProblem` (data), so one bad
│   │                          server never hides the others
│   ├── EntryRefused           `mcp add`: an entry config loading would report (mcp/config/edit.py)
│   ├── ServerExists           `mcp add`: the name is taken (without --replace)
│   ├── ServerNotFound         `mcp remove/enable/disable`: no such server in your settings
│   └── SessionUnavailable     `--continue` / `--resume ID`: no such saved session here (or it
│                              is open in another LevelCode)
├── McpError                   carries the server name (and tool, where there is one)
│   ├── ServerStartError       the server could not be started: spawn failed, a `${VAR}` in its
│   │                          env is not set, the handshake failed or timed out
│   ├── TransportError         the byte stream broke (a remote server: the request failed)
│   │   ├── ServerExited       the process ended (exit code or signal, the stderr lines saying why)
│   │   ├── MessageTooLarge    one message passed the per-message size cap
│   │   └── AuthorizationRequired  a remote server answered 401/403 and no sign-in could help
│   │       └── SignInRequired     it needs the user to sign in (`levelcode mcp login NAME`), and
│   │                              nobody can be asked here (headless), or the stored sign-in lapsed
│   ├── ProtocolError          a message that is not valid JSON-RPC / MCP
│   ├── RemoteError            a JSON-RPC error response (code, message from the server)
│   └── CallTimeout            a request got no answer in time
├── RegistryError              the MCP Registry could not be asked, or its answer is one LevelCode
│                              will not make an entry of (a wrong shape, a package kind it cannot
│                              run, a version that is not exact); one line, nothing written
├── ProviderError              the model provider failed
│   ├── ProviderAuthError      no or wrong API key
│   └── ProviderRequestError   the API refused the request (its own message kept)
│       └── ContextTooLong     ... because the prompt is over the model's window (compaction helps)
├── SessionUnreadable          a saved session's file is not one LevelCode wrote (reported in
│                              one line; that session is skipped)
├── ToolError                  a built-in tool could not do what was asked (becomes `ERROR: …`)
└── TurnAborted                not a failure: the user aborted the turn (Ctrl-C)
"""

from __future__ import annotations

from dataclasses import dataclass

PURE = True


class LevelCodeError(Exception):
    """Root of everything LevelCode raises on purpose."""


class RegistryError(LevelCodeError):
    """The MCP Registry could not be asked, or answered with something LevelCode will not run."""


class ConfigError(LevelCodeError):
    """A configuration request that cannot be met; `origin` names the file, where there is one."""

    def __init__(self, message: str, *, origin: str | None = None) -> None:
        super().__init__(message)
        self.origin = origin


WHOLE_FILE_KEYS = ("(file)", "(top level)")


@dataclass(frozen=True)
class ConfigProblem:
    """One bad piece of configuration, reported as data: which file, which key, what is wrong.

    `line` and `column` (1-based) say where a file's text is broken, as an editor counts them;
    `not_loaded`: the server entry it names is left out (a problem of a whole file always is)."""

    file: str
    key: str
    message: str
    line: int | None = None
    column: int | None = None
    not_loaded: bool = False

    @property
    def whole_file(self) -> bool:
        """The file could not be used at all: nothing in it was read."""
        return self.key in WHOLE_FILE_KEYS

    def __str__(self) -> str:
        """`FILE:LINE:COLUMN: message` where the text is broken (the form editors and compilers
        use), `FILE: message` for the whole file, `FILE: KEY: message` otherwise."""
        if self.line is not None:
            return f"{self.file}:{self.line}:{self.column}: {self.message}"
        if self.key == "(file)":
            return f"{self.file}: {self.message}"
        return f"{self.file}: {self.key}: {self.message}"


class McpError(LevelCodeError):
    """A failure talking to one MCP server."""

    def __init__(self, message: str, *, server: str, tool: str | None = None) -> None:
        super().__init__(message)
        self.server = server
        self.tool = tool


class ServerStartError(McpError):
    """The server could not be started or did not complete its handshake."""


class TransportError(McpError):
    """The byte stream to the server broke."""


class ServerExited(TransportError):
    """The server process ended; `detail` says how, `stderr_lines` why (the lines of its stderr
    that matter: mcp/stdio/exit_lines.py)."""

    def __init__(self, message: str, *, server: str, detail: str, stderr_lines: tuple[str, ...] = ()) -> None:
        super().__init__(message, server=server)
        self.detail = detail
        self.stderr_lines = stderr_lines


class MessageTooLarge(TransportError):
    """One message from the server passed the per-message size cap."""


class AuthorizationRequired(TransportError):
    """A remote server refused the request (HTTP 401 or 403) and signing in did not help."""

    def __init__(
        self,
        message: str,
        *,
        server: str,
        status: int,
        challenge: str | None = None,
        dpop_nonce: str | None = None,
        peer: str | None = None,
    ) -> None:
        super().__init__(message, server=server)
        self.status = status
        self.challenge = challenge  # the WWW-Authenticate header, for a sign-in to read
        self.dpop_nonce = dpop_nonce  # the DPoP-Nonce header, when the server asks for a nonce
        self.peer = peer  # the address the refusal came from, when known (a proxy's, through one)


class SignInRequired(AuthorizationRequired):
    """A remote server needs the user to sign in, and this run cannot ask (headless)."""


class ProtocolError(McpError):
    """A message that is not valid JSON-RPC or not the MCP shape we asked for."""


class RemoteError(McpError):
    """The server answered with a JSON-RPC error."""

    def __init__(
        self, message: str, *, server: str, code: int, data: object = None, tool: str | None = None
    ) -> None:
        super().__init__(message, server=server, tool=tool)
        self.code = code
        self.data = data


class CallTimeout(McpError):
    """A request got no answer within its time limit."""

    def __init__(self, message: str, *, server: str, seconds: float, tool: str | None = None) -> None:
        super().__init__(message, server=server, tool=tool)
        self.seconds = seconds


class ProviderError(LevelCodeError):
    """The model provider failed."""


class ProviderAuthError(ProviderError):
    """No API key, or one the provider refused."""


class ProviderRequestError(ProviderError):
    """The provider refused the request; the message is the API's own."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ContextTooLong(ProviderRequestError):
    """The API refused the request because the prompt does not fit the model's context window;
    `window`: the window the API named, when it named one."""

    def __init__(self, message: str, *, status: int | None = None, window: int | None = None) -> None:
        super().__init__(message, status=status)
        self.window = window


class SessionUnavailable(ConfigError):
    """No saved session answers `--continue` or `--resume ID` in this workspace, or the one that
    does is open in another LevelCode."""


class SessionUnreadable(LevelCodeError):
    """A saved session's file cannot be read back; the message names the file and what is wrong."""


class ToolError(LevelCodeError):
    """A built-in tool could not do what was asked; the agent turns it into an `ERROR: …` result."""


class TurnAborted(LevelCodeError):
    """The user aborted the current turn; a decision that changes the flow, not a failure."""
