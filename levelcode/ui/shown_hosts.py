"""A URL's host as the user must see it before deciding to open it: the name the browser will look
up (ASCII, each international label in punycode), and why it may be imitating another name.

A server or an authorization server chooses the URL; `apple.com` spelt with a Cyrillic a (U+0430)
reads as `apple.com` and is another host (`xn--pple-43d.com`). So the ASCII form is what is shown and
opened, the Unicode form only beside it, and a warning names each lookalike sign: a punycode
label, letters of several scripts in one label, a letter that imitates a Latin one, a character a
host name cannot hold, a user name before `@` that reads like a host. Pure: never resolves,
never prints; the caller escapes what it shows (ui/visible.py).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

PURE = True

# Letters that render like a Latin letter or digit, as the browser would map them (lowercase,
# after NFKC). Not all of Unicode's confusables: the scripts that share glyphs with Latin.
_LOOKALIKES = {
    pair[0]: pair[1]
    for pairs in (
        # Cyrillic
        "\u0430a \u0432b \u0435e \u043eo \u0440p \u0441c \u0443y \u0445x "
        "\u0455s \u0456i \u0458j \u0501d \u04bbh \u04cfl \u051bq \u051dw "
        "\u0454e \u044cb \u043ak \u043fn \u0433r \u0457i \u0491r",
        # Greek
        "\u03b1a \u03b5e \u03b9i \u03bak \u03bdv \u03bfo \u03c1p \u03c4t \u03c5u \u03c7x \u03b3y \u03c9w",
        # Armenian
        "\u0585o \u057du \u0570h \u0578n \u0566q \u0581g \u0575j",
        # Latin letters that pass for others
        "\u0131i \u0251a \u0261g \u0269i \u028fy \u1d04c \u1d0fo \u1d1cu \u1d20v \u1d21w \u1d22z \u02923",
    )
    for pair in pairs.split()
}
_FULL_STOPS = ("\u3002", "\uff0e", "\uff61")  # read as "." by browsers (UTS 46)
_WRITTEN_TOGETHER = (  # scripts one name may mix (Unicode's "highly restrictive" profile)
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
)


@dataclass(frozen=True)
class ShownUrl:
    url: str  # the URL with its host in ASCII: what is shown and what the browser is given
    host: str  # the ASCII host
    written: str  # the host as the URL wrote it, lowercased (Unicode where it was)
    warnings: tuple[str, ...]  # why the host may imitate another; empty when nothing looks odd


def shown_url(url: str) -> ShownUrl:
    try:
        parts = urlsplit(url)
    except ValueError:  # a host that NFKC turns into a URL separator: no host to show
        return ShownUrl(url, "", "", ("the address is not a URL a browser can read safely",))
    written = (parts.hostname or "").lower()
    host = ascii_host(written)
    warnings = [*lookalike_signs(written), *_user_name_signs(parts, host)]
    return ShownUrl(_with_host(parts, url, written, host), host, written, tuple(warnings))


def warning_lines(shown: ShownUrl) -> list[str]:
    """The warning to print under a URL whose host may imitate another (none when it does not)."""
    if not shown.warnings:
        return []
    head = f"warning: {shown.host or 'this address'} looks like another name; check it before going on:"
    return [head, *(f"  - {sign}" for sign in shown.warnings)]


def ascii_host(host: str) -> str:
    """The name the browser looks up: mapped as browsers map it (NFKC, lowercase, the ideographic
    full stops as dots), then every non-ASCII label as `xn--` punycode (RFC 3492)."""
    mapped = unicodedata.normalize("NFKC", host).lower()
    for stop in _FULL_STOPS:
        mapped = mapped.replace(stop, ".")
    return ".".join(_ascii_label(label) for label in mapped.split("."))


def _ascii_label(label: str) -> str:
    if label.isascii():
        return label
    return "xn--" + unicodedata.normalize("NFC", label).encode("punycode").decode("ascii")


def lookalike_signs(host: str) -> list[str]:
    """Each reason `host` may be made to read as another name, in words for the user."""
    unicode_host = unicodedata.normalize("NFKC", host).lower()
    if ":" in unicode_host:  # an IPv6 literal: no letters to imitate anything with
        return []
    signs: list[str] = []
    for label in unicode_host.split("."):
        decoded = _from_punycode(label)
        if decoded is not None:
            signs.append(f"{label!r} is punycode: it stands for {decoded!r}")
        signs += _label_signs(decoded if decoded is not None else label)
    decoded_host = ".".join(_from_punycode(label) or label for label in unicode_host.split("."))
    reads_as = _skeleton(decoded_host)
    if reads_as != decoded_host and reads_as.isascii():
        signs.append(f"it reads as {reads_as!r}, but it is {ascii_host(host)!r}, another host")
    return signs


def _skeleton(text: str) -> str:
    return "".join(_LOOKALIKES.get(char, char) for char in text)


def _from_punycode(label: str) -> str | None:
    if not label.startswith("xn--"):
        return None
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return None


def _label_signs(label: str) -> list[str]:
    """A label that mixes scripts, or whose letters could all pass for Latin ones, has each
    imitating letter named; a whole label in another script (`пример`) is that script's name."""
    signs: list[str] = []
    scripts = {_script(char) for char in label if unicodedata.category(char).startswith("L")}
    mixed = len(scripts) > 1 and not any(scripts <= allowed for allowed in _WRITTEN_TOGETHER)
    if mixed:
        signs.append(f"{label!r} mixes scripts: {', '.join(sorted(s.title() for s in scripts))}")
    passes_for_latin = mixed or (not label.isascii() and _skeleton(label).isascii())
    for char in dict.fromkeys(label):
        if char in _LOOKALIKES and passes_for_latin:
            signs.append(f"{_named(char)} looks like {_LOOKALIKES[char]!r}")
        elif not char.isascii() and unicodedata.category(char)[0] not in "LM":
            signs.append(f"{_named(char)} is not a letter, digit or hyphen")
        elif char.isascii() and not (char.isalnum() or char in "-_"):
            signs.append(f"{char!r} is not a character a host name holds")
    return signs


def _script(char: str) -> str:
    """The script of a letter, from its Unicode name (`CYRILLIC SMALL LETTER A` → CYRILLIC)."""
    word = unicodedata.name(char, "UNKNOWN").split(" ")[0]
    return "KATAKANA" if word.startswith("KATAKANA") or word.startswith("HALFWIDTH") else word


def _named(char: str) -> str:
    return f"{char!r} (U+{ord(char):04X} {unicodedata.name(char, 'unnamed')})"


def _user_name_signs(parts: SplitResult, host: str) -> list[str]:
    """`https://apple.com@evil.example/`: what stands before `@` is a user name, not the host."""
    if parts.username is None:
        return []
    before = parts.netloc.rsplit("@", 1)[0]
    return [f"{before + '@'!r} before the host is a user name; the page is on {host!r}"]


def _with_host(parts: SplitResult, url: str, written: str, host: str) -> str:
    if written.isascii() or not written:
        return url
    userinfo = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    try:
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return url
    return parts._replace(netloc=f"{userinfo}{host}{port}").geturl()
