"""Keys typed before LevelCode asked for them. When a card appears, what is waiting — on the
terminal (a partly typed line included) and in prompt_toolkit's own type-ahead store — is taken
off both, so it can never answer the card; its text is kept and given back as the start of the
next prompt, so nothing typed is lost.

`typed_keys_kept` sets up the terminal for the session: a Ctrl-C that aborts a turn or skips a
slow server start no longer makes the terminal throw away what was typed ahead (NOFLSH), and a
Ctrl-D typed while LevelCode works reaches the next prompt as a Ctrl-D, not as an empty
end-of-line the terminal would make of it (VEOF off; nothing reads the terminal line by line).

I/O: reads only what already waits on the terminal; never waits for a key, never answers anything.
"""

from __future__ import annotations

import contextlib
import os
import select
import termios
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.input import Input

MAX_TAKEN_BYTES = 1 << 20  # a flood is taken up to this much at once; the rest waits for the next card
_kept: list[str] = []


def keep(text: str) -> None:
    """Keep `text` (typed when it could not be used) for the next prompt."""
    if text:
        _kept.append(text)


def kept_chars() -> int:
    return sum(len(text) for text in _kept)


def take_kept() -> str:
    """Everything kept so far, as the next prompt's starting text; forgotten here."""
    text = "".join(_kept).lstrip()
    _kept.clear()
    return text


def take_waiting(terminal: Input) -> list[tuple[str, str]]:
    """Every key waiting for `terminal`, as (key name, text typed): first what prompt_toolkit
    read too early, then what sits in the terminal's input queue. Taken off both."""
    from prompt_toolkit.input.typeahead import get_typeahead
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from prompt_toolkit.key_binding import KeyPress

    presses: list[KeyPress] = list(get_typeahead(terminal))
    waiting = _read_waiting(terminal.fileno())
    if waiting:
        parser = Vt100Parser(presses.append)
        parser.feed(waiting.decode("utf-8", errors="replace"))
        parser.flush()
    return [(key_name(press.key), press.data) for press in presses]


def key_name(key: object) -> str:
    """prompt_toolkit's name of a key: "c-y", "escape", or the character itself."""
    value = getattr(key, "value", key)
    return value if isinstance(value, str) else str(value)


def _read_waiting(fd: int) -> bytes:
    """The bytes waiting on `fd`, without waiting for more. A terminal is read with its line
    discipline off for the moment, so a line not yet ended with Enter is taken too."""
    with _line_by_line_off(fd):
        chunks: list[bytes] = []
        taken = 0
        while taken < MAX_TAKEN_BYTES and select.select([fd], [], [], 0)[0]:
            try:
                chunk = os.read(fd, 4096)
            except (BlockingIOError, InterruptedError):
                break
            if not chunk:
                break
            chunks.append(chunk)
            taken += len(chunk)
    return b"".join(chunks)


@contextlib.contextmanager
def _line_by_line_off(fd: int) -> Iterator[None]:
    """Non-canonical, no echo, reads returning at once, for the block; as before afterwards."""
    try:
        before = termios.tcgetattr(fd)
    except termios.error:  # not a terminal (a pipe): already byte by byte
        yield
        return
    now = [*before[:6], list(before[6])]
    now[3] &= ~(termios.ICANON | termios.ECHO)
    now[6][termios.VMIN], now[6][termios.VTIME] = 0, 0
    termios.tcsetattr(fd, termios.TCSANOW, now)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)


@contextlib.contextmanager
def typed_keys_kept(fd: int) -> Iterator[None]:
    """For the interactive session: NOFLSH on and VEOF off on the terminal `fd`, restored after."""
    try:
        before = termios.tcgetattr(fd)
        disabled = os.fpathconf(fd, "PC_VDISABLE")
    except (termios.error, OSError, ValueError):
        yield
        return
    now = [*before[:6], list(before[6])]
    now[3] |= termios.NOFLSH
    if 0 <= disabled < 256:
        now[6][termios.VEOF] = bytes([disabled])
    termios.tcsetattr(fd, termios.TCSANOW, now)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)
