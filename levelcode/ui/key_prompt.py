"""One key among a card's answers, read from the terminal. What was typed before the card is taken
off the terminal and kept for the next prompt (ui/typeahead.py); a key counts only once the card
is armed (ui/card_keys.py), and the prompt line says when it is; an answer listed in `confirm`
is given only after a second step, armed afresh, where `CONFIRM_KEY` confirms and any other key
goes back to the card. Ctrl-C, Ctrl-D, Escape or a closed terminal answer `dismissed` at any
moment.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from levelcode.ui.card_keys import (
    CONFIRM_KEY,
    CONFIRM_KEY_NAME,
    DISMISS_KEYS,
    Answer,
    KeyGate,
    option_keys,
    typed_text,
)
from levelcode.ui.typeahead import keep, key_name, take_waiting
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.styles import BaseStyle

SUMMARY_MARK = "! "
PROMPT_TAIL = "  press a key: "
CONFIRM_TAIL = f"  press {CONFIRM_KEY_NAME} to confirm: "
ARMING_TAIL = "  … a moment: keys typed now are not taken as answers "
CONFIRM_HELP = f"  [{CONFIRM_KEY_NAME}] confirm · any other key: back to the card · Ctrl-C or Escape: deny\n"
_BACK = "\0back"  # what any other key answers on a confirmation step (no option can be it)

Option = tuple[str, Answer, str]  # (key, answer, label)
Key = TypeVar("Key", bound=str)  # what one step's keys answer
Lines = Callable[[bool], "StyleAndTextTuples"]  # the prompt's lines, given whether it is armed


async def read_key(
    options: Sequence[Option[Answer]],
    dismissed: Answer,
    summary: tuple[str, ...] = (),
    confirm: Mapping[Answer, str] | None = None,
) -> Answer:
    """One key press among `options`. `confirm`: the answers that need the second step, each with
    the reason shown on it (e.g. "remembered for this workspace")."""
    confirm = confirm or {}
    labels = {value: label for _key, value, label in options}
    while True:
        lines = _card_lines(options, summary, confirm)
        answer: Answer = await _one_key(lines, option_keys(options), dismissed)
        why = confirm.get(answer)
        if why is None:
            return answer
        step = _confirm_lines(labels[answer], why)
        confirmed = await _one_key(step, {CONFIRM_KEY: answer}, dismissed, _BACK)
        if confirmed != _BACK:
            return cast(Answer, confirmed)


def _card_lines(
    options: Sequence[Option[Answer]], summary: tuple[str, ...], confirm: Mapping[Answer, str]
) -> Lines:
    shown: StyleAndTextTuples = [("class:summary", f"  {SUMMARY_MARK}{visible(line)}\n") for line in summary]
    shown += [("", f"  [{key}] {label}\n") for key, _value, label in options]
    asking = [key for key, value, _label in options if value in confirm]
    if asking:
        keys = ", ".join(asking)
        shown.append(("class:note", f"  {keys}: you then press {CONFIRM_KEY_NAME} to confirm\n"))
    return lambda armed: [*shown, ("", PROMPT_TAIL) if armed else ("class:arming", ARMING_TAIL)]


def _confirm_lines(label: str, why: str) -> Lines:
    shown: StyleAndTextTuples = [
        ("class:confirm", f"  confirm: {label}\n"),
        ("class:summary", f"  {SUMMARY_MARK}{visible(why)}\n"),
        ("", CONFIRM_HELP),
    ]
    return lambda armed: [*shown, ("", CONFIRM_TAIL) if armed else ("class:arming", ARMING_TAIL)]


async def _one_key(lines: Lines, answers: Mapping[str, Key], dismissed: Key, other: Key | None = None) -> Key:
    """Draw `lines` and wait for a key that counts; what was waiting before is kept, not read."""
    from prompt_toolkit.application.current import get_app_session

    keep(typed_text(take_waiting(get_app_session().input)))
    gate: KeyGate[Key] = KeyGate.drawn(answers, time.monotonic(), other)
    app, waking = _key_app(lines, gate, dismissed)
    try:
        return await app.run_async(handle_sigint=False, pre_run=waking.start)
    except (EOFError, KeyboardInterrupt, OSError):
        return dismissed
    finally:
        waking.stop()
        keep(typed_text(gate.typed))


class _Waking:
    """Redraws the prompt once its gate is armed, so the line says to press a key."""

    def __init__(self, gate: KeyGate[Any], redraw: Callable[[], None]) -> None:
        self.gate, self.redraw = gate, redraw
        self.handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self.stop()
        left = self.gate.ready_at - time.monotonic()
        if left > 0:
            self.handle = asyncio.get_running_loop().call_later(left, self.start)
        else:
            self.redraw()

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


def _key_app(lines: Lines, gate: KeyGate[Key], dismissed: Key) -> tuple[Application[Key], _Waking]:
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    bindings = KeyBindings()
    pressed: list[str] = []  # the key that answered, left on the prompt line once it is done

    def answered(event: KeyPressEvent, answer: Key) -> None:
        pressed.append(_key_shown(key_name(event.key_sequence[0].key)))
        event.app.exit(result=answer)

    @bindings.add(Keys.Any)
    def _pressed(event: KeyPressEvent) -> None:
        press = event.key_sequence[0]
        answer = gate.press(key_name(press.key), press.data, time.monotonic())
        if answer is not None:
            answered(event, answer)
        else:
            event.app.invalidate()
            waking.start()

    for key in DISMISS_KEYS:
        bindings.add(key)(lambda event: answered(event, dismissed))
    control = FormattedTextControl(lambda: [*lines(gate.armed(time.monotonic())), ("", "".join(pressed))])
    window = Window(control, wrap_lines=True, dont_extend_height=True)
    app: Application[Key] = Application(
        layout=Layout(window), key_bindings=bindings, style=_style(), full_screen=False
    )
    waking = _Waking(gate, app.invalidate)
    return app, waking


def _key_shown(name: str) -> str:
    """How a pressed key is written after the prompt: `y`, `Ctrl-Y`, `Escape`."""
    if name.startswith("c-") and len(name) == 3:
        return f"Ctrl-{name[2].upper()}"
    return name if len(name) == 1 else name.capitalize()


def _style() -> BaseStyle:
    from prompt_toolkit.styles import Style

    return Style.from_dict(
        {"summary": "bold ansiyellow", "note": "ansiyellow", "confirm": "bold", "arming": "ansibrightblack"}
    )
