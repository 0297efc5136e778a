"""The one wording of a broken JSON file: `FILE:LINE:COLUMN: not valid JSON: …`, at the character an
editor should jump to, the usual hand-editing slips named as such. Load-bearing direction: every
broken text is a problem (never a crash, never read as empty) that names the file, line and column;
the second corpus: a text that parses is no problem at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import json_syntax_problem
from levelcode.platform.config_files import read_json_file
from levelcode.platform.json_store import UnreadableFile, read_json_object

SETTINGS = (
    '{\n  "model": "m",\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}\n'
)

# text → (line, column, what), the column counted in characters from 1
BROKEN = {
    "missing comma": (SETTINGS, 5, 5, "expected ','"),
    "trailing comma in an object": (
        '{\n  "a": 1,\n}',
        2,
        9,
        "a comma before '}'; JSON allows no trailing comma",
    ),
    "trailing comma in a list": (
        '{"a": [1, 2, ]}',
        1,
        12,
        "a comma before ']'; JSON allows no trailing comma",
    ),
    "a comment": ('{\n  // mine\n  "a": 1\n}', 2, 3, "a comment; JSON has no comments (remove it)"),
    "single quotes": ("{'a': 1}", 1, 2, "a single quote; JSON strings and keys take double quotes"),
    "a bare key": ("{a: 1}", 1, 2, "expected a key in double quotes"),
    "no colon": ('{"a" 1}', 1, 6, "expected ':' after the key"),
    "cut short": (
        '{"a": {"b": 1}',
        1,
        15,
        "the file ends in the middle of the JSON (a closing '}' or ']' missing?)",
    ),
    "a tab in a string": (
        '{"a": "x\ty"}',
        1,
        9,
        "a tab or line break inside a string (write it as \\t or \\n)",
    ),
    "a Windows path": (
        '{"cwd": "C:\\Users"}',
        1,
        12,
        "a backslash that starts no escape (write a backslash as \\\\)",
    ),
    "two documents": ("{}\n{}", 2, 1, "more text after the end of the JSON value"),
    "an open string": ('{"a": "abc}', 1, 7, "a string with no closing quote"),
    "a byte order mark": (
        '\ufeff{"a": 1}',
        1,
        1,
        "a byte order mark at the start; save the file as UTF-8 without it",
    ),
}


@pytest.mark.parametrize(("text", "line", "column", "what"), BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_text_is_one_line_naming_file_line_and_column(
    tmp_path: Path, text: str, line: int, column: int, what: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    doc, problem = read_json_file(path)
    assert doc is None
    assert problem is not None
    assert (problem.line, problem.column, problem.whole_file) == (line, column, True)
    assert str(problem) == f"{path}:{line}:{column}: not valid JSON: {what}"
    assert "\n" not in str(problem)
    with pytest.raises(UnreadableFile) as raised:  # the writer's reader says it the same way
        read_json_object(path)
    assert raised.value.problem == problem


@pytest.mark.parametrize("text", ["{}", '{"a": [1, 2]}', '  {"a": "b//c"}  \n', "null", ""])
def test_a_text_that_parses_is_no_problem(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    assert read_json_file(path)[1] is None


def test_the_position_is_counted_in_characters_not_bytes() -> None:
    text = '{"é": "ü", "b" 1}'
    with pytest.raises(json.JSONDecodeError) as raised:
        json.loads(text)
    problem = json_syntax_problem("f.json", raised.value)
    assert (problem.line, problem.column) == (1, 16)


def test_problems_print_as_editors_and_compilers_name_places() -> None:
    assert str(ConfigProblem("f", "(file)", "m", line=3, column=7)) == "f:3:7: m"
    assert str(ConfigProblem("f", "(file)", "cannot be read")) == "f: cannot be read"
    assert str(ConfigProblem("f", "mcpServers.a", "m")) == "f: mcpServers.a: m"
    assert ConfigProblem("f", "(top level)", "m").whole_file
    assert not ConfigProblem("f", "mcpServers", "m").whole_file
