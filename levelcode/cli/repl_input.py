"""The REPL's input line: history (kept 0600), completion (Tab; nothing until the session opens)
and its keys. Reads no message itself: cli/repl.py asks it for each line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from levelcode.core import paths
from levelcode.core.private_files import touch_private

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer

PROMPT = "> "


def input_line(completer: Callable[[], Completer | None]) -> PromptSession[str]:
    """The prompt the REPL reads every line with; `completer` gives the completer of the moment."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import DynamicCompleter
    from prompt_toolkit.history import FileHistory

    history = touch_private(paths.history_path())  # FileHistory appends; it never creates it 0600
    return PromptSession(
        history=FileHistory(str(history)),
        completer=DynamicCompleter(completer),
        complete_while_typing=False,
    )
