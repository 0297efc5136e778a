"""Safety rules for programs that run commands named in their options, in a script they read, or
in their input: make, editors, debuggers, database shells, pagers, zip.

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
The project's own files (a Makefile in the workspace) pass; a script the check cannot see — read
from the command's input, from outside the workspace or named at run time — flags.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from levelcode.tools.command_check.command_call import Call, Rule, option_value, option_values, path_checks
from levelcode.tools.command_check.command_paths import names_stdin
from levelcode.tools.command_check.shell_words import Word

_MAKE_VARIABLES = frozenset({"SHELL", ".SHELLFLAGS", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES"})
_MAKE_ASSIGNMENT = re.compile(r"([A-Za-z_.][A-Za-z0-9_.]*)\s*[:+?!]?=(.*)", re.S)
_SHELL_CODE = re.compile(r"[;&|`<>\n]|\$[({]")
_VIM_OPTIONS = frozenset(
    {"-c", "--cmd", "-S", "-s", "-u", "-U", "-w", "-W", "--remote-send", "--remote-expr"}
)
_EX_MODE = frozenset({"-e", "-E", "-es", "-Es", "-se", "-sE"})
_EMACS_OPTIONS = frozenset({"eval", "execute", "l", "load", "f", "funcall", "script", "x", "e"})
_GDB_OPTIONS = frozenset({"ex", "eval-command", "iex", "init-eval-command", "x", "command", "ix"})
_GDB_OPTIONS |= {"init-command", "batch", "batch-silent"}
_LLDB_OPTIONS = frozenset({"o", "one-line", "O", "one-line-before-file", "k", "one-line-on-crash", "K"})
_LLDB_OPTIONS |= {"source-on-crash", "s", "source", "S", "source-before-file", "b", "batch"}
_ATTACH_OPTIONS = frozenset({"p", "pid", "attach-pid", "n", "attach-name"})
_PAGER_JUMP = re.compile(r"\+([0-9]*|[Gg]|/[^\x00-\x1f]*)")  # +42, +G, +/pattern
_SQLITE_SAFE = frozenset({"tables", "table", "schema", "headers", "header", "mode", "dump", "indexes"})
_SQLITE_SAFE |= {"indices", "databases", "width", "help", "show", "timer", "separator", "nullvalue"}
_SQLITE_SAFE |= {"print", "quit", "exit", "bail", "echo", "changes", "stats", "eqp", "explain"}
_SQLITE_SAFE |= {"fullschema", "lint", "prompt", "dbinfo", "expert", "limit", "scanstats"}
_SQLITE_DOT = re.compile(r"(?:^|\n)[ \t]*\.([A-Za-z_]+)")
_SQLITE_SQL = re.compile(
    r"\b(writefile|readfile|load_extension|edit|fts3_tokenizer)\s*\(|\battach\b|\bvacuum\s+into\b", re.I
)
_SQLITE_VALUES = frozenset({"cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap", "maxsize"})
_SQLITE_VALUES |= {"heap", "lookaside", "pagecache", "escape"}
_PSQL_RUNS = re.compile(
    r"\\(!|o\b|out\b|g|w\b|write|copy|i\b|ir\b|include|setenv|lo_)|\bprogram\b|\bcopy\b|lo_export|"
    r"lo_import|pg_read|pg_ls_dir",
    re.I,
)
_MYSQL_RUNS = re.compile(
    r"(^|[;\n])\s*(system|source|tee|pager|edit)\b|\\[!.TPe]|into\s+(outfile|dumpfile)|load_file|"
    r"local\s+infile",
    re.I,
)
_ZIP_VALUES = frozenset(
    {"-b", "-n", "-t", "-tt", "-TT", "-O", "--out", "-P", "-Z", "-s", "-sp", "--temp-path"}
)


def _bare(option: str) -> str:
    """`--eval-command=x` -> `eval-command`: tools that take options with one dash or two."""
    return option.lstrip("-").split("=", 1)[0]


def _options(call: Call) -> list[str]:
    return [word.text for word in call.args if word.text.startswith("-") and word.text != "-"]


def make_rule(call: Call) -> Iterator[str]:
    for makefile in [
        *option_values(call.args, "-f", "--file"),
        *option_values(call.args, None, "--makefile"),
    ]:
        if names_stdin(makefile):
            yield f"make reads its makefile from its input, which the check cannot see ({makefile.text!r})"
        elif problem := call.scope.outside_problem(makefile):
            yield f"make runs the recipes of a makefile at {problem}"
    if option_values(call.args, "-E", "--eval"):
        yield "make adds rules given on the command line (--eval), whose recipes run"
    for directory in [*option_values(call.args, "-C", "--directory"), Word(".")]:
        if problem := call.scope.outside_problem(directory):
            yield f"make runs the makefile of {problem}"
    for word in call.args:
        match = _MAKE_ASSIGNMENT.fullmatch(word.text)
        if match and (
            match.group(1) in _MAKE_VARIABLES or _SHELL_CODE.search(match.group(2)) or word.dynamic
        ):
            yield f"make is handed a variable that can run commands ({word.text!r})"


def vim_rule(call: Call) -> Iterator[str]:
    options = _options(call)
    named = [option for option in options if option.split("=", 1)[0] in _VIM_OPTIONS]
    commands = [w.text for w in call.args if w.text.startswith("+") and not _PAGER_JUMP.fullmatch(w.text)]
    if named or commands:
        given = (named + commands)[0]
        yield f"{call.name} is told to run editor commands ({given}), which can run any program (:!)"
    if (call.name == "ex" or _EX_MODE & set(options)) and (call.stdin_text is not None or call.stdin_unseen):
        yield f"{call.name} reads editor commands from its input, which can run any program (:!)"


def emacs_rule(call: Call) -> Iterator[str]:
    if any(_bare(option) in _EMACS_OPTIONS for option in _options(call)):
        yield f"{call.name} is told to evaluate Lisp (--eval, -l, -f, --script), which can run any program"


def ed_rule(call: Call) -> Iterator[str]:
    if call.stdin_text is not None or call.stdin_unseen:
        yield "ed runs the commands it reads on its input, which can run programs (!) and write files"


def debugger_rule(call: Call) -> Iterator[str]:
    known = _GDB_OPTIONS if call.name != "lldb" else _LLDB_OPTIONS
    options = [_bare(option) for option in _options(call)]
    if known & set(options):
        yield f"{call.name} is told to run debugger commands, which can run any program (shell, !)"
    if _ATTACH_OPTIONS & set(options):
        yield f"{call.name} attaches to a running process, which it can read and change"
    if call.stdin_text is not None or call.stdin_unseen:
        yield f"{call.name} runs the debugger commands it reads on its input"


def _sqlite_problem(text: str) -> str | None:
    for match in _SQLITE_DOT.finditer(text):
        if match.group(1).lower() not in _SQLITE_SAFE:
            return f"runs sqlite3's .{match.group(1)}, which can run programs, load code or write files"
    if _SQLITE_SQL.search(text):
        return "the SQL reads or writes files, loads code or opens another database (writefile, attach ...)"
    return None


def sqlite_rule(call: Call) -> Iterator[str]:
    options = [_bare(word.text) for word in call.args if word.text.startswith("-")]
    if "safe" in options:
        return  # sqlite3 -safe refuses every command that reaches outside the database
    if any(name in ("init", "archive") or name.startswith("A") for name in options):
        yield "sqlite3 runs the commands in a file or reads and writes files (-init, -A)"
    texts: list[Word] = []
    index = 0
    while index < len(call.args):
        word = call.args[index]
        name = _bare(word.text) if word.text.startswith("-") else ""
        if name in _SQLITE_VALUES:  # the value of -cmd is SQL too; the others are settings
            texts += list(call.args[index + 1 : index + 2]) if name == "cmd" else []
            index += 1
        elif not name:
            texts.append(word)  # the database file, then SQL or dot-commands
        index += 1
    yield from _checked_input(call, texts, _sqlite_problem, "SQL and dot-commands")


def _checked_input(
    call: Call, texts: list[Word], check: Callable[[str], str | None], what: str
) -> Iterator[str]:
    for text in texts:
        if text.dynamic:
            yield f"{call.name} gets {what} known only when it runs ({text.text!r})"
        elif problem := check(text.text):
            yield problem
    if call.stdin_text is not None:
        if problem := check(call.stdin_text):
            yield problem
    elif call.stdin_unseen:
        yield f"{call.name} reads {what} from its input, which the check cannot see"


def _pattern_check(pattern: re.Pattern[str], reason: str) -> Callable[[str], str | None]:
    return lambda text: reason if pattern.search(text) else None


def psql_rule(call: Call) -> Iterator[str]:
    check = _pattern_check(
        _PSQL_RUNS, "the psql input runs programs or reads and writes files (\\!, \\o, COPY)"
    )
    yield from _checked_input(call, option_values(call.args, "-c", "--command"), check, "commands")


def mysql_rule(call: Call) -> Iterator[str]:
    check = _pattern_check(_MYSQL_RUNS, f"the {call.name} input runs programs or reads and writes files")
    yield from _checked_input(call, option_values(call.args, "-e", "--execute"), check, "commands")


def zip_rule(call: Call) -> Iterator[str]:
    if any(word.text.startswith(("-TT", "--unzip-command")) for word in call.args):
        yield "zip runs the given command to test the archive (-TT / --unzip-command)"
    operands: list[Word] = []
    index = 0
    while index < len(call.args):
        text = call.args[index].text
        if text.startswith("-"):
            index += 2 if text in _ZIP_VALUES else 1
            continue
        operands.append(call.args[index])
        index += 1
    yield from path_checks(
        "writes to", call, [*operands[:1], *option_values(call.args, "-O", "--output-file")]
    )


def pager_rule(call: Call) -> Iterator[str]:
    if any(w.text.startswith("+") and not _PAGER_JUMP.fullmatch(w.text) for w in call.args):
        yield f"{call.name} runs its own commands given as +cmd, which can run programs (!)"
    keys = ("-k", "--lesskey-file", "--lesskey-src", "--lesskey-content")
    if any(option.startswith(keys) for option in _options(call)):
        yield f"{call.name} loads key bindings, which can set LESSOPEN and so run programs"
    logs = [*option_values(call.args, "-o", "--log-file"), *option_values(call.args, "-O", "--LOG-FILE")]
    yield from path_checks("writes to", call, logs)


def man_rule(call: Call) -> Iterator[str]:
    pager = option_value(call.args, "-P", "--pager")
    if pager is not None and pager.text not in ("cat", "less", "more"):
        yield f"man shows the page through the program given as its pager ({pager.text!r})"
    if any(option.startswith(("-H", "--html")) for option in _options(call)):
        yield "man opens the page in a browser (man -H)"


EMBEDDED_COMMAND_RULES: dict[str, Rule] = {
    **dict.fromkeys(("make", "gmake", "bmake", "pmake"), make_rule),
    **dict.fromkeys(
        ("vim", "vi", "nvim", "ex", "view", "vimdiff", "gvim", "rvim", "rview", "evim", "vimx"), vim_rule
    ),
    **dict.fromkeys(("emacs", "emacsclient"), emacs_rule),
    "ed": ed_rule,
    **dict.fromkeys(("gdb", "gdb-multiarch", "cgdb", "lldb"), debugger_rule),
    **dict.fromkeys(("sqlite3", "sqlite"), sqlite_rule),
    "psql": psql_rule,
    **dict.fromkeys(("mysql", "mariadb"), mysql_rule),
    "zip": zip_rule,
    **dict.fromkeys(("less", "more", "most"), pager_rule),
    "man": man_rule,
}
