"""The child-process backends' contract runs on both event loops LevelCode may use."""

from __future__ import annotations

from tests.support.event_loops import on_both_loops

pytest_asyncio_loop_factories = on_both_loops({"test_child_process.py"})
