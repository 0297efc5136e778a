"""The approval card on a terminal of a given size. Load-bearing direction: however tall the body,
the rendered card plus the prompt fit the terminal, and the title, the warning and every summary
line are on it (the middle of the body is folded with a count and where to see all of it). The
second corpus: a card that fits is shown whole. Also: the note of a command card (no sandbox here)
is shown before the command, escaped like every other line."""

from __future__ import annotations

import pytest
from rich.console import Console

from levelcode.core.approvals import Answer, ApprovalRequest
from levelcode.ui.approval_card import (
    confirmations,
    cuts_text,
    fold_to_fit,
    options_for,
    render_card,
    repeats_summary,
    rows,
)

SUMMARY = ("runs inline code (-c): " + "import os; " * 30, "will receive your GITHUB_TOKEN (env GH_TOKEN)")


def card(lines: int, width: int = 80) -> ApprovalRequest:
    body = tuple(f"arg {i}:   {'x' * (i % 3 * width // 2)}" for i in range(1, lines + 1))
    return ApprovalRequest(
        "mcp_launch", "new · MCP server 'h'", body, warning="a repository wants to run a program",
        summary=SUMMARY, full_view="levelcode mcp get h",
    )  # fmt: skip


def rendered(request: ApprovalRequest, console: Console) -> list[str]:
    console.begin_capture()
    console.print(render_card(request))
    return console.end_capture().splitlines()


@pytest.mark.parametrize(
    ("width", "height", "lines"), [(80, 40, 150), (110, 40, 400), (60, 24, 60), (40, 30, 20)]
)
def test_a_tall_card_and_its_prompt_fit_the_terminal(width: int, height: int, lines: int) -> None:
    console = Console(width=width, height=height, force_terminal=False)
    request = card(lines, width)
    repeat = repeats_summary(request, console, height)
    fitted = fold_to_fit(request, console, height, repeat_summary=repeat)
    shown = rendered(fitted, console)
    beside = sum(rows(console, "  ! " + line) for line in SUMMARY) if repeat else 0
    prompt = beside + len(options_for(request)) + 3 + 1  # answers, [v], "cut", "Ctrl-Y", the prompt
    assert len(shown) + prompt <= height
    text = " ".join(" ".join(shown).split())  # lines wrapped at a space read as one
    assert "new · MCP server 'h'" in text
    assert "⚠ a repository wants to run a program" in text
    assert "! will receive your GITHUB_TOKEN (env GH_TOKEN)" in text
    assert "! runs inline code (-c): import os;" in text
    folded = [line for line in fitted.body if "lines folded" in line]
    hidden = lines - len(fitted.body) + 1
    assert folded == [f"… {hidden} lines folded; [v] shows all of it (so does `levelcode mcp get h`)"]
    assert cuts_text(request, fitted)
    if height >= 40:
        assert repeat
        assert fitted.body[0] == request.body[0]
        assert fitted.body[-1] == request.body[-1]


def test_a_card_that_fits_is_shown_whole() -> None:
    console = Console(width=120, height=60, force_terminal=False)
    request = card(10, 120)
    assert fold_to_fit(request, console, 60) == request
    assert not cuts_text(request, request)


# --- the note a command card carries where there is no sandbox ------------------------------------


def _shown(request: ApprovalRequest) -> list[str]:
    console = Console(width=200, record=True, force_terminal=False)
    console.print(render_card(request))
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_note_is_shown_before_the_command() -> None:
    note = "there is no sandbox here (reason\x1b[2K), so every command needs approval and runs unconfined"
    lines = _shown(ApprovalRequest("command", "Run command", ("make test",), note=note))
    shown = next(i for i, line in enumerate(lines) if line.startswith("There is no sandbox here"))
    assert "\\x1b[2K" in lines[shown]
    assert shown < lines.index("make test")


def test_no_note_no_line() -> None:
    lines = _shown(ApprovalRequest("command", "Run command", ("make test",)))
    assert not [line for line in lines if "sandbox" in line]


# --- which answers take a second, deliberate key (Ctrl-Y) -----------------------------------------
# Load-bearing direction: every answer that is remembered (a launch approval, "always") or runs
# something outside the sandbox asks for confirmation. The second corpus: a one-off yes to a call,
# a command, an edit or a sampling request stays one key.

LAUNCH_ANSWERS = (
    Answer("s", "sandboxed", "approve, sandboxed"),
    Answer("w", "sandboxed_workspace", "approve, sandboxed, and the workspace"),
    Answer("y", "once", "approve, unconfined"),
)
CONFIRMED = [
    (
        ApprovalRequest("mcp_launch", "new · MCP server 'x'", answers=LAUNCH_ANSWERS),
        {"sandboxed", "sandboxed_workspace", "once"},
    ),
    (ApprovalRequest("mcp_launch", "new · MCP server 'remote'"), {"once"}),
    (ApprovalRequest("mcp_call", "MCP call · fs · write", allow_always=True), {"always"}),
    (ApprovalRequest("command", "Run command", ("make",), allow_always=True), {"always"}),
    (ApprovalRequest("edit", "Write file · a.py", allow_always=True), {"always"}),
    (ApprovalRequest("command", "Run again outside the sandbox", ("make",), lifts_sandbox=True), {"once"}),
]
ONE_KEY = [
    ApprovalRequest("mcp_call", "MCP call · fs · delete", warning="destructive"),
    ApprovalRequest("command", "Run command", ("make",), note="there is no sandbox here"),
    ApprovalRequest("edit", "Write file · .git/config", warning="Writes under .git/"),
    ApprovalRequest("mcp_sampling", "MCP server 'x' asks your model to answer"),
    # a repository's many servers: "review each" only opens their own cards, which confirm
    ApprovalRequest(
        "mcp_launch",
        "5 MCP servers want to start",
        answers=(Answer("r", "review_each", "review each of the 5"), Answer("d", "deny", "deny all 5")),
    ),
]


@pytest.mark.parametrize(("request_", "confirmed"), CONFIRMED)
def test_remembered_and_unconfined_answers_take_confirmation(
    request_: ApprovalRequest, confirmed: set[str]
) -> None:
    needed = confirmations(request_)
    assert set(needed) == confirmed
    assert all(why for why in needed.values())


@pytest.mark.parametrize("request_", ONE_KEY)
def test_a_one_off_yes_stays_one_key(request_: ApprovalRequest) -> None:
    assert confirmations(request_) == {}


# --- [v]: offered whenever the card as drawn leaves anything out ------------------------------------


def test_a_long_command_is_cut_on_the_card_and_offers_the_full_view() -> None:
    console = Console(width=120, height=200, force_terminal=False)
    long = ApprovalRequest("command", "Run command", tuple(f"echo {i}" for i in range(60)))
    shown = fold_to_fit(long, console, 200)
    assert cuts_text(long, shown)
    assert _shown(shown)[-2] == "… 20 more lines: [v] shows them"
    short = ApprovalRequest("command", "Run command", ("make test",))
    assert not cuts_text(short, fold_to_fit(short, console, 200))


def test_a_call_card_with_arguments_cut_offers_the_full_view() -> None:
    request = ApprovalRequest("mcp_call", "MCP call · db · query", ("q…",), full_body=("q" * 900,))
    assert cuts_text(request, request)
