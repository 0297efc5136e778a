"""When a key on a card counts. Load-bearing direction (must refuse): no key arriving while the
card arms answers it, however long the typing goes on, and no typed text — words, digits,
punctuation, spaces, Enter, Tab, Backspace, pastes — ever gives the confirmation of a remembered
answer. The second corpus (must pass): a key pressed once the card is armed answers it, and
Ctrl-Y confirms. Also: what typed keys say as text, for the next prompt."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress

from levelcode.ui.card_keys import ARMING_SECONDS, CONFIRM_KEY, KeyGate, option_keys, typed_text
from levelcode.ui.typeahead import key_name

CARD = option_keys([("s", "sandboxed", ""), ("y", "once", ""), ("n", "deny", "")])
BACK = "back"
CONFIRM = {CONFIRM_KEY: "once"}

TYPED_WORDS = [  # what people type while a card appears, or into one by mistake
    "yes fix the tests",
    "Yes, fix the tests.\r",
    "always do that",
    "sure\r",
    "y\ry\ry\r",
    "sss",
    "ok\t42\x7f\x7f!",
    "rm -rf build && make -j4\r",
    "\x1b[A\x1b[B",  # arrows: history keys
    "\x1b[200~pasted; DROP TABLE users\x1b[201~",
    "ÿes — déjà vu\r",
]


def keys_of(text: str) -> list[tuple[str, str]]:
    """The key presses a terminal sends for `text`, as prompt_toolkit parses them."""
    presses: list[KeyPress] = []
    parser = Vt100Parser(presses.append)
    parser.feed(text)
    parser.flush()
    return [(key_name(press.key), press.data) for press in presses]


def test_keys_while_the_card_arms_are_ignored_and_kept_however_long_the_typing() -> None:
    gate = KeyGate.drawn(CARD, now=100.0)
    at = 100.0
    for key, data in keys_of("yes fix the tests and then some more words"):
        at += ARMING_SECONDS * 0.9  # each key just inside the wait that the last one started
        assert gate.press(key, data, at) is None
    assert typed_text(gate.typed) == "yes fix the tests and then some more words"
    assert not gate.armed(at)
    assert gate.armed(at + ARMING_SECONDS)


def test_a_key_once_armed_answers_and_upper_case_counts_too() -> None:
    gate = KeyGate.drawn(CARD, now=0.0)
    assert gate.press("y", "y", ARMING_SECONDS) == "once"
    assert KeyGate.drawn(CARD, now=0.0).press("S", "S", ARMING_SECONDS + 1) == "sandboxed"


def test_a_key_that_answers_nothing_is_typing_and_arms_the_card_again() -> None:
    gate = KeyGate.drawn(CARD, now=0.0)
    assert gate.press("t", "t", 1.0) is None  # armed, but `t` is no answer: someone is typing
    assert gate.press("y", "y", 1.2) is None  # so the `y` of "they" right after it is typing too
    assert gate.press("y", "y", 1.2 + ARMING_SECONDS) == "once"
    assert typed_text(gate.typed) == "ty"


def test_ctrl_y_confirms_once_armed_and_any_other_key_goes_back() -> None:
    assert KeyGate.drawn(CONFIRM, 0.0, BACK).press(CONFIRM_KEY, "\x19", ARMING_SECONDS) == "once"
    assert KeyGate.drawn(CONFIRM, 0.0, BACK).press(CONFIRM_KEY, "\x19", ARMING_SECONDS / 2) is None
    assert KeyGate.drawn(CONFIRM, 0.0, BACK).press("y", "y", ARMING_SECONDS) == BACK
    assert KeyGate.drawn(CONFIRM, 0.0, BACK).press("c-m", "\r", ARMING_SECONDS) == BACK


def test_no_typed_word_confirms_at_any_pace() -> None:
    for words in TYPED_WORDS:
        for gap in (0.0, 0.05, ARMING_SECONDS, 2.0):
            gate = KeyGate.drawn(CONFIRM, 0.0, BACK)
            answers = {gate.press(key, data, gap * i) for i, (key, data) in enumerate(keys_of(words), 1)}
            assert "once" not in answers, (words, gap)


TYPING = st.text(
    st.characters(blacklist_categories=("Cc", "Cs")) | st.sampled_from(["\r", "\n", "\t", "\x7f", "\x08"])
)


@given(TYPING, st.lists(st.floats(min_value=0, max_value=5), min_size=1))
def test_no_text_typed_ever_confirms(text: str, gaps: list[float]) -> None:
    gate = KeyGate.drawn(CONFIRM, 0.0, BACK)
    at = 0.0
    for index, (key, data) in enumerate(keys_of(text)):
        at += gaps[index % len(gaps)]
        assert gate.press(key, data, at) in (None, BACK)


@given(TYPING, st.floats(min_value=0, max_value=ARMING_SECONDS * 0.99))
def test_typing_that_never_pauses_never_answers_a_card(text: str, gap: float) -> None:
    gate = KeyGate.drawn(CARD, 0.0)
    for index, (key, data) in enumerate(keys_of(text), 1):
        assert gate.press(key, data, gap * index) is None


def test_typed_text_applies_backspace_and_drops_what_is_not_text() -> None:
    assert typed_text(keys_of("fix teh\x7f\x7fhe tests\r")) == "fix the tests "
    assert typed_text(keys_of("\x1b[Aup\x1b[200~two\nlines\x1b[201~\x04")) == "uptwo lines"
    assert typed_text(keys_of("\x7f\x7fok")) == "ok"
