"""The sign-in consent text names hosts as the browser looks them up. Load-bearing direction: an
authorization server or sign-in page whose host imitates another (a Cyrillic letter) is printed in
ASCII (punycode) with a warning before the browser opens; an ordinary one is printed as it was,
with no warning."""

from __future__ import annotations

from levelcode.cli.mcp.login import consent_lines
from levelcode.mcp.protocol.sign_in import SignInPrompt


def prompt(issuer: str, url: str) -> SignInPrompt:
    return SignInPrompt(
        "remote", "https://mcp.example.com/mcp", issuer, ("mcp",), url, "http://127.0.0.1:1/cb"
    )


def test_a_lookalike_authorization_server_is_named_in_ascii_and_warned_about() -> None:
    said = "\n".join(
        consent_lines(prompt("https://\u0430uth.example.com", "https://\u0430uth.example.com/authorize?x=1"))
    )
    assert "at the authorization server https://xn--uth-5cd.example.com" in said
    assert "  https://xn--uth-5cd.example.com/authorize?x=1" in said
    assert "warning: xn--uth-5cd.example.com looks like another name" in said
    assert "CYRILLIC SMALL LETTER A" in said
    assert "\u0430" not in said.split("warning:", 1)[0]  # before the warning, nothing but ASCII hosts
    assert said.count("warning:") == 1  # the page on the same host is not warned about twice


def test_a_sign_in_page_on_another_lookalike_host_is_warned_about_too() -> None:
    said = "\n".join(
        consent_lines(prompt("https://auth.example.com", "https://l\u043egin.example.com/authorize"))
    )
    assert "at the authorization server https://auth.example.com\n" in said
    assert "warning: xn--lgin-55d.example.com looks like another name" in said


def test_an_ordinary_sign_in_is_printed_as_it_was() -> None:
    lines = consent_lines(prompt("https://auth.example.com", "https://auth.example.com/authorize?x=1"))
    assert "  at the authorization server https://auth.example.com" in lines
    assert "  https://auth.example.com/authorize?x=1" in lines
    assert not any("warning" in line for line in lines)
