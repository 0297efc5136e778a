"""The interactive approval card: what would happen, shown literally, and a one-key answer.

Anything but an explicit yes is a denial: Ctrl-C, Ctrl-D, Escape, a closed terminal. Card text is
shown with control characters escaped, and a launch card is never shortened.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from levelcode.agent.approvals import ApprovalRequest, Choice
from levelcode.ui.visible import visible

KIND_TITLES = {
    "command": "Run a command?",
    "edit": "Change a file?",
    "mcp_call": "Call an MCP tool?",
    "mcp_launch": "Start an MCP server?",
}
MAX_BODY_LINES = 40


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
    body = [visible(line) for line in request.body]
    if len(body) > MAX_BODY_LINES and request.kind != "mcp_launch":  # a launch card is never cut
        body = [*body[:MAX_BODY_LINES], f"… {len(request.body) - MAX_BODY_LINES} more lines"]
    parts.extend(Text(line, overflow="fold") for line in body)
    parts.append(Rule(style=style))
    return Group(*parts)


def options_for(request: ApprovalRequest) -> list[tuple[str, Choice, str]]:
    """(key, choice, label) in the order shown."""
    yes = "approve" if request.kind == "mcp_launch" else "allow once"
    options: list[tuple[str, Choice, str]] = [("y", "once", yes)]
    if request.allow_always:
        options.append(("a", "always", request.always_label))
    options.append(("n", "deny", "deny"))
    return options


class TerminalApprover:
    """Shows the card on the console and waits for one key."""

    def __init__(self, console: Console) -> None:
        self.console = console

    @property
    def interactive(self) -> bool:
        return True

    async def decide(self, request: ApprovalRequest) -> Choice:
        self.console.print(render_card(request))
        options = options_for(request)
        choice = await read_choice(options)
        label = next((label for _key, value, label in options if value == choice), "deny")
        self.console.print(Text(f"  → {label}", style="green" if choice != "deny" else "red"))
        return choice


async def read_choice(options: list[tuple[str, Choice, str]]) -> Choice:
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    bindings = KeyBindings()
    for key, value, _label in options:
        bindings.add(key)(lambda event, v=value: event.app.exit(result=v))
        bindings.add(key.upper())(lambda event, v=value: event.app.exit(result=v))
    for key in ("c-c", "c-d", "escape"):
        bindings.add(key)(lambda event: event.app.exit(result="deny"))
    prompt = "\n".join(f"  [{key}] {label}" for key, _value, label in options) + "\n  press a key: "
    window = Window(FormattedTextControl(prompt), wrap_lines=True, dont_extend_height=True)
    app: Application[Choice] = Application(layout=Layout(window), key_bindings=bindings, full_screen=False)
    try:
        return await app.run_async(handle_sigint=False)
    except (EOFError, KeyboardInterrupt, OSError):
        return "deny"
