"""What a server asks for in a form or a URL, in a real terminal (tmux), against real servers.
Load-bearing direction: a field that looks like a secret is warned about and what is typed into it
never appears on the terminal or in any file LevelCode writes (debug log included), though it
still reaches the server; a page's host is shown as the name the browser looks up (ASCII,
punycode), with a warning when it imitates another (a Cyrillic letter in a Latin name)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.e2e.test_mcp_surface_terminal import ALLOW_ALL, leave, start_repl, tool_text
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import write_settings
from tests.support.everything import everything_entry
from tests.support.http_servers import running, sdk_server
from tests.support.processes import wait_until
from tests.support.terminal import Terminal

TYPED_SECRET = "tok-5ecret-Zq81"  # distinctive: found anywhere only if it leaked


def files_holding(root: Path, text: str) -> list[Path]:
    return [
        path
        for path in root.rglob("*")
        if path.is_file() and not path.is_symlink() and text.encode() in path.read_bytes()
    ]


def test_a_secret_field_is_warned_about_and_never_shown(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    replies = [Reply(tool_calls=(ToolCall("sdk__ask_token", {}),)), Reply(text="connected")]
    with running(sdk_server()) as sdk, OPENAI.fake(replies) as server:
        write_settings(
            isolated_home, {"mcpServers": {"sdk": {"url": sdk.url}}, "mcpToolPolicy": {"sdk__*": "allow"}}
        )
        start_repl(terminal, isolated_home, tmp_path, server.base_url, LEVELCODE_DEBUG="1")
        terminal.type("connect my account")
        terminal.send("Enter")
        screen = terminal.wait_for("[f] fill in the form")
        assert "this server asks for something that looks like a secret: API token" in screen
        terminal.answer("f")
        # the prompt itself, not the field's line in the list above it (keys typed before the
        # prompt reads them are echoed by the terminal, as for any program)
        prompt = "  API token (required) [string, hidden]:"
        assert wait_until(lambda: any(line.startswith(prompt) for line in terminal.screen().splitlines())), (
            terminal.screen()
        )
        terminal.type(TYPED_SECRET)
        screen = terminal.wait_for("*" * len(TYPED_SECRET))
        assert TYPED_SECRET not in screen
        terminal.send("Enter")
        screen = terminal.wait_for("[s] send to sdk")
        assert "API token: (hidden)" in screen
        terminal.answer("s")
        terminal.wait_for("connected")
        leave(terminal)
        result = tool_text(server.requests[1])
        screen = terminal.screen()
    assert f"token sha256: {hashlib.sha256(TYPED_SECRET.encode()).hexdigest()}" in result  # it arrived
    assert TYPED_SECRET not in screen
    assert "sdk__ask_token" in (isolated_home / "state" / "logs" / "debug.log").read_text()  # it logged
    assert files_holding(isolated_home, TYPED_SECRET) == []
    assert files_holding(tmp_path, TYPED_SECRET) == []


def test_a_lookalike_host_is_shown_in_ascii_with_a_warning(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    """`apple.com` with a Cyrillic a (U+0430): the card names xn--pple-43d.com and says why;
    declining opens nothing."""
    url = "https://\u0430pple.com/signin"
    call = ToolCall("everything__trigger-url-elicitation", {"url": url})
    replies = [Reply(tool_calls=(call,)), Reply(text="ok")]
    with everything_entry("stdio") as entry, OPENAI.fake(replies) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.type("sign me in")
        terminal.send("Enter")
        screen = terminal.wait_for("[o] open it in your browser (xn--pple-43d.com)")
        assert "page: https://xn--pple-43d.com/signin" in screen
        assert "host: xn--pple-43d.com" in screen
        assert "looks like another name" in screen
        assert "CYRILLIC SMALL LETTER A" in screen
        assert "\u0430pple.com" not in screen.split("host:", 1)[1].split("\n", 1)[0].split("(", 1)[0]
        terminal.answer("d")
        terminal.wait_for("ok")
        leave(terminal)
        declined = tool_text(server.requests[1])
    assert '"action": "decline"' in declined
