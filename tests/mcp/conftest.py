"""The transport and hub tests run on both event loops LevelCode may use: the standard one, and
uvloop (what `levelcode` itself runs on where it is installed). `memory_servers`: the default
fixture for hub, router and connection tests — in-memory servers behind the hub's transport seam
(tests/support/memory_servers.py); real servers are for process behaviour and compatibility."""

from __future__ import annotations

import pytest

from tests.support.event_loops import on_both_loops
from tests.support.memory_servers import MemoryServers

pytest_asyncio_loop_factories = on_both_loops(
    {"test_stdio_faults.py", "test_real_servers.py", "test_early_spawn.py", "test_dying_at_start.py"}
)


@pytest.fixture
def memory_servers() -> MemoryServers:
    """This test's in-memory servers: `add` one, then give a hub `transports=memory_servers.plan`."""
    return MemoryServers()
