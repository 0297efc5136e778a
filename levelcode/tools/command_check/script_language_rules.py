"""Safety rules for the small languages inside everyday text tools — sed scripts and awk programs —
which can run commands (sed `e`, awk `system()` and pipes) and write files (sed `w`, awk `print >`).

Pure apart from stat-like path checks. The sed script is read command by command, the awk program
by pattern; whatever the reader cannot follow flags.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from levelcode.tools.command_check.command_call import Call, Rule, path_checks
from levelcode.tools.command_check.command_paths import names_stdin
from levelcode.tools.command_check.sed_script import sed_script_problem
from levelcode.tools.command_check.shell_words import Word

_AWK_RUNS = re.compile(r"\bsystem\b|@\s*[A-Za-z_]|/inet")  # system(), @f() / @load, gawk's network files
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_REGEX = re.compile(r"(^|[(,~!{};&|?:\n])(\s*)/(?:[^/\\\n\[]|\\.|\[[^\]\n]*\])+/")
_AWK_GROUP = re.compile(r"\([^()]*\)")
_AWK_PRINT_TO = re.compile(r"\bprintf?\b[^;{}\n]*>")


@dataclass
class _Program:
    """Where a sed or awk invocation gets its program, and the operands left over."""

    texts: list[Word] = field(default_factory=list[Word])  # -e TEXT, or the first operand
    files: list[Word] = field(default_factory=list[Word])  # -f FILE
    operands: list[Word] = field(default_factory=list[Word])
    in_place: bool = False  # sed -i
    sandboxed: bool = False  # sed --sandbox refuses e, w and r
    loads: bool = False  # awk -l: a compiled extension


def _is_long(name: str, full: str) -> bool:
    """`name` is `full` or an abbreviation GNU tools accept (`--expr` for `--expression`)."""
    return len(name) >= 4 and full.startswith(name)


def _sed_long(program: _Program, word: Word, following: Word | None) -> int:
    name, given, value = word.text.partition("=")
    sources = [
        target
        for full, target in (("--expression", program.texts), ("--file", program.files))
        if _is_long(name, full)
    ]
    if sources:
        sources[0].extend([Word(value, word.dynamic)] if given else [following] if following else [])
        return 1 if given else 2
    program.in_place = program.in_place or _is_long(name, "--in-place")
    program.sandboxed = program.sandboxed or _is_long(name, "--sandbox")
    return 2 if _is_long(name, "--line-length") and not given else 1


def _sed_short(program: _Program, word: Word, following: Word | None) -> int:
    for position, letter in enumerate(word.text[1:], start=1):
        rest = word.text[position + 1 :]
        if letter == "i":
            program.in_place = True  # the rest of the cluster is a backup suffix (-i.bak)
            return 1
        if letter in "efl":
            value = Word(rest, word.dynamic) if rest else following
            if value is not None and letter != "l":
                (program.texts if letter == "e" else program.files).append(value)
            return 1 if rest else 2
    return 1


def _sed_program(args: tuple[Word, ...]) -> _Program:
    program = _Program()
    index = 0
    while index < len(args):
        word = args[index]
        following = args[index + 1] if index + 1 < len(args) else None
        if word.text == "--":
            program.operands += args[index + 1 :]
            break
        if word.text.startswith("--"):
            index += _sed_long(program, word, following)
        elif word.text.startswith("-") and len(word.text) > 1:
            index += _sed_short(program, word, following)
        else:
            program.operands.append(word)
            index += 1
    if not program.texts and not program.files and program.operands:
        program.texts.append(program.operands.pop(0))
    return program


def _program_files(call: Call, files: list[Word], check: Callable[[str], str | None]) -> Iterator[str]:
    """A program read from a file: the workspace's own passes; one read from the command's input
    is checked when it is a here-document and flags otherwise; one named at run time flags."""
    for word in files:
        if word.dynamic:
            yield f"the {call.name} program comes from a file named only when it runs ({word.text!r})"
        elif names_stdin(word):
            if call.stdin_text is None:
                yield f"the {call.name} program comes from its input, which the check cannot see"
            elif problem := check(call.stdin_text):
                yield problem


def sed_rule(call: Call) -> Iterator[str]:
    program = _sed_program(call.args)
    check = (lambda _text: None) if program.sandboxed else sed_script_problem
    for text in program.texts:
        if text.dynamic:
            yield f"the sed script is known only when it runs ({text.text!r})"
        elif problem := check(text.text):
            yield problem
    yield from _program_files(call, program.files, check)
    if program.in_place:
        if call.args_unknown:
            yield "edits in place files named only at run time (xargs, find -exec)"
        yield from path_checks("edits in place", call, program.operands)


def awk_problem(text: str) -> str | None:
    """Why an awk program needs a look: it runs commands, reaches the network or writes files."""
    if _AWK_RUNS.search(text):
        return "the awk program runs commands or reaches the network (system(), @name(), /inet)"
    code = _AWK_REGEX.sub(r"\1\2//", _AWK_STRING.sub('""', text))
    if "|" in code.replace("||", ""):
        return "the awk program pipes to or from a command (print | cmd, cmd | getline)"
    while _AWK_GROUP.search(code):
        code = _AWK_GROUP.sub("", code)
    if _AWK_PRINT_TO.search(code):
        return "the awk program writes to a file (print > file)"
    return None


_AWK_SOURCES = {"-f": "files", "--file": "files", "-i": "files", "--include": "files"}
_AWK_SOURCES |= {"-e": "texts", "--source": "texts"}
_AWK_VALUE_OPTIONS = frozenset({"-F", "-v", "-W", "-l", "--field-separator", "--assign", "--load"})


def _awk_program(args: tuple[Word, ...]) -> _Program:
    program = _Program()
    index = 0
    while index < len(args) and args[index].text.startswith("-") and args[index].text != "-":
        word = args[index]
        if word.text == "--":
            index += 1
            break
        if word.text.startswith("--"):
            name, equals, value = word.text.partition("=")
            attached = bool(equals)
        else:
            name, value = word.text[:2], word.text[2:]
            attached = bool(value)
        given = (
            Word(value, word.dynamic) if attached else (args[index + 1] if index + 1 < len(args) else None)
        )
        kind = _AWK_SOURCES.get(name)
        if kind is not None and given is not None:
            (program.files if kind == "files" else program.texts).append(given)
        program.loads = program.loads or name in ("-l", "--load")
        takes_value = kind is not None or name in _AWK_VALUE_OPTIONS
        index += 2 if takes_value and not attached else 1
    program.operands = list(args[index:])
    if not program.texts and not program.files and program.operands:
        program.texts.append(program.operands.pop(0))
    return program


def awk_rule(call: Call) -> Iterator[str]:
    program = _awk_program(call.args)
    if program.loads:
        yield f"loads a compiled extension into {call.name} (-l)"
    for text in program.texts:
        if text.dynamic:
            yield f"the {call.name} program is known only when it runs ({text.text!r})"
        elif problem := awk_problem(text.text):
            yield problem
    yield from _program_files(call, program.files, awk_problem)


SCRIPT_LANGUAGE_RULES: dict[str, Rule] = {
    "sed": sed_rule,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), awk_rule),
}
