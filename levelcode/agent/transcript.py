"""The conversation as the provider sees it, kept paired by construction.

Every assistant message with tool uses is followed by exactly one user message answering all of
them (`answer`), and a new prompt after such answers joins that message rather than starting a
second user message in a row. Pure data operations; the loop decides what goes in.
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, unanswered_tool_uses
from levelcode.core.outcome import failure

ABORTED_BEFORE_RUN = failure("not run: the user aborted the turn before this tool call ran.")


class Transcript:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add_prompt(self, text: str) -> None:
        block = TextBlock(text)
        if self.messages and self.messages[-1].role == "user":
            last = self.messages[-1]
            self.messages[-1] = Message("user", (*last.content, block))
        else:
            self.messages.append(Message("user", (block,)))

    def add_assistant(self, message: Message) -> None:
        self.messages.append(message)

    def answer(self, uses: Sequence[ToolUse], results: Sequence[ToolResult]) -> None:
        """Answer every use of the last assistant message: given results first, the rest as aborted."""
        by_id = {result.tool_use_id: result for result in results}
        answers = tuple(by_id.get(use.id) or ToolResult(use.id, ABORTED_BEFORE_RUN) for use in uses)
        self.messages.append(Message("user", answers))

    def is_paired(self) -> bool:
        return not unanswered_tool_uses(self.messages)

    def clear(self) -> None:
        self.messages.clear()
