"""The loop's tests use the providers' fixtures: `api` (both APIs) and `connect`."""

from tests.providers.conftest import api, connect

__all__ = ["api", "connect"]
