"""The event loops LevelCode may run on: the standard one and uvloop (what `levelcode` itself runs
on where it is installed). `on_both_loops(files)` is a conftest's `pytest_asyncio_loop_factories`
hook that runs the named test files on both and every other test on the standard loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

import pytest
import uvloop

LoopFactories = Mapping[str, Callable[[], asyncio.AbstractEventLoop]]


def on_both_loops(files: Collection[str]) -> Callable[[pytest.Config, pytest.Item], LoopFactories]:
    def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> LoopFactories:
        if Path(str(item.path)).name in files:
            return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
        return {"asyncio": asyncio.new_event_loop}

    return pytest_asyncio_loop_factories
