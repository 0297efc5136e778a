"""The REPL's input line: history (kept 0600), completion (Tab, and by itself while an `@path`
is typed; nothing until the session opens) and its keys. Enter sends; for a message of several
lines, Alt-Enter (or Esc then Enter) starts a new line, a line ending in `\\` continues on the
next when Enter is pressed (the `\\` goes), and a pasted text stays one message, newlines and
all (the terminal's bracketed paste). Reads no message itself: cli/repl/prompt_loop.py asks it for each line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from levelcode.platform import paths
from levelcode.platform.private_files import touch_private

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.completion import Completer
    from prompt_toolkit.filters import Filter
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

PROMPT = "> "
CONTINUATION = "  "  # before the second and later lines of a message, under the prompt
CONTINUE_MARK = "\\"


def input_line(completer: Callable[[], Completer | None]) -> PromptSession[str]:
    """The prompt the REPL reads every line with; `completer` gives the completer of the moment."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import DynamicCompleter
    from prompt_toolkit.history import FileHistory

    history = touch_private(paths.history_path())  # FileHistory appends; it never creates it 0600
    return PromptSession(
        history=FileHistory(str(history)),
        completer=DynamicCompleter(completer),
        complete_while_typing=typing_a_path(),
        key_bindings=newline_keys(),
        prompt_continuation=CONTINUATION,
    )


def typing_a_path() -> Filter:
    """Completions show while a word starting with `@` and no `:` is typed (files, folders and
    server names: all local, so as fast as typing); everything else waits for Tab (an MCP
    server's URIs and arguments take a request)."""
    from prompt_toolkit.application import get_app
    from prompt_toolkit.filters import Condition

    @Condition
    def typing() -> bool:
        before = get_app().current_buffer.document.text_before_cursor
        word = before.rsplit(None, 1)[-1] if before.strip() else ""
        return before[-1:].strip() != "" and word.startswith("@") and ":" not in word

    return typing


def complete_typed_path() -> None:
    """Show the completions of the `@path` being typed now, if one is (the prompt is up, and
    completion has just become possible)."""
    from prompt_toolkit.application import get_app_or_none

    app = get_app_or_none()
    if app is not None and app.is_running and typing_a_path()():
        app.current_buffer.start_completion(select_first=False)


def tab_through_completions(buffer: Buffer) -> None:
    """Tab while an `@path` is typed: the next completion, as Tab always does, and also when the
    completions asked for while typing are still on their way (prompt_toolkit would drop that
    Tab): then the first of them, once they come, unless the text changed meanwhile."""
    state = buffer.complete_state
    if state is not None and state.completions:
        buffer.complete_next()
        return
    pressed_at = buffer.document

    def first(_buffer: object) -> None:
        now = buffer.complete_state
        if buffer.document != pressed_at or now is None or now.completions:
            buffer.on_completions_changed -= first
        if buffer.document == pressed_at and now is not None and now.completions:
            buffer.complete_next()

    buffer.on_completions_changed += first
    if state is None:
        buffer.start_completion()


def newline_keys() -> KeyBindings:
    """The keys that put a new line in the message instead of sending it, and Tab's help with an
    `@path` (`tab_through_completions`)."""
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings

    keys = KeyBindings()

    @Condition
    def continued() -> bool:
        from prompt_toolkit.application import get_app

        return get_app().current_buffer.document.text_before_cursor.endswith(CONTINUE_MARK)

    @keys.add("escape", "enter")
    def _new_line(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @keys.add("tab", filter=typing_a_path())
    def _first_completion(event: KeyPressEvent) -> None:
        tab_through_completions(event.current_buffer)

    @keys.add("enter", filter=continued)
    def _continue(event: KeyPressEvent) -> None:
        event.current_buffer.delete_before_cursor(len(CONTINUE_MARK))
        event.current_buffer.insert_text("\n")

    return keys
