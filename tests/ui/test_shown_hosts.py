"""A URL's host as shown before the user decides to open it. Load-bearing direction: a host that
imitates another — a Cyrillic, Greek or Armenian letter among Latin ones, a whole label of
letters that pass for Latin, a punycode label, a dotless i, a user name before `@` — is shown in
ASCII (what the browser looks up) with a warning that says why. The second corpus: plain ASCII
hosts, IP literals and honest international names (bücher.de, пример.рф, 例え.jp) get no
warning, and every host comes out as ASCII the browser would look up alike."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.ui.shown_hosts import ascii_host, lookalike_signs, shown_url

IMITATING = [
    ("https://\u0430pple.com/signin", "xn--pple-43d.com", "reads as 'apple.com'"),
    ("https://xn--pple-43d.com/", "xn--pple-43d.com", "is punycode"),
    ("https://p\u0430ypal.com", "xn--pypal-4ve.com", "mixes scripts"),
    ("https://\u0430\u0440\u0440\u04cf\u0435.com", "xn--80ak6aa92e.com", "reads as 'apple.com'"),
    ("https://g\u043e\u043egle.com/x", "xn--ggle-55da.com", "CYRILLIC SMALL LETTER O"),
    ("https://micros\u03bfft.com", "xn--microsft-4dg.com", "GREEK SMALL LETTER OMICRON"),
    ("https://\u0131nstagram.com", "xn--nstagram-skb.com", "DOTLESS I"),
    ("https://g\u0585\u0585gle.com", "xn--ggle-vifa.com", "ARMENIAN"),
    ("https://xn--bcher-kva.de/", "xn--bcher-kva.de", "stands for 'bücher'"),
    ("https://apple.com@evil.example/login", "evil.example", "is a user name; the page is on 'evil.example'"),
    ("https://APPLE.COM\u0430/", "apple.xn--com-8cd", "mixes scripts"),
]

HONEST = [
    ("https://example.com/connect?x=1", "example.com"),
    ("https://EXAMPLE.com/a", "example.com"),
    ("https://modelcontextprotocol.io", "modelcontextprotocol.io"),
    ("https://b\u00fccher.de/x", "xn--bcher-kva.de"),
    ("https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444", "xn--e1afmkfd.xn--p1ai"),
    ("https://\u4f8b\u3048.jp", "xn--r8jz45g.jp"),
    ("https://m\u00fcnchen.de", "xn--mnchen-3ya.de"),
    ("https://\u6771\u4eacabc.jp", "xn--abc-dm9di64i.jp"),  # Han with Latin: written together
    ("http://127.0.0.1:8080/cb", "127.0.0.1"),
    ("https://[::1]:8443/x", "::1"),
    ("https://sub-domain_1.example.org:8443/p", "sub-domain_1.example.org"),
]


@pytest.mark.parametrize(("url", "host", "said"), IMITATING)
def test_a_host_that_imitates_another_is_shown_in_ascii_and_warned_about(
    url: str, host: str, said: str
) -> None:
    shown = shown_url(url)
    assert shown.host == host
    assert shown.host.isascii()
    assert shown.url.isascii()
    assert shown.warnings
    assert said in "\n".join(shown.warnings)


@pytest.mark.parametrize(("url", "host"), HONEST)
def test_honest_hosts_get_no_warning(url: str, host: str) -> None:
    shown = shown_url(url)
    assert shown.host == host
    assert shown.warnings == ()


def test_the_url_shown_and_opened_carries_the_ascii_host_and_keeps_the_rest() -> None:
    shown = shown_url("https://user@\u0430pple.com:8443/a b?q=\u00e9#frag")
    assert shown.url == "https://user@xn--pple-43d.com:8443/a b?q=\u00e9#frag"
    assert shown.written == "\u0430pple.com"


def test_a_host_written_with_fullwidth_or_ideographic_dots_maps_as_the_browser_maps_it() -> None:
    assert ascii_host("\uff45xample\u3002com") == "example.com"
    assert ascii_host("EXAMPLE\uff0eCOM") == "example.com"


def test_a_url_python_cannot_split_is_warned_about_not_raised() -> None:
    shown = shown_url("https://example.com\uff0fevil.com/")
    assert shown.warnings


@given(st.text(min_size=1, max_size=30).filter(lambda t: "." not in t and "/" not in t))
def test_every_host_comes_out_as_ascii(label: str) -> None:
    try:
        host = ascii_host(f"{label}.com")
    except UnicodeError:
        return  # not a name punycode can write (a lone surrogate): nothing to show as a host
    assert host.isascii()
    lookalike_signs(f"{label}.com")  # never raises


@pytest.mark.parametrize("url", [url for url, *_ in (*IMITATING, *HONEST)])
def test_the_ascii_host_is_the_one_the_idna_standard_gives(url: str) -> None:
    """Checked against the `idna` package (UTS 46, non-transitional, as browsers map names)."""
    idna = pytest.importorskip("idna")
    written = shown_url(url).written
    if written.isascii():
        assert ascii_host(written) == written  # nothing to encode (idna refuses `_`, browsers don't)
        return
    assert ascii_host(written) == idna.encode(written, uts46=True, transitional=False).decode()
