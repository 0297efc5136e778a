"""The terminal sanitizer. Load-bearing direction: no character a terminal acts on (C0, DEL, C1,
ESC sequences, CR, BS, BEL), no bidi control and no zero-width or invisible character survives
`visible` or `visible_block` raw. The second corpus: ordinary text in any script comes through
unchanged, and `visible_block` keeps line breaks and tabs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.ui.visible import visible, visible_block

MUST_ESCAPE = [
    ("\x1b]52;c;Y3VybCB8IHNo\x07", "\\x1b]52;c;Y3VybCB8IHNo\\x07"),  # OSC 52 clipboard write
    ("\x1b[2K\x1b[1A", "\\x1b[2K\\x1b[1A"),  # erase line, cursor up
    ("\x1b[2J", "\\x1b[2J"),  # erase screen
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    ("fake\rreal", "fake\\rreal"),
    ("abc\x08\x08\x08xyz", "abc\\x08\\x08\\x08xyz"),
    ("bell\x07", "bell\\x07"),
    ("nul\x00", "nul\\x00"),
    ("del\x7f", "del\\x7f"),
    ("csi\x9b2J", "csi\\x9b2J"),  # the one-byte C1 CSI
    ("\x85next", "\\x85next"),
    ("\u202egnp.exe", "\\u202egnp.exe"),  # right-to-left override
    ("a\u202ab\u202bc\u202cd\u202de", "a\\u202ab\\u202bc\\u202cd\\u202de"),
    ("\u2066x\u2067y\u2068z\u2069", "\\u2066x\\u2067y\\u2068z\\u2069"),
    ("\u200ex\u200fy\u061cz", "\\u200ex\\u200fy\\u061cz"),
    ("zero\u200bwidth\u200c\u200d", "zero\\u200bwidth\\u200c\\u200d"),
    ("\u2060\u2061\u2062\u2063\u2064", "\\u2060\\u2061\\u2062\\u2063\\u2064"),
    ("\ufeffbom", "\\ufeffbom"),
    ("mongolian\u180evowel", "mongolian\\u180evowel"),
    ("soft\u00adhyphen", "soft\\xadhyphen"),
    ("tag\U000e0041\U000e0042", "tag\\U000e0041\\U000e0042"),  # invisible tag characters
    ("line\u2028para\u2029", "line\\u2028para\\u2029"),
    ("lone\ud800surrogate", "lone\\ud800surrogate"),
]

MUST_PASS = [
    "plain ASCII, punctuation: !@#$%^&*()[]{}<>~`'\"\\",
    "accents: déjà vu, Ærøskøbing, İstanbul",
    "CJK: 日本語のテキスト, 한국어",
    "RTL text itself is fine: שלום, مرحبا",
    "emoji: 🙂 🚀",
    "box drawing: ─│┌┐ ● ⎿ …",
    "non-breaking\u00a0space",
]


@pytest.mark.parametrize(("raw", "shown"), MUST_ESCAPE)
def test_control_and_invisible_characters_are_escaped(raw: str, shown: str) -> None:
    assert visible(raw) == shown
    assert visible_block(raw) == shown


@pytest.mark.parametrize("text", MUST_PASS)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert visible(text) == text
    assert visible_block(text) == text


def test_one_line_escapes_line_breaks_and_tabs() -> None:
    assert visible("a\nb\tc") == "a\\nb\\tc"


def test_block_keeps_line_breaks_and_tabs_and_reads_crlf_as_a_break() -> None:
    assert visible_block("a\n\tb\r\nc") == "a\n\tb\nc"
    assert visible_block("over\rwrite\n") == "over\\rwrite\n"
    assert visible_block("\x1b[2K\n\x1b]52;c;x\x07") == "\\x1b[2K\n\\x1b]52;c;x\\x07"


TERMINAL_ACTS_ON = {chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
INVISIBLE = {chr(c) for c in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E, 0x00AD, 0x202E, 0x2066)}


@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(sorted(TERMINAL_ACTS_ON | INVISIBLE))))
def test_property_nothing_a_terminal_acts_on_survives(text: str) -> None:
    for shown, kept in ((visible(text), set()), (visible_block(text), {"\n", "\t"})):
        assert not (set(shown) & (TERMINAL_ACTS_ON | INVISIBLE)) - kept
