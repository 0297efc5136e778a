"""update_plan: the step list is checked, stored in the session and rendered back."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.plan import PlanStep, current_plan, update_plan


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


async def test_plan_is_rendered_and_stored(ctx: ToolContext) -> None:
    steps = [
        {"step": "Read the code", "status": "done"},
        {"step": "Write   the\nfix", "status": "in_progress"},
        {"step": "Run tests", "status": "pending"},
    ]
    rendered = await update_plan(ctx, {"steps": steps})
    assert rendered == "Plan (1/3 done):\n[x] Read the code\n[>] Write the fix\n[ ] Run tests"
    assert current_plan(ctx) == (
        PlanStep("Read the code", "done"),
        PlanStep("Write the fix", "in_progress"),
        PlanStep("Run tests", "pending"),
    )


async def test_a_new_plan_replaces_the_old(ctx: ToolContext) -> None:
    await update_plan(ctx, {"steps": [{"step": "a", "status": "pending"}]})
    await update_plan(ctx, {"steps": [{"step": "b", "status": "done"}]})
    assert current_plan(ctx) == (PlanStep("b", "done"),)


def test_no_plan_yet(ctx: ToolContext) -> None:
    assert current_plan(ctx) == ()


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        (None, "non-empty list"),
        ([], "non-empty list"),
        ("do it", "non-empty list"),
        (["do it"], r"steps\[0\] must be an object"),
        ([{"step": "", "status": "pending"}], r"steps\[0\]\.step"),
        ([{"step": "x", "status": "started"}], r"steps\[0\]\.status must be one of"),
        ([{"step": "x"}], r"steps\[0\]\.status"),
        ([{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}], "at most one"),
        ([{"step": str(n), "status": "pending"} for n in range(51)], "at most 50 steps"),
    ],
)
async def test_bad_plans_are_refused_and_keep_the_old_plan(
    ctx: ToolContext, steps: object, message: str
) -> None:
    await update_plan(ctx, {"steps": [{"step": "keep", "status": "pending"}]})
    with pytest.raises(ToolError, match=message):
        await update_plan(ctx, {"steps": steps})
    assert current_plan(ctx) == (PlanStep("keep", "pending"),)
