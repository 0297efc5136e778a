"""One chat's worth of parts, assembled the same way for `run` and the REPL: settings, provider,
built-in tools, approvals and the loop."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from levelcode.agent.context_meter import ContextUsage, measure_context
from levelcode.agent.events import EventSink, Notice
from levelcode.agent.loop import Agent
from levelcode.agent.progress_relay import progress_relay
from levelcode.agent.system_prompt import build_system_prompt, instructions_section, with_server_instructions
from levelcode.agent.toolbox import Toolbox
from levelcode.cli.debug_log import DebugSink, configure_debug_log, debug_enabled
from levelcode.cli.printing import workspace_of
from levelcode.cli.sandbox_setup import extra_roots, no_sandbox_notice, session_confinement
from levelcode.core.approvals import Approver
from levelcode.core.messages import ToolShape
from levelcode.core.settings import Settings, load_settings
from levelcode.mcp.client_features import UserAnswers, workspace_roots
from levelcode.mcp.config.files import load_mcp_config
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
    base_system: str = ""  # the system prompt before the MCP servers' instructions join it

    async def start(self) -> None:
        """Start the MCP servers the launch gate permits, and say what the model will have."""
        note = no_sandbox_notice(self.ctx)
        if note:
            self.agent.sink.emit(Notice(note))
        for problem in self.mcp.config.problems:  # the settings' and the servers' problems, each once
            self.agent.sink.emit(Notice(f"config problem: {problem}"))
        await self.mcp.start()
        self.agent.system = with_server_instructions(self.base_system, self.mcp.instructions())
        summary = chip(self.mcp.summaries())
        if summary:
            self.agent.sink.emit(Notice(summary))

    def context_usage(self) -> ContextUsage:
        catalog = self.mcp.router.current()
        by_server: dict[str, list[ToolShape]] = {
            state: [] for state in self.mcp.hub.states if self.mcp.hub.connection(state)
        }
        for tool in catalog.tools:
            by_server.setdefault(catalog.routes[tool.name].server, []).append(tool)
        builtins = list(self.toolbox.builtins.values())
        instructions = [(name, instructions_section(name, text)) for name, text in self.mcp.instructions()]
        messages = self.agent.transcript.messages
        return measure_context(self.agent.system, builtins, by_server, messages, instructions)

    def add_folder(self, folder: Path) -> None:
        """Let the tools use `folder` too (as `--add-dir` does), and tell the servers that asked."""
        if folder in (self.workspace, *self.ctx.extra_roots):
            return
        self.ctx.extra_roots = (*self.ctx.extra_roots, folder)
        self.mcp.roots.folders.append(folder)
        self.mcp.hub.roots_changed()

    async def reset(self) -> None:
        """A new chat: empty transcript, fresh tool state (background jobs ended), MCP restarted."""
        await close_tool_context(self.ctx)
        self.agent.transcript.clear()
        self.toolbox.remembered.clear()
        await self.mcp.restart()
        self.agent.system = with_server_instructions(self.base_system, self.mcp.instructions())

    async def close(self) -> None:
        try:
            await self.mcp.close()
        finally:
            await close_tool_context(self.ctx)
            await close_provider(self.provider)


def open_session(
    args: argparse.Namespace,
    *,
    approver: Approver,
    sink: EventSink,
    answers: Callable[[Provider], UserAnswers] | None = None,
) -> ChatSession:
    """Raises ConfigError or ProviderAuthError with a message that says what to do. `answers`:
    who answers what servers ask of the user (the REPL's forms and cards); none when headless."""
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
        roots=workspace_roots(workspace, ctx.extra_roots),
        answers=answers(provider) if answers is not None else None,
    )
    mcp.router.on_progress = progress_relay(sink)
    toolbox = Toolbox(ctx, approver, builtins, extra=mcp.router)
    system = build_system_prompt(workspace)
    agent = Agent(provider, toolbox, system=system, sink=sink)
    return ChatSession(workspace, settings, provider, ctx, toolbox, agent, mcp, system)
