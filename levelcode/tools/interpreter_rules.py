"""Safety rules for programs that run code they are handed: shells, script interpreters, and the
downloaders whose output so often ends up in one.

Pure. A shell's `-c` string and here-documents are reviewed as commands in their own right;
interpreter code given inline is searched for anything that runs commands, deletes or reaches out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from levelcode.tools.command_rules import Call, Rule, option_value, path_checks
from levelcode.tools.program_rules import pip_rule
from levelcode.tools.shell_words import Word

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash"})
INTERPRETERS = frozenset({"node", "nodejs", "perl", "ruby", "php", "deno", "lua", "rscript", "osascript"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-download"})
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_CODE_OPTIONS = {"node": "ep", "nodejs": "ep", "perl": "eE", "ruby": "e", "php": "r", "lua": "e"}
_CODE_OPTIONS |= {"rscript": "e", "osascript": "e", "deno": "", "python": "c"}
_RISKY_CODE = re.compile(
    r"system|popen|subprocess|spawn|exec|shutil|rmtree|remove|unlink|rmdir|kill|chmod|chown|"
    r"child_process|rimraf|rmSync|fs\.rm|writeFile|eval|__import__|import\s+os|from\s+os|urlopen|"
    r"urllib|requests|http|socket|fetch|shell|open\s*\(|`",
    re.IGNORECASE,
)


def is_python(name: str) -> bool:
    return _PYTHON.fullmatch(name) is not None


def runs_code(name: str) -> bool:
    """Whether `name` runs code it is handed (what a download piped into it would become)."""
    return name in SHELLS or name in INTERPRETERS or is_python(name) or name in ("eval", "source", ".")


def _shell_script(args: tuple[Word, ...]) -> tuple[Word | None, bool]:
    """The `-c` command string, if any, and whether the shell reads its commands from stdin."""
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
        return (operands[0] if operands else None), False
    return None, stdin_mode or not operands


def shell_rule(call: Call) -> Iterator[str]:
    script, reads_stdin = _shell_script(call.args)
    if script is not None:
        call.review_script(script.text)
    elif reads_stdin:
        yield from _stdin_code(call, review_as_shell=True)


def _stdin_code(call: Call, *, review_as_shell: bool) -> Iterator[str]:
    if call.stdin_text is not None:
        if review_as_shell:
            call.review_script(call.stdin_text)
        elif _RISKY_CODE.search(call.stdin_text):
            yield f"{call.name} code fed on stdin runs commands, deletes files or reaches the network"
    elif call.piped_in:
        yield f"pipes text into {call.name}, which runs it unseen"
    elif call.args_unknown:
        yield f"{call.name} runs a script named only at run time"


def _inline_code(call: Call, letters: str) -> Word | bool | None:
    """Word: the code of `-c CODE` / `-e CODE` / `-eCODE`; True: the program comes from stdin;
    None: a script file runs (the workspace's own code, like `python script.py`)."""
    args = call.args
    for index, word in enumerate(args):
        text = word.text
        following = args[index + 1] if index + 1 < len(args) else None
        if text == "-":
            return True
        if not text.startswith("-"):
            return None
        if text in ("--eval", "--print", "--command"):
            return following
        if text.startswith("--"):
            continue
        for position, letter in enumerate(text[1:], start=1):
            if letter in letters:
                rest = text[position + 1 :]
                return Word(rest, word.dynamic, word.pattern, word.quoted) if rest else following
    return True


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


def interpreter_rule(call: Call) -> Iterator[str]:
    if is_python(call.name) and (module := _python_module(call.args)) is not None:
        if module[0] == "pip":
            yield from pip_rule(replace(call, name="pip", args=module[1]))
        return
    name = "python" if is_python(call.name) else call.name
    code: Word | bool | None
    if name == "deno":
        code = call.args[1] if len(call.args) > 1 and call.args[0].text == "eval" else None
    else:
        code = _inline_code(call, _CODE_OPTIONS.get(name, "e"))
    if code is True:
        yield from _stdin_code(call, review_as_shell=False)
    elif isinstance(code, Word) and (code.dynamic or _RISKY_CODE.search(code.text)):
        yield f"inline {call.name} code runs commands, deletes files or reaches the network"
    if name in ("perl", "ruby") and any(
        word.text.startswith("-") and "i" in word.text[1:] for word in call.args
    ):
        yield f"{call.name} -i edits files in place"


_AWK_RUNS_OR_WRITES = re.compile(r"system\s*\(|\|\s*\"|\"\s*\||\|&|>\s*\"|>\s*\$")


def awk_rule(call: Call) -> Iterator[str]:
    """awk programs can run commands (system(), "cmd" | getline, print | "cmd") and write files."""
    if option_value(call.args, "-f", "--file") is not None:
        return  # a program file of the workspace's own, like `python script.py`
    index = 0
    while index < len(call.args) and call.args[index].text.startswith("-"):
        index += 2 if call.args[index].text in ("-F", "-v") else 1
    if index < len(call.args):
        program = call.args[index]
        if program.dynamic or _AWK_RUNS_OR_WRITES.search(program.text):
            yield f"the {call.name} program runs commands or writes files"


_UPLOAD = re.compile(r"^@|^-d@|=@|=<")


def downloader_rule(call: Call) -> Iterator[str]:
    texts = [word.text for word in call.args]
    if any(text in ("-T", "--upload-file", "--post-file", "--body-file") for text in texts) or any(
        _UPLOAD.search(text) for text in texts
    ):
        yield f"uploads a local file ({call.name})"
    outputs = [
        option_value(call.args, "-o", "--output"),
        option_value(call.args, None, "--output-dir"),
        option_value(call.args, "-O", "--output-document") if call.name == "wget" else None,
        option_value(call.args, "-P", "--directory-prefix") if call.name == "wget" else None,
    ]
    yield from path_checks("writes to", call, [word for word in outputs if word and word.text != "-"])


INTERPRETER_RULES: dict[str, Rule] = {
    **dict.fromkeys(SHELLS, shell_rule),
    **dict.fromkeys(INTERPRETERS, interpreter_rule),
    **dict.fromkeys(DOWNLOADERS, downloader_rule),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), awk_rule),
}
