"""Making third-party text safe to put on a terminal: control characters shown as escapes.

An argument or env value from a repository's config may hold newlines (to fake extra card lines)
or ESC sequences (to erase earlier ones). Anything shown to the user for a decision passes here.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
        return f"\\x{code:02x}"
    if code in (0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069):
        return f"\\u{code:04x}"  # bidirectional overrides can reorder what is shown
    return char


def visible(text: str) -> str:
    """`text` with every control character (and bidi override) written as an escape."""
    if text.isprintable():
        return text
    return "".join(_escape(char) for char in text)
