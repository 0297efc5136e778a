"""Parsing the text of a JSON document the user edits, and the one wording of a JSON mistake,
`FILE:LINE:COLUMN: not valid JSON: expected ','`, which every reader of such a file reports
(platform/config_files.py, platform/json_store.py, the organisation's policy); and what counts as
nothing configured.

Pure: text in, a document or a problem out; never reads a file (platform/config_files.py does).
"""

from __future__ import annotations

import json

from levelcode.core.errors import ConfigProblem

PURE = True


def is_absent(doc: object) -> bool:
    """Missing, empty and `null` configuration all mean: nothing configured, nothing wrong."""
    return doc is None or doc in ({}, [])


def parse_json_text(text: str, *, file: str) -> tuple[object, ConfigProblem | None]:
    """The document, or the problem that names where its text is broken."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, json_syntax_problem(file, exc)
    except RecursionError:
        return None, ConfigProblem(file, "(file)", "not valid JSON: nested too deeply")


def json_syntax_problem(file: str, exc: json.JSONDecodeError) -> ConfigProblem:
    """Where the JSON text is broken (line and column as an editor counts them, 1-based) and what
    to do about it, in words: the one wording of a JSON mistake."""
    position, mistake = _mistake(exc.doc, exc.pos, exc.msg)
    line = exc.doc.count("\n", 0, position) + 1
    column = position - exc.doc.rfind("\n", 0, position)
    return ConfigProblem(file, "(file)", f"not valid JSON: {mistake}", line=line, column=column)


_WORDS = {
    "Expecting ',' delimiter": "expected ','",
    "Expecting ':' delimiter": "expected ':' after the key",
    "Expecting property name enclosed in double quotes": "expected a key in double quotes",
    "Expecting value": "expected a value",
    "Unterminated string starting at": "a string with no closing quote",
    "Invalid control character at": "a tab or line break inside a string (write it as \\t or \\n)",
    "Invalid \\escape": "a backslash that starts no escape (write a backslash as \\\\)",
    "Extra data": "more text after the end of the JSON value",
}


def _mistake(text: str, position: int, message: str) -> tuple[int, str]:
    """(where, what): the common hand-editing slips named as such, at the character to fix."""
    ahead = text[position : position + 2]
    if ahead.startswith(("//", "/*")):
        return position, "a comment; JSON has no comments (remove it)"
    if ahead[:1] == "'":
        return position, "a single quote; JSON strings and keys take double quotes"
    if message.startswith("Unexpected UTF-8 BOM"):
        return position, "a byte order mark at the start; save the file as UTF-8 without it"
    before = text[:position].rstrip()
    if ahead[:1] in ("}", "]") and before.endswith(","):
        return len(before) - 1, f"a comma before '{ahead[0]}'; JSON allows no trailing comma"
    if not text[position:].strip() and message.startswith("Expecting"):
        return position, "the file ends in the middle of the JSON (a closing '}' or ']' missing?)"
    return position, _WORDS.get(message, message[:1].lower() + message[1:])
