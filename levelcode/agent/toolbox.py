"""Where a model's tool call goes: built-ins first, then any extra tool source (MCP) where an
unknown name would fall through. The name is resolved once per call (`resolve`), and the call
then carries what it resolved to. Approvals for built-ins happen here, with the session's
"always allow" memory (and a command rule saved to the user's settings when that is the answer);
every call ends in exactly one `ToolResult`, whatever happens inside.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from levelcode.agent.events import ToolOrigin
from levelcode.core.approvals import ApprovalRequest, Approver, decide_or_deny
from levelcode.core.errors import ConfigError, ToolError
from levelcode.core.messages import ToolResult, ToolShape, ToolUse
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.core.resource_changes import ResourceChanged
from levelcode.core.tool_offers import DeferredTool
from levelcode.providers.translate import invalid_arguments_error
from levelcode.tools.base import BuiltinTool, ToolContext

Route = TypeVar("Route")


class ToolSource(Protocol[Route]):
    """Tools from elsewhere (MCP servers), consulted only for names no built-in has. `Route` is
    what the source resolves a name to (for MCP: server and tool); opaque to the agent, which
    only hands it back with the call."""

    def specs(self) -> Sequence[ToolShape]: ...

    def route(self, name: str) -> Route | None:
        """What the name means to this source now, or None when it has no such tool."""

    def shown_input(self, name: str, tool_input: Mapping[str, object]) -> Mapping[str, object]: ...

    async def call(
        self, use: ToolUse, route: Route | None = None, shown: Mapping[str, object] | None = None
    ) -> ToolOutcome:
        """The call; `shown`: its display-safe input as `shown_input` made it for this call."""

    async def prepare(self) -> None:
        """Before each model request: bring the offered tools up to date (bounded)."""

    async def changes(self) -> Sequence[ResourceChanged]:
        """Before a turn: what changed of what the conversation uses (bounded), each once."""


@dataclass(frozen=True)
class ResolvedCall:
    """One tool use and what its name resolved to, looked up once and carried through the call."""

    use: ToolUse
    origin: ToolOrigin
    shown_input: Mapping[str, object]  # display-safe: an MCP call's argument values masked
    builtin: BuiltinTool | None = None
    route: object = None  # a tool of the extra source: what the name meant when it was resolved


def remember_key(request: ApprovalRequest) -> str:
    """What an "always allow" answer covers: all edits, or exactly this command."""
    if request.kind == "edit":
        return "edit"
    return "\n".join((request.kind, request.title, *request.body))


def denial(request: ApprovalRequest, *, interactive: bool) -> ToolOutcome:
    what = "command" if request.kind == "command" else "change" if request.kind == "edit" else "action"
    if interactive:
        return failure(f"the user denied this {what}; it was not run. Do not retry it unless the user asks.")
    if request.kind == "edit" and request.warning:
        return failure(f"not run: nobody can approve in this session. {request.warning} Do not retry it.")
    if request.warning:
        why = "it is flagged as dangerous, so it always needs a person's approval"
    elif request.note:
        why = request.note
    else:
        why = "it needs approval (--autopilot lets edits and commands the safety check calls safe run)"
    return failure(f"not run: nobody can approve in this session, and {why}. Do not retry it.")


class Toolbox:
    def __init__(
        self,
        ctx: ToolContext,
        approver: Approver,
        builtins: Sequence[BuiltinTool],
        extra: ToolSource[Any] | None = None,
    ) -> None:
        self.ctx = ctx
        self.approver = approver
        self.builtins = {tool.name: tool for tool in builtins}
        self.extra = extra
        self.remembered: set[str] = set()

    async def prepare(self) -> None:
        """Before each model request: the extra source refreshes what went stale (its lists' TTLs)."""
        if self.extra is not None:
            await self.extra.prepare()

    async def changes(self) -> Sequence[ResourceChanged]:
        return await self.extra.changes() if self.extra is not None else ()

    def specs(self) -> list[ToolShape]:
        extra = list(self.extra.specs()) if self.extra is not None else []
        return [*self.builtins.values(), *extra]

    def resolve(self, use: ToolUse) -> ResolvedCall:
        """What the call's name means: a built-in, a tool of the extra source, or nothing known."""
        builtin = self.builtins.get(use.name)
        if builtin is not None:
            return ResolvedCall(use, "builtin", use.input, builtin)
        route = self.extra.route(use.name) if self.extra is not None else None
        if self.extra is not None and route is not None:
            return ResolvedCall(use, "mcp", self.extra.shown_input(use.name, use.input), route=route)
        return ResolvedCall(use, "unknown", use.input)

    async def run(self, call: ResolvedCall) -> ToolResult:
        """Exactly one result for the call; only cancellation (the user's abort) propagates."""
        use = call.use
        invalid = invalid_arguments_error(use)
        if invalid is not None:
            return ToolResult(use.id, invalid)
        if call.builtin is not None:
            outcome = await self._run_builtin(call.builtin, use)
        elif call.route is not None and self.extra is not None:
            outcome = await self._run_extra(self.extra, call)
        else:
            known = ", ".join(t.name for t in self.specs() if not isinstance(t, DeferredTool))
            outcome = failure(f"there is no tool named {use.name!r}. Tools: {known}")
        return ToolResult(use.id, outcome)

    @staticmethod
    async def _run_extra(source: ToolSource[Any], call: ResolvedCall) -> ToolOutcome:
        use = call.use
        try:
            return await source.call(use, call.route, call.shown_input)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return failure(f"{use.name} failed unexpectedly: {type(exc).__name__}: {exc}")

    def _save_rule(self, rule: str) -> None:
        """Keep `rule` in the user's settings; if that fails, it still holds for this session."""
        try:
            path = self.ctx.command_rules.save(rule)
        except ConfigError as exc:
            said = f"the command rule was not saved (allowed for this session only): {exc}"
        else:
            said = f"saved in {path}: commandRules.allow now has {rule!r}"
        if self.ctx.notify is not None:
            self.ctx.notify(said)

    async def _run_builtin(self, tool: BuiltinTool, use: ToolUse) -> ToolOutcome:
        try:
            request = tool.approval(self.ctx, use.input)
        except Exception as exc:  # a broken approval rule fails closed
            return failure(f"could not check whether {tool.name} may run: {exc}")
        # a request that offers no "always" is asked every time, whatever was remembered
        if request is not None and (not request.allow_always or remember_key(request) not in self.remembered):
            choice = await decide_or_deny(self.approver, request)
            if choice == "deny":
                return denial(request, interactive=self.approver.interactive)
            if choice in ("always", "save_rule"):
                self.remembered.add(remember_key(request))
            if choice == "save_rule" and request.rule is not None:
                self._save_rule(request.rule)
        try:
            return ToolOutcome(await tool.run(self.ctx, use.input))
        except ToolError as exc:
            return failure(str(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return failure(f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
