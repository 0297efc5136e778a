"""What LevelCode tells each server it can do, and who answers the server's own requests: roots
(the workspace and its added folders, unless the entry says `"roots": false`), elicitation (the
session's form when someone can answer; declined when nobody can, and the model is told why),
sampling (refused unless the user's own entry says `"sampling": true` and the organisation's
policy does not turn it off; then the session's card decides, and headless it is refused).

The mcp layer never talks to the user: the session supplies `UserAnswers` (cli wires the ui's
forms and cards in); without them, everything that needs a person is declined.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core.errors import RemoteError
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.protocol.session import ClientFeatures, ServerRequestHandler

# (server name, the request's params) → the result to send back; may ask the user.
Answer = Callable[[str, Mapping[str, object]], Awaitable[Mapping[str, object]]]
USER_REJECTED = -1  # the code the spec's examples use when the user declines a sampling request
MAX_QUOTED = 200
TellModel = Callable[[str], None]  # a note for the model, with the result of the call it came in


@dataclass
class UserAnswers:
    """Who answers what a server asks of the user; None: nobody (headless). Set when the session
    opens, possibly after servers connected: the handlers read it when a server asks."""

    elicit: Answer | None = None
    sample: Answer | None = None


@dataclass
class WorkspaceRoots:
    """The folders servers are told about; the session changes them (`/add-dir`)."""

    folders: list[Path] = field(default_factory=list[Path])

    def listing(self) -> dict[str, object]:
        return {
            "roots": [{"uri": folder.as_uri(), "name": folder.name or str(folder)} for folder in self.folders]
        }


def features_for(
    spec: ServerSpec, roots: WorkspaceRoots, answers: UserAnswers, tell: TellModel = lambda _note: None
) -> ClientFeatures:
    """`tell`: where a handler's note for the model goes (the connection's call notes)."""
    capabilities: dict[str, object] = {"elicitation": {"form": {}, "url": {}}}
    handlers: dict[str, ServerRequestHandler] = {
        "elicitation/create": _elicitation(spec.name, answers, tell),
        "sampling/createMessage": _sampling(spec, answers, tell),
    }
    if spec.client.roots:
        capabilities["roots"] = {"listChanged": True}

        async def list_roots(_params: Mapping[str, object]) -> Mapping[str, object]:
            return roots.listing()

        handlers["roots/list"] = list_roots
    else:
        handlers["roots/list"] = _no_roots
    if spec.client.sampling:
        capabilities["sampling"] = {}
    return ClientFeatures(capabilities, handlers)


async def _no_roots(_params: Mapping[str, object]) -> Mapping[str, object]:
    return {"roots": []}


def _quoted(params: Mapping[str, object]) -> str:
    message = params.get("message")
    text = " ".join(message.split()) if isinstance(message, str) else ""
    return f' ("{text[:MAX_QUOTED]}{"…" if len(text) > MAX_QUOTED else ""}")' if text else ""


def _elicitation(server: str, answers: UserAnswers, tell: TellModel) -> ServerRequestHandler:
    async def handle(params: Mapping[str, object]) -> Mapping[str, object]:
        answer = answers.elicit  # read when asked: a server may connect before the session answers
        if answer is None:
            tell(
                f"the server asked the user for input{_quoted(params)} and LevelCode declined it: nobody "
                "can answer in this session (a headless run). Do not retry; tell the user what it needs."
            )
            return {"action": "decline"}
        result = await answer(server, params)
        if result.get("action") != "accept":
            tell(f"the user answered the server's request for input with {result.get('action')!r}")
        return result

    return handle


def _sampling(spec: ServerSpec, answers: UserAnswers, tell: TellModel) -> ServerRequestHandler:
    async def handle(params: Mapping[str, object]) -> Mapping[str, object]:
        answer = answers.sample
        turned_off = spec.organisation.sampling_off if spec.organisation is not None else None
        if turned_off is not None:
            tell(f"the server asked to use the user's model (sampling); LevelCode refused: {turned_off}")
            raise RemoteError(f"sampling refused: {turned_off}", server=spec.name, code=-32601)
        if not spec.client.sampling:
            tell(
                "the server asked to use the user's model (sampling); LevelCode refused: it is off "
                f'unless the user\'s own settings say "sampling": true for {spec.name!r}'
            )
            raise RemoteError(
                "LevelCode does not allow sampling for this server", server=spec.name, code=-32601
            )
        if answer is None:
            tell("the server asked to use the user's model (sampling); refused: nobody can approve it here")
            raise RemoteError(
                "sampling refused: nobody can approve it in this session",
                server=spec.name,
                code=USER_REJECTED,
            )
        return await answer(spec.name, params)

    return handle


def workspace_roots(workspace: Path, extra: Sequence[Path] = ()) -> WorkspaceRoots:
    return WorkspaceRoots([workspace, *(p for p in extra if p != workspace)])
