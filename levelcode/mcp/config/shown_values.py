"""What of a server's entry may be printed. A header's value never is: it is shown as its name and
a mask, keeping only what is no secret — a leading auth scheme (`Bearer`) and each `${VAR}`
reference as written — by the one function every command, card and error uses
(`shown_header`). An `oauth.clientSecret` written out is masked the same way.

Pure: takes strings and entries, returns strings and copies; never reads the environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from levelcode.mcp.config.environment import REFERENCE

PURE = True

MASK = "****"
# Leading words of an Authorization value that say how, not what: kept, the credential masked.
AUTH_SCHEMES = frozenset({"basic", "bearer", "bot", "digest", "negotiate", "token", "apikey", "key"})
_SCHEME = re.compile(r"([A-Za-z]+)([ \t]+)")


def masked_value(value: str) -> str:
    """`value` with every run of written text masked; `${VAR}` references kept (a default's
    text masked: it is written text too), and a leading auth scheme kept."""
    scheme = _SCHEME.match(value)
    kept = ""
    if scheme is not None and scheme.group(1).lower() in AUTH_SCHEMES and value[scheme.end() :]:
        kept, value = scheme.group(0), value[scheme.end() :]
    parts: list[str] = []
    last = 0
    for match in REFERENCE.finditer(value):
        parts.append(_masked_text(value[last : match.start()]))
        default = match.group(2)  # the text after `:-`, or None
        shown_default = "" if default is None else ":-" + _masked_text(default)
        parts.append(f"${{{match.group(1)}{shown_default}}}")
        last = match.end()
    parts.append(_masked_text(value[last:]))
    return kept + "".join(parts)


def _masked_text(text: str) -> str:
    return text if not text.strip() else MASK


def shown_header(name: str, value: str) -> str:
    """`Authorization: Bearer ****`, `X-Api-Key: ${API_KEY}`: a header as any output shows it."""
    return f"{name}: {masked_value(value)}"


def shown_header_text(typed: str) -> str:
    """A header as typed (`-H 'Name: value'`), for an error: its name and a mask; no name, a mask."""
    name, colon, value = typed.partition(":")
    if not colon or not name.strip() or any(c.isspace() for c in name.strip()):
        return MASK
    return shown_header(name.strip(), value.strip())


def shown_entry(entry: object) -> object:
    """A copy of a server's entry as written, safe to print: header values and a written-out
    `oauth.clientSecret` masked; anything else as it is."""
    if not isinstance(entry, Mapping):
        return entry
    shown = dict(entry)
    headers = shown.get("headers")
    if isinstance(headers, Mapping):
        shown["headers"] = {
            key: masked_value(value) if isinstance(value, str) else value for key, value in headers.items()
        }
    oauth = shown.get("oauth")
    if isinstance(oauth, Mapping) and isinstance(oauth.get("clientSecret"), str):
        shown["oauth"] = {**oauth, "clientSecret": masked_value(oauth["clientSecret"])}
    return shown
