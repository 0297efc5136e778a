"""The REPL's slash commands and turns without a terminal: what they use of the REPL (its face,
cli/repl/face.py) around a real session — the real provider code against a fake provider server,
the real tools, MCP runtime and session files — with the console written to a string. For what a
command does; how it looks in a terminal is for the tmux tests."""

from __future__ import annotations

import argparse
import asyncio
import io
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from levelcode.agent.events import RecordingSink
from levelcode.cli.repl.mcp_prompt_parts import McpPromptParts
from levelcode.cli.start.chat_parts import ChatSession, open_session
from levelcode.cli.start.light_start import prepare_session
from levelcode.core.approvals import Approver, HeadlessApprover
from levelcode.ui.activity_line import ActivityLine
from tests.fakes.scripted_server import ScriptedServer
from tests.providers.support import OPENAI, Api


class FaceForTests:
    def __init__(self, session: ChatSession, workspace: Path) -> None:
        self._out = io.StringIO()
        self.console = Console(file=self._out, width=120, color_system=None, force_terminal=False)
        self.line = ActivityLine(self.console)
        self.light = argparse.Namespace(workspace=workspace)
        self.mcp_parts = McpPromptParts(session.mcp)
        self.turn: asyncio.Future[Any] | None = None
        self.pending: list[Any] = []
        self._session = session

    @property
    def session(self) -> ChatSession:
        return self._session

    async def servers_ready(self) -> None:
        return None

    async def start_servers(self, work: Coroutine[object, object, None]) -> None:
        await work

    def shown(self) -> str:
        """Everything printed so far."""
        return self._out.getvalue()


@asynccontextmanager
async def repl_face(
    server: ScriptedServer, workspace: Path, api: Api = OPENAI, approver: Approver | None = None
) -> AsyncIterator[FaceForTests]:
    """A face around a session of `workspace` whose model is `server`'s; the API key is the one
    the caller put in the environment (monkeypatch). `approver` answers its cards (a scripted one,
    tests/support/approvers.py; by default nobody is there to answer)."""
    args = argparse.Namespace(
        workspace=str(workspace), provider=api.name, base_url=server.base_url, model=api.model
    )
    approver = approver or HeadlessApprover()
    session = open_session(prepare_session(args), approver=approver, sink=RecordingSink())
    try:
        await session.start()
        yield FaceForTests(session, workspace)
    finally:
        await session.close()
