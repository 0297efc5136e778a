"""The conversation as the provider sees it, kept paired by construction, its turns kept apart.

Every assistant message with tool uses is followed by exactly one user message answering all of
them (`answer`). A prompt is always a text block of its own, followed by what the user attached
to it, one typed block each (core/attachments.py): after such answers it joins that user message
(tool results first, then the prompt), so user and assistant messages keep alternating, as some
servers require. A turn the model did not finish — the user aborted it, or
its request failed — is closed with a note (`end_unanswered`): its prompt stays (the model may
need to know what was asked and what its tools already did), but the next prompt reads as a new
request after that note, never as more words of the old one. Pure data operations; the loop
decides what goes in.
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.core.attachments import Attachment
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, unanswered_tool_uses
from levelcode.core.outcome import failure

PURE = True

ABORTED_BEFORE_RUN = failure("not run: the user aborted the turn before this tool call ran.")
INTERRUPTED_NOTE = "[The user interrupted this request before it was finished.]"
FAILED_NOTE = "[This request got no answer: the call to the model failed.]"
TURN_END_NOTES = frozenset({INTERRUPTED_NOTE, FAILED_NOTE})


class Transcript:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add_prompt(self, text: str, attachments: Sequence[Attachment] = ()) -> None:
        """The prompt's text block, then what the user attached to it, each a block of its own."""
        self._add_user_blocks(TextBlock(text), *attachments)

    def add_assistant(self, message: Message) -> None:
        self.messages.append(message)

    def answer(self, uses: Sequence[ToolUse], results: Sequence[ToolResult]) -> None:
        """Answer every use of the last assistant message: given results first, the rest as aborted."""
        by_id = {result.tool_use_id: result for result in results}
        answers = tuple(by_id.get(use.id) or ToolResult(use.id, ABORTED_BEFORE_RUN) for use in uses)
        self.messages.append(Message("user", answers))

    def end_unanswered(self, note: str) -> None:
        """Close a turn the model did not finish with `note` (one of `TURN_END_NOTES`), after its
        prompt or its last tool results."""
        self._add_user_blocks(TextBlock(note))

    def is_paired(self) -> bool:
        return not unanswered_tool_uses(self.messages)

    def clear(self) -> None:
        self.messages.clear()

    def _add_user_blocks(self, *blocks: TextBlock) -> None:
        if self.messages and self.messages[-1].role == "user":
            last = self.messages[-1]
            self.messages[-1] = Message("user", (*last.content, *blocks))
        else:
            self.messages.append(Message("user", blocks))
