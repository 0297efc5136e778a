"""The `update_plan` tool: the model's step list for the task, kept in the session and shown back.

Pure apart from `ToolContext.state`; needs no approval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from levelcode.core.errors import ToolError
from levelcode.tools.base import Args, BuiltinTool, ToolContext

PLAN_KEY = "plan"
MAX_STEPS = 50
StepStatus = Literal["pending", "in_progress", "done"]
_STATUSES: tuple[StepStatus, ...] = ("pending", "in_progress", "done")
_MARKS: dict[StepStatus, str] = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}


@dataclass(frozen=True)
class PlanStep:
    step: str
    status: StepStatus


def _parse_step(index: int, item: object) -> PlanStep:
    if not isinstance(item, dict):
        raise ToolError(f"steps[{index}] must be an object with 'step' and 'status'")
    entry = cast(dict[str, object], item)
    text, status = entry.get("step"), entry.get("status")
    if not isinstance(text, str) or not text.strip():
        raise ToolError(f"steps[{index}].step must be a non-empty string")
    if status not in _STATUSES:
        raise ToolError(f"steps[{index}].status must be one of {', '.join(_STATUSES)} (got {status!r})")
    return PlanStep(" ".join(text.split()), status)


def parse_plan(raw: object) -> tuple[PlanStep, ...]:
    if not isinstance(raw, list) or not raw:
        raise ToolError("argument 'steps' must be a non-empty list of {step, status} objects")
    items = cast(list[object], raw)
    if len(items) > MAX_STEPS:
        raise ToolError(f"a plan has at most {MAX_STEPS} steps (got {len(items)})")
    steps = tuple(_parse_step(index, item) for index, item in enumerate(items))
    if sum(step.status == "in_progress" for step in steps) > 1:
        raise ToolError("at most one step may be in_progress at a time")
    return steps


def render_plan(steps: Sequence[PlanStep]) -> str:
    done = sum(step.status == "done" for step in steps)
    lines = [f"Plan ({done}/{len(steps)} done):"]
    lines += [f"{_MARKS[step.status]} {step.step}" for step in steps]
    return "\n".join(lines)


def current_plan(ctx: ToolContext) -> tuple[PlanStep, ...]:
    plan = ctx.state.get(PLAN_KEY)
    return cast(tuple[PlanStep, ...], plan) if isinstance(plan, tuple) else ()


async def update_plan(ctx: ToolContext, args: Args) -> str:
    steps = parse_plan(args.get("steps"))
    ctx.state[PLAN_KEY] = steps
    return render_plan(steps)


UPDATE_PLAN = BuiltinTool(
    name="update_plan",
    description=(
        "Record or update your plan for the task as a list of steps, each pending, in_progress or "
        "done (at most one in_progress). Send the whole list each time; it replaces the last one."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "step": {"type": "string"},
                        "status": {"type": "string", "enum": list(_STATUSES)},
                    },
                    "required": ["step", "status"],
                },
            }
        },
        "required": ["steps"],
    },
    run=update_plan,
)
