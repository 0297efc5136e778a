"""Safety rules for programs that run code they are handed: shells and script interpreters.

No I/O. A shell's `-c` string and here-documents are shell source, reviewed as commands in their own
right. Code given to any other interpreter inline (`python -c`, `node -e`, `perl -e` ...), fed on
its input, or produced at run time (`python <(...)`) is code the check cannot read, so it flags
whatever it says; a script file (`python script.py`) is the project's own code and passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from levelcode.tools.command_check.command_call import Call, Rule, cluster_letters
from levelcode.tools.command_check.command_paths import names_stdin
from levelcode.tools.command_check.package_rules import pip_rule
from levelcode.tools.command_check.shell_words import Word

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash"})
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_URL = re.compile(r"[a-z][a-z0-9+.-]*://|data:", re.IGNORECASE)


@dataclass(frozen=True)
class Language:
    """How an interpreter is told what to run, as far as finding inline code needs."""

    code: str = "e"  # short options whose value is code: "c" for python, "ep" for node
    code_long: tuple[str, ...] = ()  # long options whose value is code: --eval, --print
    values: str = ""  # other short options that take a value, so the next word is no script
    values_long: frozenset[str] = frozenset()
    flags_long: frozenset[str] = frozenset()  # long options known to take no value
    module: str = ""  # short options naming a module to run, like a script (python -m)
    code_subcommands: frozenset[str] = frozenset()  # `deno eval CODE`
    script_subcommands: frozenset[str] = frozenset()  # `deno run SCRIPT`: options may follow


_NODE = Language(
    "ep",
    ("--eval", "--print"),
    "rC",
    frozenset({"--require", "--import", "--loader", "--experimental-loader", "--input-type"})
    | {"--conditions", "--env-file", "--title", "--preload"},
    frozenset({"--test", "--watch", "--inspect", "--inspect-brk", "--enable-source-maps"})
    | {"--no-warnings", "--trace-warnings", "--expose-gc", "--check", "--interactive", "--version"},
)
LANGUAGES: dict[str, Language] = {
    "python": Language("c", values="WX", module="m"),
    **dict.fromkeys(("node", "nodejs", "tsx", "ts-node", "bun"), _NODE),
    "deno": Language("", code_subcommands=frozenset({"eval"}), script_subcommands=frozenset({"run"})),
    "perl": Language("eE", values="IMmlx0FiCdD"),
    "ruby": Language("e", values="IrCEFKTWx0"),
    "php": Language("rBRE", values="cdfFtzS"),
    "lua": Language("e", values="l"),
    **dict.fromkeys(("rscript", "r", "groovy", "scala", "gnuplot"), Language("e")),
    "osascript": Language("e", values="ls"),
    "julia": Language("eE", ("--eval", "--print"), "CJLpt"),
    "elixir": Language("e", ("--eval",), "r"),
    "expect": Language("c", values="f"),
    "dc": Language("e", ("--expression",), "f"),
    "octave": Language("", ("--eval",)),
    **dict.fromkeys(("tclsh", "wish"), Language("")),
}
INTERPRETERS = frozenset(LANGUAGES) | {"pwsh", "powershell"}
Found = tuple[Literal["code", "stdin", "script", "none"], Word | None]


def is_python(name: str) -> bool:
    return _PYTHON.fullmatch(name) is not None


def runs_code(name: str) -> bool:
    """Whether `name` runs code it is handed (what a download piped into it would become)."""
    return name in SHELLS or name in INTERPRETERS or is_python(name) or name in ("eval", "source", ".")


def _long_option(word: Word, following: Word | None, language: Language) -> tuple[Found | None, int]:
    """What `--name[=value]` means: inline code, or how many words it spans."""
    name, given, value = word.text.partition("=")
    value_word = Word(value, word.dynamic) if given else following
    if name in language.code_long:
        return ("code", value_word), 0
    if value_word is not None and value_word.text.startswith("data:"):
        return ("code", value_word), 0  # node --import data:text/javascript,...
    takes_next = not given and following is not None and not following.text.startswith("-")
    unknown = name not in language.flags_long and not name.startswith(("--no-", "--trace-"))
    return None, 2 if takes_next and (name in language.values_long or unknown) else 1


def _short_cluster(word: Word, following: Word | None, language: Language) -> tuple[Found | None, int]:
    """What `-abc` means: inline code (`-c CODE`, `-cCODE`), a module, or how many words it spans."""
    text = word.text
    for position, letter in enumerate(text[1:], start=1):
        rest = Word(text[position + 1 :], word.dynamic) if position + 1 < len(text) else None
        if letter in language.code:
            return ("code", rest or following), 0
        if letter in language.module:
            return ("script", rest or following), 0
        if letter in language.values:
            value = rest or following
            if value is not None and value.text.startswith("data:"):
                return ("code", value), 0
            takes_next = rest is None and following is not None and not following.text.startswith("-")
            return None, 2 if takes_next else 1
    return None, 1


def find_program(args: tuple[Word, ...], language: Language) -> Found:
    """What an interpreter invocation runs: inline code, its input, a script (or module), or none."""
    index = 0
    while index < len(args):
        word = args[index]
        following = args[index + 1] if index + 1 < len(args) else None
        if word.text == "--":
            return ("script", following) if following is not None else ("none", None)
        if word.text == "-" or not word.text.startswith("-"):
            if word.text in language.code_subcommands:
                return "code", following
            if word.text in language.script_subcommands:
                index += 1
                continue
            return ("stdin", None) if word.text == "-" or names_stdin(word) else ("script", word)
        reader = _long_option if word.text.startswith("--") else _short_cluster
        found, span = reader(word, following, language)
        if found is not None:
            return found
        index += span
    return "none", None


def _stdin_code(call: Call, *, review_as_shell: bool) -> Iterator[str]:
    """Code the program reads on its input: shell text is reviewed, any other code flags."""
    if call.stdin_text is not None:
        if review_as_shell:
            call.review_script(call.stdin_text)
        else:
            yield f"runs {call.name} code fed on its input, which the check cannot read"
    elif call.piped_in:
        yield f"pipes text into {call.name}, which runs it unseen"
    elif call.args_unknown:
        yield f"{call.name} runs a script named only at run time"


def _script_problem(call: Call, script: Word) -> str | None:
    if script.dynamic or script.pattern:
        return f"runs a {call.name} script named or produced only when it runs ({script.text!r})"
    if _URL.match(script.text):
        return f"runs code from a URL ({script.text!r})"
    return None


def _shell_script(args: tuple[Word, ...]) -> Found:
    """The `-c` command string, the script file, or whether the shell reads its commands from stdin."""
    command_mode = stdin_mode = False
    index = 0
    while index < len(args):
        text = args[index].text
        if text in _SHELL_VALUE_OPTIONS:
            index += 2
            continue
        if text in ("-", "--"):
            index += 1
            break
        if not text.startswith(("-", "+")) or len(text) == 1:
            break
        if not text.startswith("--"):
            command_mode = command_mode or "c" in text[1:]
            stdin_mode = stdin_mode or "s" in text[1:]
        index += 1
    operands = args[index:]
    if command_mode:
        return "code", operands[0] if operands else None
    if stdin_mode or not operands or names_stdin(operands[0]):
        return "stdin", None
    return "script", operands[0]


def shell_rule(call: Call) -> Iterator[str]:
    kind, word = _shell_script(call.args)
    if kind == "code":
        if word is None:
            if call.args_unknown:
                yield f"{call.name} -c runs a command string given only at run time"
        else:
            call.review_script(word.text)
    elif kind == "stdin":
        yield from _stdin_code(call, review_as_shell=True)
    elif word is not None and (problem := _script_problem(call, word)):
        yield problem


def _python_module(args: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]] | None:
    """`python -m MODULE ARGS...` as (MODULE, ARGS)."""
    for index, word in enumerate(args):
        if word.text == "-m" and index + 1 < len(args):
            return args[index + 1].text, args[index + 2 :]
        if word.text.startswith("-m") and len(word.text) > 2:
            return word.text[2:], args[index + 1 :]
        if not word.text.startswith("-"):
            return None
    return None


def _code_options(language: Language) -> str:
    """How inline code is given, for the reason: `-e/-p/--eval/--print`, `eval`."""
    given = [f"-{letter}" for letter in language.code] + [*language.code_long, *language.code_subcommands]
    return "/".join(given)


def interpreter_rule(call: Call) -> Iterator[str]:
    if is_python(call.name) and (module := _python_module(call.args)) is not None:
        if module[0] == "pip":
            yield from pip_rule(replace(call, name="pip", args=module[1]))
        return
    language = _language(call.name)
    kind, word = find_program(call.args, language)
    if kind == "code":
        yield f"runs inline code ({call.name} {_code_options(language)}), which the check cannot read"
    elif kind in ("stdin", "none"):
        if kind == "stdin" or call.stdin_text is not None or call.piped_in or call.args_unknown:
            yield from _stdin_code(call, review_as_shell=False)
    elif word is not None and (problem := _script_problem(call, word)):
        yield problem
    options = [word.text for word in call.args if word.text.startswith("-")]
    if call.name in ("perl", "ruby") and "i" in cluster_letters(options, language.values + language.code):
        yield f"{call.name} -i edits files in place"


def _language(name: str) -> Language:
    """The language of an interpreter named as the rules table matched it: by its whole name, or
    by the part before a dot (`r.`, `rscript.`), as classify.judge looks it up."""
    if is_python(name):
        return LANGUAGES["python"]
    return LANGUAGES.get(name) or LANGUAGES[name.split(".", 1)[0]]


_PWSH_CODE = ("-command", "-encodedcommand", "-ec", "-e")


def powershell_rule(call: Call) -> Iterator[str]:
    """pwsh runs a `.ps1` file or code; its option names match in any case and any abbreviation."""
    for word in call.args:
        lowered = word.text.lower()
        if lowered.startswith("-") and any(name.startswith(lowered) for name in _PWSH_CODE):
            yield f"runs inline {call.name} code, which the check cannot read"
            return
    if not any(word.text.lower().endswith(".ps1") for word in call.args):
        yield from _stdin_code(call, review_as_shell=False)


INTERPRETER_RULES: dict[str, Rule] = {
    **dict.fromkeys(SHELLS, shell_rule),
    **dict.fromkeys(LANGUAGES.keys() - {"python"}, interpreter_rule),
    **dict.fromkeys(("pwsh", "powershell"), powershell_rule),
}
