"""`levelcode --resume`: the list of this workspace's saved sessions on the terminal, one chosen
with the arrow keys or its number and Enter. Escape, Ctrl-C or Ctrl-D leaves without one.

I/O: draws on the terminal and reads keys, before the session starts (no event loop runs yet).
What a row says, and how keys move, is in ui/session_view.py.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from levelcode.agent.session_store import SessionSummary
from levelcode.ui.session_view import PICKER_HINT, PickerKeys, picker_row
from levelcode.ui.typeahead import key_name
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

SPARE_ROWS = 4  # the title, the hint, and room around the list


def pick_session(summaries: Sequence[SessionSummary], problems: Sequence[str]) -> str | None:
    """The chosen session's id, or None when the user leaves."""
    for problem in problems:
        print(f"levelcode: skipped a saved session: {visible(problem)}", file=sys.stderr)
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.styles import Style

    keys = PickerKeys(len(summaries))
    bindings = KeyBindings()

    @bindings.add(Keys.Any)
    @bindings.add("c-c")
    @bindings.add("c-d")
    @bindings.add("escape", eager=True)
    @bindings.add("enter")
    def _pressed(event: KeyPressEvent) -> None:
        action = keys.press(key_name(event.key_sequence[0].key))
        if action == "leave":
            event.app.exit(result=None)
        elif action == "choose":
            event.app.exit(result=summaries[keys.current].id)

    control = FormattedTextControl(lambda: _lines(summaries, keys), show_cursor=False)
    app: Application[str | None] = Application(
        layout=Layout(Window(control, dont_extend_height=True)),
        key_bindings=bindings,
        style=Style.from_dict({"chosen": "reverse", "hint": "ansibrightblack", "title": "bold"}),
        full_screen=False,
        erase_when_done=True,
    )
    try:
        return app.run(handle_sigint=False)
    except (EOFError, KeyboardInterrupt):
        return None


def _lines(summaries: Sequence[SessionSummary], keys: PickerKeys) -> StyleAndTextTuples:
    columns, rows = shutil.get_terminal_size()
    shown = max(3, rows - SPARE_ROWS)
    first = min(max(0, keys.current - shown // 2), max(0, len(summaries) - shown))
    lines: StyleAndTextTuples = [
        ("class:title", f"Resume a session ({len(summaries)} saved here)\n"),
    ]
    for index in range(first, min(len(summaries), first + shown)):
        row = picker_row(index + 1, summaries[index], columns - 3)
        chosen = index == keys.current
        lines.append(("class:chosen" if chosen else "", f"{'>' if chosen else ' '}{row}\n"))
    lines.append(("class:hint", f"  {PICKER_HINT}"))
    return lines
