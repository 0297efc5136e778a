"""One chat's worth of parts, assembled the same way for `run` and the REPL: settings, provider,
built-in tools, approvals, the loop and the session file it is saved to — on top of the light
start (cli/start/light_start.py), whose MCP runtime may have begun starting the user's servers
already, and which may bring a saved session to go on with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.agent.context_meter import ContextUsage, ContextWindow, measure_context
from levelcode.agent.events import EventSink, Notice
from levelcode.agent.loop import Agent
from levelcode.agent.progress_relay import progress_relay
from levelcode.agent.session_recorder import SessionRecorder, restore
from levelcode.agent.session_store import SessionFolder
from levelcode.agent.system_prompt import build_system_prompt, instructions_section, with_server_instructions
from levelcode.agent.toolbox import Toolbox
from levelcode.cli.start.debug_log import DebugSink, configure_debug_log, debug_enabled
from levelcode.cli.start.light_start import SessionStart
from levelcode.cli.start.sandbox_choice import extra_roots, no_sandbox_notice, session_confinement
from levelcode.core.approvals import Approver
from levelcode.mcp.calls.deferral import ToolSearchPolicy
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.live.client_features import UserAnswers
from levelcode.mcp.live.overview import Restarted
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.policy.settings import Settings
from levelcode.providers.base import Provider, ProviderSettings
from levelcode.providers.context_windows import known_context_window
from levelcode.providers.factory import close_provider
from levelcode.providers.lazy import LazyProvider
from levelcode.providers.model_catalog import settings_for_model
from levelcode.tools.base import ToolContext
from levelcode.tools.command_allow_rules import parse_command_rules
from levelcode.tools.command_allowances import CommandAllowances
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
    recorder: SessionRecorder
    base_system: str = ""  # the system prompt before the MCP servers' instructions join it

    def warm(self) -> None:
        """Import the provider's SDK in the background now (the first request waits for it)."""
        if isinstance(self.provider, LazyProvider):
            self.provider.warm()

    async def start(self) -> None:
        """Start the MCP servers the launch gate permits, and say what the model will have."""
        await self.launch(await self.admit())

    async def admit(self) -> list[ServerSpec]:
        """Say what the user must know first, and pass every server through the launch gate (which
        may ask): the servers that may start."""
        for problem in self.mcp.config.problems:  # the settings' and the servers' problems, each once
            self.agent.sink.emit(Notice(f"config problem: {problem}"))  # first: what follows may stem from it
        note = no_sandbox_notice(self.ctx)
        if note:
            self.agent.sink.emit(Notice(note))
        return await self.mcp.admit()

    async def launch(self, permitted: Sequence[ServerSpec]) -> None:
        """Start (or wait for) the permitted servers, then say what the model will have."""
        await self.mcp.launch(permitted)
        self.agent.system = with_server_instructions(self.base_system, self.mcp.instructions())
        summary = chip(self.mcp.summaries(), deferred=self.mcp.deferred_count())
        if summary:
            self.agent.sink.emit(Notice(summary))

    def context_usage(self) -> ContextUsage:
        messages = self.agent.transcript.messages
        mcp_tools = self.mcp.tools_by_server(messages)
        builtins = list(self.toolbox.builtins.values())
        instructions = [(name, instructions_section(name, text)) for name, text in self.mcp.instructions()]
        return measure_context(
            self.agent.system,
            builtins,
            mcp_tools.loaded,
            messages,
            instructions,
            tool_search=mcp_tools.search,
            deferred_by_server=mcp_tools.deferred,
            window=self.context_window(),
        )

    def context_window(self) -> ContextWindow:
        """The window compaction goes by, and whether it is known or LevelCode's default."""
        model, compactor = self.provider.settings.model, self.agent.compactor
        named = compactor.named_window is not None
        known = named or known_context_window(model, self.settings.provider.context_window) is not None
        return ContextWindow(model, compactor.window, known)

    def add_folder(self, folder: Path) -> None:
        """Let the tools use `folder` too (as `--add-dir` does), and tell the servers that asked."""
        if folder in (self.workspace, *self.ctx.extra_roots):
            return
        self.ctx.extra_roots = (*self.ctx.extra_roots, folder)
        self.mcp.add_root(folder)

    def save(self) -> None:
        """Bring the session file up to date (the loop does it at its checkpoints)."""
        agent = self.agent
        self.recorder.save(agent.transcript.messages, agent.spend, agent.provider.settings.model)

    def switch_model(self, model: str) -> ProviderSettings:
        """`/model NAME`: the next request goes to `model`, its context window and price follow,
        and the session file records it."""
        if not isinstance(self.provider, LazyProvider):
            raise TypeError("only a session's own provider can switch models")
        settings = settings_for_model(self.provider.settings, model, self.settings.provider.context_window)
        self.provider.switch(settings)
        self.agent.compactor.named_window = None  # what the API said of the last model's window
        self.mcp.set_search_policy(tool_search_policy(self.settings, settings.context_window))
        self.save()
        return settings

    async def reset(self) -> None:
        """A new chat: empty transcript, fresh tool state (background jobs ended), MCP restarted,
        AGENTS.md read again; the chat before stays saved, and the new one goes to a file of its own."""
        await close_tool_context(self.ctx)
        self.recorder.new_chat(self.agent.spend)
        self.base_system = build_system_prompt(self.workspace)  # AGENTS.md read again (/init)
        self.agent.transcript.clear()
        self.toolbox.remembered.clear()
        await self.mcp.restart()
        self.agent.system = with_server_instructions(self.base_system, self.mcp.instructions())

    async def restart_server(self, name: str) -> Restarted:
        """`/mcp restart NAME`: that server ended and started again (the launch gate as ever);
        the system prompt takes its instructions as it gives them now."""
        restarted = await self.mcp.restart_server(name)
        self.agent.system = with_server_instructions(self.base_system, self.mcp.instructions())
        return restarted

    async def close(self) -> None:
        self.recorder.close()
        try:
            await self.mcp.close()
        finally:
            await close_tool_context(self.ctx)
            await close_provider(self.provider)


def tool_search_policy(settings: Settings, window: int) -> ToolSearchPolicy:
    """The user's `toolSearch` setting against the model's window (a bad value: "auto", and said
    among the settings' problems)."""
    mode, share = settings.tool_search
    return ToolSearchPolicy(mode, budget_tokens=int(window * share))


def user_command_rules(settings: Settings, sink: EventSink) -> CommandAllowances:
    """The user's own `"commandRules"` (a repository's settings may not set them); a line that is
    no rule is said (the list's shape was checked with the settings)."""
    rules, problems = parse_command_rules(settings.command_rules)
    for key, problem in problems:
        sink.emit(Notice(f"config problem: {settings.user_file}: {key}: {problem}"))
    return CommandAllowances(rules, settings.user_file)


def open_session(
    start: SessionStart,
    *,
    approver: Approver,
    sink: EventSink,
    answers: Callable[[Provider], UserAnswers] | None = None,
) -> ChatSession:
    """The session on top of its light start. Raises ProviderAuthError when the key is refused.
    `answers`: who answers what servers ask of the user (the REPL's forms and cards); none when
    headless."""
    configure_debug_log()
    if debug_enabled():
        sink = DebugSink(sink)
    workspace, settings = start.workspace, start.settings
    provider = LazyProvider(start.provider_settings)  # the SDK import waits off the critical path
    autopilot = bool(getattr(start.args, "autopilot", False)) or settings.autopilot
    ctx = ToolContext(
        workspace,
        extra_roots=extra_roots(start.args, settings),
        autopilot=autopilot,
        sandbox=session_confinement(start.args, settings),
        approver=approver,
        notify=lambda text: sink.emit(Notice(text)),
        command_rules=user_command_rules(settings, sink),
    )
    builtins = builtin_tools()
    mcp = start.mcp
    ctx.saved_results = mcp.saved_results  # read_file may page through the results cut this session
    notify = lambda notice: sink.emit(Notice(notice_words(notice)))  # noqa: E731
    given = answers(provider) if answers is not None else None
    mcp.attach(approver, notify, answers=given, progress=progress_relay(sink))
    mcp.set_search_policy(tool_search_policy(settings, start.provider_settings.context_window))
    toolbox = Toolbox(ctx, approver, builtins, extra=mcp.tool_source())
    system = build_system_prompt(workspace)
    agent = Agent(provider, toolbox, system=system, sink=sink, prices=settings.prices)
    recorder = SessionRecorder(
        SessionFolder(workspace),
        provider.settings.provider,
        lambda text: sink.emit(Notice(text)),
        start.resumed,
    )
    if start.resumed is not None:
        restore(agent, start.resumed)
    session = ChatSession(workspace, settings, provider, ctx, toolbox, agent, mcp, recorder, system)
    agent.checkpoint = session.save
    return session
