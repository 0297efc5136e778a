"""One refresh at a time per sign-in, across every LevelCode process of this user: an exclusive
file lock next to the credential store, held while a token is renewed and the answer stored; and
a refresh, once sent, seen through to its answer being kept, whatever happens to its caller.

A process that waited for the lock reads the store again first: when another process refreshed
meanwhile (its rotated refresh token already used up ours), it takes that answer instead of
refreshing twice. Waiting is bounded; I/O at the edge (fcntl, a 0600 file in the 0700 folder).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.platform.private_files import private_folder

REFRESH_LOCK_SECONDS = 45.0  # longer than one token request may take (REQUEST_SECONDS)
_POLL_SECONDS = 0.05
T = TypeVar("T")


def lock_path(folder: Path, key: str) -> Path:
    return folder / f"oauth-refresh-{hashlib.sha256(key.encode()).hexdigest()[:16]}.lock"


@contextlib.asynccontextmanager
async def refresh_lock(
    folder: Path | None, key: str, *, seconds: float = REFRESH_LOCK_SECONDS
) -> AsyncIterator[None]:
    """Held across processes for `key`; a store kept in memory (one process) needs no file."""
    if folder is None:
        yield
        return
    private_folder(folder)
    fd = os.open(lock_path(folder, key), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        await _acquire(fd, seconds)
        yield
    finally:
        os.close(fd)  # closing releases the lock


async def _acquire(fd: int, seconds: float) -> None:
    # Polled, not a blocking flock in a thread: a cancelled sign-in must not leave a thread
    # holding the lock for a process that no longer wants it.
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise OAuthProblem(
                    f"another LevelCode process has been renewing this sign-in for over {seconds:g} s"
                ) from None
            await asyncio.sleep(_POLL_SECONDS)


async def seen_through(work: Coroutine[Any, Any, T], seconds: float) -> T:
    """`work`'s result. When the caller is cancelled meanwhile (a call given up, then its
    connection closing), `work` still runs to its end — waited for, through any further
    cancellation, up to `seconds` — before the cancellation goes on. An authorization server
    rotates the refresh token as it takes the request: its answer is then the only copy of the
    new one, and dropping it loses the sign-in. `work` must not use anything its caller owns."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(lambda done: done.cancelled() or done.exception())  # a failure no one awaits
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        deadline = time.monotonic() + seconds
        while not task.done() and (left := deadline - time.monotonic()) > 0:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({task}, timeout=left)
        raise
