"""Making third-party text safe to put on a terminal: every character a terminal would act on, or
that would hide or reorder what is shown, written as a visible escape.

An argument or env value from a repository's config may hold newlines (to fake extra card lines);
a server's result, error or stderr may hold ESC sequences (an OSC 52 clipboard write, erasing
lines, colour), CR or backspaces (to overwrite what was shown), bidi overrides or zero-width
characters (to make the text read as something else). Every place that prints text a server, a
repository or the model wrote passes it through `visible` (one line) or `visible_block` (keeps
line breaks and tabs). Never removes anything: what was hidden is shown, escaped.
"""

from __future__ import annotations

import unicodedata

PURE = True

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}
# Cc: C0, DEL and C1 controls. Cf: format characters — bidi controls (U+202A-202E, U+2066-2069,
# U+200E/200F, U+061C), zero-width and invisible ones (U+200B-200D, U+2060-2064, U+FEFF, U+180E,
# U+00AD) and the tag characters (U+E0000-E007F) that carry invisible text. Zl/Zp: line and
# paragraph separators. Cs: a lone surrogate, which cannot even be encoded for the terminal.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` on one line: every control, format and separator character written as an escape."""
    if text.isprintable():
        return text
    return "".join(_escape(char) for char in text)


def visible_block(text: str) -> str:
    """Like `visible`, but line breaks and tabs stay (CRLF becomes a line break; a lone CR, which
    would overwrite the line, is escaped)."""
    return "\n".join(
        "\t".join(visible(part) for part in line.split("\t"))
        for line in text.replace("\r\n", "\n").split("\n")
    )
