"""An approver that answers from a script and remembers what it was asked."""

from __future__ import annotations

from levelcode.core.approvals import ApprovalRequest, Choice


class ScriptedApprover:
    def __init__(self, *answers: Choice) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    @property
    def interactive(self) -> bool:
        return True

    async def decide(self, request: ApprovalRequest) -> Choice:
        self.asked.append(request)
        return self.answers.pop(0)
