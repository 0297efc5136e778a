"""Fixtures for every test of the sandbox's checks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from levelcode.sandbox import folder_listings


@pytest.fixture(autouse=True)
def no_kept_listings() -> Iterator[None]:
    """Each test starts with no folder listing kept from another test's folders."""
    folder_listings._kept.clear()
    yield
    folder_listings._kept.clear()
