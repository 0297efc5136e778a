"""Approvals. Load-bearing direction: anything but an explicit yes is a denial — an approver that
raises, answers nonsense, or is the headless one; "always" is only honoured where it was offered."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from levelcode.core.approvals import ApprovalRequest, HeadlessApprover, decide_or_deny

REQUEST = ApprovalRequest("command", "Run command", ("ls",), allow_always=False)
ALWAYS_OK = ApprovalRequest("command", "Run command", ("ls",), allow_always=True)


class Answers:
    def __init__(self, answer: Any = None, error: BaseException | None = None) -> None:
        self.answer, self.error = answer, error

    @property
    def interactive(self) -> bool:
        return True

    async def decide(self, request: ApprovalRequest) -> Any:
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.mark.parametrize(
    "approver",
    [
        HeadlessApprover(),
        Answers(error=RuntimeError("terminal gone")),
        Answers(error=EOFError()),
        Answers("yes"),
        Answers(None),
        Answers("deny"),
    ],
)
async def test_everything_but_a_yes_is_a_denial(approver: Any) -> None:
    assert await decide_or_deny(approver, REQUEST) == "deny"


async def test_yes_and_always() -> None:
    assert await decide_or_deny(Answers("once"), REQUEST) == "once"
    assert await decide_or_deny(Answers("always"), REQUEST) == "once"  # not offered: only once
    assert await decide_or_deny(Answers("always"), ALWAYS_OK) == "always"


async def test_cancellation_propagates() -> None:
    with pytest.raises(asyncio.CancelledError):
        await decide_or_deny(Answers(error=asyncio.CancelledError()), REQUEST)
