"""Type-ahead on a real pseudo-terminal. Load-bearing direction: when a card appears, everything
waiting — a partly typed line the terminal still holds for editing, and keys prompt_toolkit read
too early — is taken off the terminal (nothing is left for the card to read) and kept as text for
the next prompt; the terminal's settings are as they were afterwards. Also the session setting:
a Ctrl-C keeps what was typed ahead, and a Ctrl-D stays a key."""

from __future__ import annotations

import os
import select
import termios
from collections.abc import Iterator

import pytest
from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.input.vt100 import Vt100Input
from prompt_toolkit.key_binding import KeyPress

from levelcode.ui import typeahead
from levelcode.ui.card_keys import typed_text


@pytest.fixture
def pty() -> Iterator[tuple[int, int]]:
    """(the terminal's side, the program's side), in the terminal's default line-by-line mode."""
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def waiting(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def test_a_partly_typed_line_and_early_keys_are_taken_off_and_kept(pty: tuple[int, int]) -> None:
    master, slave = pty
    with os.fdopen(os.dup(slave), "r") as stdin:
        terminal = Vt100Input(stdin)
        store_typeahead(terminal, [KeyPress("y", "y"), KeyPress("e", "e")])  # read by the last prompt
        before = termios.tcgetattr(slave)
        os.write(master, b"s fix teh\x7f\x7fhe tests")  # no Enter: the terminal holds it for editing
        assert not waiting(slave)  # line by line, nothing is readable yet
        keys = typeahead.take_waiting(terminal)
        assert typed_text(keys) == "yes fix the tests"
        assert termios.tcgetattr(slave) == before
        os.write(master, b"\r")
        assert os.read(slave, 100) == b"\n"  # the line taken was not left for a reader


def test_kept_text_is_given_back_once() -> None:
    typeahead.keep("  yes fix ")
    typeahead.keep("the tests")
    assert typeahead.kept_chars() == 19
    assert typeahead.take_kept() == "yes fix the tests"
    assert typeahead.take_kept() == ""


def _typed_then_ctrl_c_and_ctrl_d(master: int, slave: int) -> list[tuple[str, str]]:
    """Type, press Ctrl-C (the pty is not our controlling terminal: no signal, but the terminal
    still reacts to it), type more and press Ctrl-D; what a card would then find waiting."""
    os.write(master, b"typed ahead\x03, kept\x04")
    with os.fdopen(os.dup(slave), "r") as stdin:
        return typeahead.take_waiting(Vt100Input(stdin))


def test_the_session_keeps_type_ahead_through_ctrl_c_and_ctrl_d_as_a_key(pty: tuple[int, int]) -> None:
    master, slave = pty
    before = termios.tcgetattr(slave)
    with typeahead.typed_keys_kept(slave):
        attrs = termios.tcgetattr(slave)
        assert attrs[3] & termios.NOFLSH
        keys = _typed_then_ctrl_c_and_ctrl_d(master, slave)
    assert termios.tcgetattr(slave) == before
    assert typed_text(keys) == "typed ahead, kept"
    assert keys[-1] == ("c-d", "\x04")


def test_without_it_the_terminal_drops_type_ahead_at_ctrl_c_and_eats_ctrl_d(pty: tuple[int, int]) -> None:
    master, slave = pty
    keys = _typed_then_ctrl_c_and_ctrl_d(master, slave)
    assert typed_text(keys) == ", kept"  # what came before the Ctrl-C is gone
    assert keys[-1] == ("c-@", "\x00")  # and the Ctrl-D is an empty end of line
