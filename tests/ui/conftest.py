from __future__ import annotations

from collections.abc import Iterator

import pytest
from prompt_toolkit.input import PipeInput

from tests.support.key_pipe import key_pipe


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[PipeInput]:
    """Keys typed into a pipe that cards and questions read (tests/support/key_pipe.py)."""
    yield from key_pipe(monkeypatch)
