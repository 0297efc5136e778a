"""One chat's worth of parts, assembled the same way for `run` and the REPL: settings, provider,
built-in tools, approvals and the loop."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from levelcode.agent.context_meter import ContextUsage, measure_context
from levelcode.agent.events import EventSink, Notice
from levelcode.agent.loop import Agent
from levelcode.agent.system_prompt import build_system_prompt
from levelcode.agent.toolbox import Toolbox
from levelcode.cli.debug_log import DebugSink, configure_debug_log, debug_enabled
from levelcode.cli.printing import workspace_of
from levelcode.cli.sandbox_setup import extra_roots, no_sandbox_notice, session_confinement
from levelcode.core.approvals import Approver
from levelcode.core.messages import ToolShape
from levelcode.core.settings import Settings, load_settings
from levelcode.core.tool_offers import DeferredTool, offer_found
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.gates.deferral import ToolSearchPolicy, parse_tool_search
from levelcode.mcp.runtime import McpRuntime
from levelcode.providers.base import Provider
from levelcode.providers.factory import close_provider, make_provider, resolve_provider_settings
from levelcode.tools.base import ToolContext
from levelcode.tools.registry import builtin_tools, close_tool_context
from levelcode.ui.mcp_words import chip, notice_words


@dataclass
class ChatSession:
    workspace: Path
    settings: Settings
    provider: Provider
    ctx: ToolContext
    toolbox: Toolbox
    agent: Agent
    mcp: McpRuntime

    async def start(self) -> None:
        """Start the MCP servers the launch gate permits, and say what the model will have."""
        note = no_sandbox_notice(self.ctx)
        if note:
            self.agent.sink.emit(Notice(note))
        for problem in self.mcp.config.problems:  # the settings' and the servers' problems, each once
            self.agent.sink.emit(Notice(f"config problem: {problem}"))
        await self.mcp.start()
        summary = chip(self.mcp.summaries(), deferred=len(self.mcp.router.plan().deferred))
        if summary:
            self.agent.sink.emit(Notice(summary))

    def context_usage(self) -> ContextUsage:
        catalog = self.mcp.router.current()
        messages = self.agent.transcript.messages
        loaded: dict[str, list[ToolShape]] = {
            state: [] for state in self.mcp.hub.states if self.mcp.hub.connection(state)
        }
        deferred: dict[str, list[ToolShape]] = {}
        search: ToolShape | None = None
        for tool in offer_found(self.mcp.router.specs(), messages):
            route = catalog.route(tool.name)
            if route is None:
                search = tool  # tool_search: the one MCP-side tool no server has
            elif isinstance(tool, DeferredTool) and not tool.found:
                deferred.setdefault(route.server, []).append(tool)
            else:
                loaded.setdefault(route.server, []).append(tool)
        builtins = list(self.toolbox.builtins.values())
        return measure_context(
            self.agent.system, builtins, loaded, messages, tool_search=search, deferred_by_server=deferred
        )

    async def reset(self) -> None:
        """A new chat: empty transcript, fresh tool state (background jobs ended), MCP restarted."""
        await close_tool_context(self.ctx)
        self.agent.transcript.clear()
        self.toolbox.remembered.clear()
        await self.mcp.restart()

    async def close(self) -> None:
        try:
            await self.mcp.close()
        finally:
            await close_tool_context(self.ctx)
            await close_provider(self.provider)


def tool_search_policy(settings: Settings, window: int, sink: EventSink) -> ToolSearchPolicy:
    """The user's `toolSearch` setting against the model's window (a bad value: said, and "auto")."""
    parsed = parse_tool_search(settings.user.get("toolSearch"))
    if isinstance(parsed, str):
        sink.emit(Notice(f'config problem: {settings.user_file}: toolSearch: {parsed}; using "auto"'))
        parsed = parse_tool_search(None)
        assert not isinstance(parsed, str)
    mode, share = parsed
    return ToolSearchPolicy(mode, budget_tokens=int(window * share))


def open_session(args: argparse.Namespace, *, approver: Approver, sink: EventSink) -> ChatSession:
    """Raises ConfigError or ProviderAuthError with a message that says what to do."""
    configure_debug_log()
    if debug_enabled():
        sink = DebugSink(sink)
    workspace = workspace_of(args)
    settings = load_settings(workspace)
    provider_settings = resolve_provider_settings(
        provider=getattr(args, "provider", None),
        model=getattr(args, "model", None),
        base_url=getattr(args, "base_url", None),
        env=os.environ,
        user_settings=settings.user,
    )
    provider = make_provider(provider_settings)
    autopilot = bool(getattr(args, "autopilot", False)) or settings.autopilot
    ctx = ToolContext(
        workspace,
        extra_roots=extra_roots(args, settings),
        autopilot=autopilot,
        sandbox=session_confinement(args, settings),
        approver=approver,
    )
    builtins = builtin_tools()
    notify = lambda notice: sink.emit(Notice(notice_words(notice)))  # noqa: E731
    mcp = McpRuntime(
        workspace,
        load_mcp_config(workspace, settings),
        approver,
        reserved={t.name for t in builtins},
        notify=notify,
    )
    mcp.router.search_policy = tool_search_policy(settings, provider_settings.context_window, sink)
    toolbox = Toolbox(ctx, approver, builtins, extra=mcp.router)
    agent = Agent(provider, toolbox, system=build_system_prompt(workspace), sink=sink)
    return ChatSession(workspace, settings, provider, ctx, toolbox, agent, mcp)
