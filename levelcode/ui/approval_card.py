"""The interactive approval card: what would happen, shown literally, and a one-key answer.

Anything but an explicit yes is a denial: Ctrl-C, Ctrl-D, Escape, a closed terminal. Only a key
pressed after the card is drawn answers it, and an answer that is remembered or lifts the sandbox
takes a second, deliberate key (ui/key_prompt.py). Card text is shown with control characters
escaped. The title, the warning and the decisive lines (`summary`) come first and the summary
again beside the prompt; a card taller than the terminal folds the middle of its body, with a
count and where to see all of it, so that none of those and not the prompt ever scroll away. A
launch card is otherwise never shortened. Whatever a card cuts or folds, `[v]` shows in full
before the answer.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.ui import typeahead
from levelcode.ui.key_prompt import SUMMARY_MARK, read_key
from levelcode.ui.visible import visible

KIND_TITLES = {
    "command": "Run a command?",
    "edit": "Change a file?",
    "mcp_call": "Call an MCP tool?",
    "mcp_launch": "Start an MCP server?",
    "mcp_sampling": "Let an MCP server use your model?",
}
__all__ = ["TerminalApprover", "read_choice", "read_key"]  # read_key: forms read keys the same way
MAX_BODY_LINES = 40
View = Literal["view"]
VIEW: View = "view"  # not an answer: show every line in full, then the card again
VIEW_LABEL = "view all: every line of this card in full, then back here"
CUT = "this card cuts some of its text: [v] shows all of it before you answer"
REMEMBERED = "remembered: LevelCode starts this server in this workspace from now on without asking"
ALWAYS = "remembered: it is not asked again"
SAVED = "saved as a rule in your settings: this command is not asked again, in any session"
UNCONFINED = "it runs outside the sandbox, with all your permissions"
KEPT = "  (keys typed before the card was ready were not taken as answers; the text is back in your prompt)"


def render_card(request: ApprovalRequest) -> Group:
    """Rules above and below, the body in between with no border: a long command line wraps as
    one run of text, so it reads — and copies — exactly as it would run."""
    style = "red" if request.warning else "yellow"
    parts: list[RenderableType] = [
        Rule(KIND_TITLES.get(request.kind, "Approve?"), style=style, align="left"),
        Text(visible(request.title), style="bold"),
    ]
    if request.warning:
        parts.append(Text("⚠ " + visible(request.warning), style="bold red"))
    if request.note:
        parts.append(Text(visible(request.note[:1].upper() + request.note[1:]), style="yellow"))
    parts.extend(Text(SUMMARY_MARK + visible(line), style="bold yellow") for line in request.summary)
    body = [visible(line) for line in request.body]
    if len(body) > MAX_BODY_LINES and request.kind != "mcp_launch":  # a launch card is never cut
        body = [*body[:MAX_BODY_LINES], f"… {len(request.body) - MAX_BODY_LINES} more lines: [v] shows them"]
    parts.extend(Text(line, overflow="fold") for line in body)
    parts.append(Rule(style=style))
    return Group(*parts)


def rows(console: Console, text: str) -> int:
    """How many terminal rows `text` takes when wrapped to the console's width."""
    return max(1, len(Text(visible(text), overflow="fold").wrap(console, max(console.width, 1))))


def fixed_rows(request: ApprovalRequest, console: Console, *, repeat_summary: bool) -> int:
    """The rows everything but the body takes: rules, title, warning, summary, prompt, cursor."""
    summary = sum(rows(console, SUMMARY_MARK + line) for line in request.summary)
    # the answers, [v], the lines saying that text is cut and which answers ask for Ctrl-Y, then
    # the prompt and the cursor
    fixed = 2 + rows(console, request.title) + summary + len(options_for(request)) + 3 + 2
    if request.warning:
        fixed += rows(console, "⚠ " + request.warning)
    if request.note:
        fixed += rows(console, request.note)
    return fixed + (summary if repeat_summary else 0)


def repeats_summary(request: ApprovalRequest, console: Console, height: int) -> bool:
    """Whether the summary fits a second time, beside the prompt (with one row of body left)."""
    return fixed_rows(request, console, repeat_summary=True) + 1 <= height


def fold_to_fit(
    request: ApprovalRequest, console: Console, height: int, *, repeat_summary: bool = True
) -> ApprovalRequest:
    """`request` with the middle of its body folded into one line, when the card and the prompt
    would not fit in `height` rows; title, warning, summary and prompt always stay."""
    budget = height - fixed_rows(request, console, repeat_summary=repeat_summary)
    sizes = [rows(console, line) for line in request.body]
    if sum(sizes) <= budget:
        return request
    head, tail = _kept(sizes, budget - 1)
    hidden = len(request.body) - head - tail
    marker = f"… {hidden} lines folded; [v] shows all of it" + (
        f" (so does `{request.full_view}`)" if request.full_view else ""
    )
    body = (*request.body[:head], marker, *request.body[len(request.body) - tail :])
    return dataclasses.replace(request, body=body)


def _kept(sizes: list[int], budget: int) -> tuple[int, int]:
    """How many lines to keep from the start and from the end within `budget` rows."""
    head = tail = used = 0
    while head + tail < len(sizes):
        nxt = sizes[head] if head <= tail else sizes[len(sizes) - 1 - tail]
        if used + nxt > budget:
            break
        used += nxt
        if head <= tail:
            head += 1
        else:
            tail += 1
    return head, tail


def options_for(request: ApprovalRequest) -> list[tuple[str, Choice, str]]:
    """(key, choice, label) in the order shown."""
    if request.answers:
        return [(a.key, a.choice, a.label) for a in request.answers] + [("n", "deny", "deny")]
    yes = "approve" if request.kind == "mcp_launch" else "allow once"
    options: list[tuple[str, Choice, str]] = [("y", "once", yes)]
    if request.allow_always:
        options.append(("a", "always", request.always_label))
    options.append(("n", "deny", "deny"))
    return options


def confirmations(request: ApprovalRequest) -> dict[Choice, str]:
    """The answers that take a second, deliberate key, and why: any approval of a launch (kept
    in the trust store), "always" (kept in settings or the store, or for the session), a command
    saved as a rule in settings, and any yes to a run outside the sandbox. A denial, and "review
    each" (which only opens the next cards, each confirmed on its own), widen nothing and stay one
    key."""
    needed: dict[Choice, str] = {}
    for _key, choice, _label in options_for(request):
        if choice in ("deny", "review_each"):
            continue
        if request.kind == "mcp_launch":
            needed[choice] = REMEMBERED
        elif choice == "always":
            needed[choice] = ALWAYS
        elif choice == "save_rule":
            needed[choice] = SAVED
        elif request.lifts_sandbox:
            needed[choice] = UNCONFINED
    return needed


def cuts_text(request: ApprovalRequest, shown: ApprovalRequest) -> bool:
    """Whether the card as drawn (`shown`, folded to fit) leaves out any of `request`."""
    cut_at_most = len(shown.body) > MAX_BODY_LINES and request.kind != "mcp_launch"
    return bool(request.full_body) or shown.body != request.body or cut_at_most


class TerminalApprover:
    """Shows the card on the console and waits for one key."""

    def __init__(self, console: Console) -> None:
        self.console = console

    @property
    def interactive(self) -> bool:
        return True

    async def decide(self, request: ApprovalRequest) -> Choice:
        kept = typeahead.kept_chars()
        options = options_for(request)
        while True:
            height = self.console.height
            repeat = repeats_summary(request, self.console, height)
            shown = fold_to_fit(request, self.console, height, repeat_summary=repeat)
            self.console.print(render_card(shown))
            offered: list[tuple[str, Choice | View, str]] = [*options]
            beside = request.summary if repeat else ()
            if cuts_text(request, shown):
                offered.insert(-1, ("v", VIEW, VIEW_LABEL))
                beside = (*beside, CUT)
            confirm: dict[Choice | View, str] = dict(confirmations(request).items())
            choice = await read_key(offered, "deny", beside, confirm)
            if choice != VIEW:
                break
            self.print_in_full(request)
        label = next((label for _key, value, label in options if value == choice), "deny")
        self.console.print(Text(f"  → {label}", style="green" if choice != "deny" else "red"))
        if typeahead.kept_chars() > kept:
            self.console.print(Text(KEPT, style="dim"))
        return choice

    def print_in_full(self, request: ApprovalRequest) -> None:
        """Every line of the card, uncut and escaped; the card is drawn again after it."""
        lines = request.full_body or request.body
        self.console.print(Rule(f"{visible(request.title)} · in full", style="dim", align="left"))
        for line in lines:
            self.console.print(Text(visible(line), overflow="fold"))
        end = f"end · {len(lines)} lines · the card again below"
        self.console.print(Rule(end, style="dim", align="left"))


async def read_choice(options: list[tuple[str, Choice, str]], summary: tuple[str, ...] = ()) -> Choice:
    return await read_key(options, "deny", summary)
