"""The transport and hub tests run on both event loops LevelCode may use: the standard one, and
uvloop (what `levelcode` itself runs on where it is installed)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import uvloop

BOTH_LOOPS = {"test_stdio_faults.py", "test_real_servers.py", "test_early_spawn.py", "test_dying_at_start.py"}


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    if Path(str(item.path)).name in BOTH_LOOPS:
        return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
    return {"asyncio": asyncio.new_event_loop}
