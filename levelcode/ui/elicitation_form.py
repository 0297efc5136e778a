"""A server's request for input, in the terminal: a form for form mode, a consent card for URL mode.

Everything the server wrote — its message, field titles, descriptions, choices, the URL — is shown
escaped (ui/visible.py) under a line that says it comes from the server. Form mode: fields are
filled one by one, pre-filled with the schema's defaults (Enter keeps one), checked as typed, then
reviewed: send, edit again, decline or cancel. A field that looks like it wants a secret is named
in a warning before the form is filled, masked while typed and hidden in the review: what is typed
there never reaches the screen (nor is it logged). URL mode: the URL is shown with its host in
ASCII (punycode), the name the browser looks up, with a warning when that host may imitate another
(ui/shown_hosts.py), and it is opened only if the user presses the key for that. Ctrl-C, Ctrl-D
and Escape cancel.
"""

from __future__ import annotations

import asyncio
import webbrowser
from typing import Literal

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from levelcode.mcp.calls.elicitation import (
    FormField,
    FormRequest,
    Invalid,
    UrlRequest,
    missing,
    parse_typed,
    prefilled,
    shown_value,
)
from levelcode.ui.approval_card import read_key
from levelcode.ui.shown_hosts import ShownUrl, shown_url, warning_lines
from levelcode.ui.visible import visible, visible_block

Action = Literal["accept", "decline", "cancel"]
FROM_SERVER = "The text below is the server's, not LevelCode's:"


def _header(console: Console, server: str, what: str, message: str) -> None:
    console.print(Rule(Text(f"MCP server {visible(server)!r} {what}"), style="yellow", align="left"))
    console.print(Text(FROM_SERVER, style="dim"))
    console.print(Text(visible_block(message) or "(no message)", style="bold"))


def _field_label(field: FormField) -> str:
    kind = {"enum": "choose one", "multi": "choose some, comma-separated", "boolean": "y/n"}.get(
        field.kind, field.kind
    )
    hidden = ", hidden" if field.secret else ""
    return f"{visible(field.title)}{' (required)' if field.required else ''} [{kind}{hidden}]"


def _secret_warning(console: Console, server: str, form: FormRequest) -> None:
    if not form.secret_fields:
        return
    named = ", ".join(visible(f.title) for f in form.secret_fields)
    console.print(
        Text(
            f"  this server asks for something that looks like a secret: {named}. Type it only if "
            f"you trust {visible(server)!r} with it; LevelCode hides what you type there.",
            style="yellow",
        )
    )


async def ask_form(console: Console, server: str, form: FormRequest) -> tuple[Action, dict[str, object]]:
    _header(console, server, "asks for input", form.message)
    for field in form.fields:
        console.print(
            Text(
                f"  • {_field_label(field)}"
                + (f": {visible(field.description)}" if field.description else ""),
                style="dim",
            )
        )
    _secret_warning(console, server, form)
    first = await read_key(
        [("f", "fill", "fill in the form"), ("d", "decline", "decline"), ("c", "cancel", "cancel")], "cancel"
    )
    if first != "fill":
        return _said(console, "decline" if first == "decline" else "cancel"), {}
    values = prefilled(form)
    while True:
        filled = await _fill(console, form, values)
        if filled is None:
            return _said(console, "cancel"), {}
        values = filled
        for field in form.fields:
            console.print(
                Text(f"  {visible(field.title)}: {visible(shown_value(field, values.get(field.name)))}")
            )
        lacking = missing(form, values)
        options = [("e", "edit", "edit again"), ("d", "decline", "decline"), ("c", "cancel", "cancel")]
        if not lacking:
            options.insert(0, ("s", "send", f"send to {visible(server)}"))
        else:
            console.print(Text(f"  still needed: {visible(', '.join(lacking))}", style="yellow"))
        choice = await read_key(options, "cancel")
        if choice == "send":
            return _said(console, "accept"), {k: v for k, v in values.items() if v is not None}
        if choice != "edit":
            return _said(console, "decline" if choice == "decline" else "cancel"), {}


async def _fill(console: Console, form: FormRequest, values: dict[str, object]) -> dict[str, object] | None:
    """Each field asked in turn, starting from `values`; None when the user cancels."""
    from prompt_toolkit import PromptSession

    session: PromptSession[str] = PromptSession()
    result = dict(values)
    for field in form.fields:
        if field.kind in ("enum", "multi"):
            for number, (_value, label) in enumerate(field.options, 1):
                console.print(Text(f"      {number}. {visible(label)}"))
        while True:
            current = result.get(field.name)
            start = "" if current is None else _editable(field, current)
            try:
                typed = await session.prompt_async(
                    f"  {_field_label(field)}: ", default=start, handle_sigint=False, is_password=field.secret
                )
            except (EOFError, KeyboardInterrupt):
                return None
            if not typed.strip() and not field.required:
                result.pop(field.name, None)
                break
            value = parse_typed(field, typed)
            if not isinstance(value, Invalid):
                result[field.name] = value
                break
            console.print(Text(f"    {visible(field.title)} {value.reason}", style="red"))
    return result


def _editable(field: FormField, value: object) -> str:
    if field.kind == "boolean":
        return "y" if value else "n"
    if field.kind == "multi" and isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


async def ask_url(console: Console, server: str, request: UrlRequest) -> Action:
    _header(console, server, "asks you to open a web page", request.message)
    page = shown_url(request.url)
    for line in _url_lines(page):
        console.print(line)
    options = [
        ("o", "open", f"open it in your browser ({visible(page.host)})"),
        ("d", "decline", "decline"),
        ("c", "cancel", "cancel"),
    ]
    choice = await read_key(options, "cancel")
    if choice != "open":
        return _said(console, "decline" if choice == "decline" else "cancel")
    opened = await asyncio.to_thread(_open, page.url)  # the ASCII form: the host that was shown
    if not opened:
        console.print(
            Text(f"  could not open a browser; open it yourself: {visible(page.url)}", style="yellow")
        )
    return _said(console, "accept")


def _url_lines(page: ShownUrl) -> list[Text]:
    """The page and its host as the browser will see them, and any sign that the host imitates another."""
    written = f" (written {visible(page.written)})" if page.written != page.host else ""
    return [
        Text.assemble("  page: ", (visible(page.url), "cyan")),
        Text.assemble("  host: ", (visible(page.host), "bold"), written),
        *(Text(f"  {visible(line)}", style="bold red") for line in warning_lines(page)),
    ]


def _open(url: str) -> bool:
    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


def _said(console: Console, action: Action) -> Action:
    words = {"accept": "sent", "decline": "declined", "cancel": "cancelled"}[action]
    console.print(Text(f"  → {words}", style="green" if action == "accept" else "red"))
    return action
