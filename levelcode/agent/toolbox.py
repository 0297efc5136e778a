"""Where a model's tool call goes: built-ins first, then any extra tool source (MCP) where an
unknown name would fall through. Approvals for built-ins happen here, with the session's
"always allow" memory; every call ends in exactly one `ToolResult`, whatever happens inside.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Protocol

from levelcode.agent.events import ToolOrigin
from levelcode.core.approvals import ApprovalRequest, Approver, decide_or_deny
from levelcode.core.errors import ToolError
from levelcode.core.messages import ToolResult, ToolShape, ToolUse
from levelcode.providers.translate import invalid_arguments_error
from levelcode.tools.base import BuiltinTool, ToolContext


class ToolSource(Protocol):
    """Tools from elsewhere (MCP servers), consulted only for names no built-in has."""

    def specs(self) -> Sequence[ToolShape]: ...

    def handles(self, name: str) -> bool: ...

    def shown_input(self, name: str, tool_input: Mapping[str, object]) -> Mapping[str, object]: ...

    async def call(self, use: ToolUse) -> tuple[str, bool]: ...


def remember_key(request: ApprovalRequest) -> str:
    """What an "always allow" answer covers: all edits, or exactly this command."""
    if request.kind == "edit":
        return "edit"
    return "\n".join((request.kind, request.title, *request.body))


def denial_text(request: ApprovalRequest, *, interactive: bool) -> str:
    what = "command" if request.kind == "command" else "change" if request.kind == "edit" else "action"
    if interactive:
        return f"ERROR: the user denied this {what}; it was not run. Do not retry it unless the user asks."
    if request.kind == "edit" and request.warning:
        return f"ERROR: not run: nobody can approve in this session. {request.warning} Do not retry it."
    if request.warning:
        why = "it is flagged as dangerous, so it always needs a person's approval"
    elif request.note:
        why = request.note
    else:
        why = "it needs approval (--autopilot lets edits and commands the safety check calls safe run)"
    return f"ERROR: not run: nobody can approve in this session, and {why}. Do not retry it."


class Toolbox:
    def __init__(
        self,
        ctx: ToolContext,
        approver: Approver,
        builtins: Sequence[BuiltinTool],
        extra: ToolSource | None = None,
    ) -> None:
        self.ctx = ctx
        self.approver = approver
        self.builtins = {tool.name: tool for tool in builtins}
        self.extra = extra
        self.remembered: set[str] = set()

    def specs(self) -> list[ToolShape]:
        extra = list(self.extra.specs()) if self.extra is not None else []
        return [*self.builtins.values(), *extra]

    def origin(self, name: str) -> ToolOrigin:
        if name in self.builtins:
            return "builtin"
        return "mcp" if self.extra is not None and self.extra.handles(name) else "unknown"

    def shown_input(self, use: ToolUse) -> Mapping[str, object]:
        if use.name not in self.builtins and self.extra is not None and self.extra.handles(use.name):
            return self.extra.shown_input(use.name, use.input)
        return use.input

    async def run(self, use: ToolUse) -> ToolResult:
        """Exactly one result for the call; only cancellation (the user's abort) propagates."""
        invalid = invalid_arguments_error(use.input)
        if invalid is not None:
            return ToolResult(use.id, invalid, True)
        tool = self.builtins.get(use.name)
        if tool is not None:
            text, is_error = await self._run_builtin(tool, use)
        elif self.extra is not None and self.extra.handles(use.name):
            text, is_error = await self._run_extra(self.extra, use)
        else:
            known = ", ".join(t.name for t in self.specs())
            text, is_error = f"ERROR: there is no tool named {use.name!r}. Tools: {known}", True
        return ToolResult(use.id, text, is_error)

    @staticmethod
    async def _run_extra(source: ToolSource, use: ToolUse) -> tuple[str, bool]:
        try:
            return await source.call(use)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return f"ERROR: {use.name} failed unexpectedly: {type(exc).__name__}: {exc}", True

    async def _run_builtin(self, tool: BuiltinTool, use: ToolUse) -> tuple[str, bool]:
        try:
            request = tool.approval(self.ctx, use.input)
        except Exception as exc:  # a broken approval rule fails closed
            return f"ERROR: could not check whether {tool.name} may run: {exc}", True
        # a request that offers no "always" is asked every time, whatever was remembered
        if request is not None and (not request.allow_always or remember_key(request) not in self.remembered):
            choice = await decide_or_deny(self.approver, request)
            if choice == "deny":
                return denial_text(request, interactive=self.approver.interactive), True
            if choice == "always":
                self.remembered.add(remember_key(request))
        try:
            return await tool.run(self.ctx, use.input), False
        except ToolError as exc:
            return f"ERROR: {exc}", True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return f"ERROR: {tool.name} failed unexpectedly: {type(exc).__name__}: {exc}", True
