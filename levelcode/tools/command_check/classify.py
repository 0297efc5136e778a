"""Flags shell commands that could do damage, before run_command or a background job runs them.

Load-bearing direction: a dangerous command classified safe is the failure that matters;
over-flagging only costs the user a question. So anything the parser cannot follow, a program
name computed at run time, and any rule that is unsure all flag. Pure apart from stat-like path
resolution: it never runs or opens anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from levelcode.tools.command_check.command_call import Call, Rule, all_of
from levelcode.tools.command_check.command_paths import PathScope
from levelcode.tools.command_check.command_rules import FILE_AND_SYSTEM_RULES, OUTLIVES_REASON
from levelcode.tools.command_check.command_variables import variable_problem
from levelcode.tools.command_check.command_wrappers import (
    ELEVATORS,
    HEADER_KEYWORDS,
    KEYWORDS,
    RUNNERS,
    SWITCHED_APPLETS,
    WRAPPERS,
    filled_at_run_time,
    peel_options,
    replace_string,
)
from levelcode.tools.command_check.embedded_command_rules import EMBEDDED_COMMAND_RULES
from levelcode.tools.command_check.git_rules import GIT_RULES
from levelcode.tools.command_check.interpreter_rules import (
    INTERPRETER_RULES,
    interpreter_rule,
    is_python,
    runs_code,
)
from levelcode.tools.command_check.network_rules import (
    DOWNLOADERS,
    ENVIRONMENT,
    NETWORK_RULES,
    NETWORK_TOOLS,
    reads_environment,
)
from levelcode.tools.command_check.package_rules import PACKAGE_RULES
from levelcode.tools.command_check.program_rules import PROGRAM_RULES
from levelcode.tools.command_check.script_language_rules import SCRIPT_LANGUAGE_RULES
from levelcode.tools.command_check.shell_words import Redirect, SimpleCommand, Word, parse_script


@dataclass(frozen=True)
class CommandVerdict:
    flagged: bool
    reasons: tuple[str, ...]  # why, in words a user can check against the command; empty if not flagged


MAX_DEPTH = 8  # nested $(...), sh -c, eval ...
MAX_COMMAND_CHARS = 100_000
LOCAL_PROGRAM = "./"  # stands for any program run by a relative path, e.g. ./install.sh


def _merged(*tables: dict[str, Rule]) -> dict[str, Rule]:
    """One rule per program; a program several tables know (bun: packages and inline code) gets all."""
    found: dict[str, list[Rule]] = {}
    for table in tables:
        for name, rule in table.items():
            found.setdefault(name, []).append(rule)
    return {name: rules[0] if len(rules) == 1 else all_of(*rules) for name, rules in found.items()}


RULES = _merged(
    FILE_AND_SYSTEM_RULES,
    PROGRAM_RULES,
    PACKAGE_RULES,
    GIT_RULES,
    INTERPRETER_RULES,
    SCRIPT_LANGUAGE_RULES,
    NETWORK_RULES,
    EMBEDDED_COMMAND_RULES,
)
ENVIRONMENT_SENT = (
    "sends the environment, which holds tokens and keys, to the network "
    "(env, printenv, set or /proc/*/environ into curl, wget, nc ...)"
)
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^]]*\])?\+?=")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FD_DUPLICATION = re.compile(r"[0-9]*-?")
_ENVIRON_FILE = re.compile(r"/proc/[^/]+/environ")
_RAW_DEVICES = re.compile(
    r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper/|mem|kmem|port|tcp/|udp/)"
)
_SECRETS = re.compile(
    r"(^|[/~=])\.(ssh|gnupg|aws|azure|kube|netrc|git-credentials|pypirc|docker/config)(\b|/|$)|"
    r"\bid_(rsa|dsa|ecdsa|ed25519)\b|/etc/(shadow|gshadow|sudoers)"
)


def program_name(text: str) -> str:
    """What a command word runs, as the rules know it: `/usr/bin/RM` -> `rm`."""
    return (text.rstrip("/").rsplit("/", 1)[-1] or text).lower()


def classify_command(
    command: str, workspace: Path | None = None, *, extra_roots: Sequence[Path] = ()
) -> CommandVerdict:
    """Whether `command` (a bash command line run in `workspace`) needs a human look, and why.

    Without a workspace every absolute path and every `..` counts as outside it.
    """
    review = _Review(PathScope.for_workspace(workspace, tuple(extra_roots)))
    try:
        review.script(command, 0)
    except RecursionError:
        review.reasons.append("is nested too deeply to check")
    reasons = tuple(dict.fromkeys(_shortened(reason) for reason in review.reasons))
    return CommandVerdict(bool(reasons), reasons)


def _shortened(reason: str, limit: int = 200) -> str:
    """Reasons quote the command; a huge word must not turn the approval card into a wall."""
    return reason if len(reason) <= limit else reason[: limit - 5] + " ...)"


class _Review:
    """One classification: walks every command the line can run, collecting reasons."""

    def __init__(self, scope: PathScope) -> None:
        self.scope = scope
        self.reasons: list[str] = []

    def script(self, source: str, depth: int) -> set[str]:
        """Review shell source; returns the program names it runs, at any depth."""
        if depth > MAX_DEPTH:
            self.reasons.append("is nested too deeply to check")
            return set()
        if len(source) > MAX_COMMAND_CHARS:
            self.reasons.append("is too long to check")
            return set()
        if _CONTROL.search(source):
            self.reasons.append("contains control characters, which can hide what runs")
        parsed = parse_script(source)
        self.reasons += [f"cannot be checked safely: {problem}" for problem in parsed.problems]
        names: set[str] = set()
        for inner in parsed.substitutions:
            inner_names = self.script(inner, depth + 1)
            if inner_names & DOWNLOADERS:
                self.reasons.append("runs a download inside $(...), `...` or <(...) (as in bash <(curl ...))")
            if inner in parsed.fed and any(runs_code(name) for name in inner_names):
                self.reasons.append("feeds output into a shell or interpreter through >(...)")
            names |= inner_names
        for command in parsed.commands:
            names |= self.command(command, depth)
        if names & DOWNLOADERS and any(runs_code(name) or name == LOCAL_PROGRAM for name in names):
            self.reasons.append("downloads something and runs a shell or interpreter (as in curl ... | sh)")
        if ENVIRONMENT in names and names & NETWORK_TOOLS:
            self.reasons.append(ENVIRONMENT_SENT)
        return names

    def command(self, command: SimpleCommand, depth: int) -> set[str]:
        for redirect in command.redirects:
            self.redirect(redirect)
        names: set[str] = set()
        for word in [*command.words, *(redirect.target for redirect in command.redirects)]:
            if _SECRETS.search(word.text):
                self.reasons.append(f"touches credentials ({word.text!r})")
            if _RAW_DEVICES.match(word.text):
                self.reasons.append(f"uses a disk, memory or network device directly ({word.text!r})")
            if _ENVIRON_FILE.search(word.text):
                names.add(ENVIRONMENT)
        stdin = _Stdin(command)
        words = self.assignments(tuple(command.words))
        if words:
            names |= self.invocation(words, depth, stdin=stdin)
        return names

    def redirect(self, redirect: Redirect) -> None:
        if redirect.op in ("<", "<<", "<<-", "<<<", "<&"):
            return
        if redirect.op == ">&" and _FD_DUPLICATION.fullmatch(redirect.target.text):
            return
        if problem := self.scope.write_problem(redirect.target):
            self.reasons.append(f"redirects output to {problem}")

    def assignments(self, words: tuple[Word, ...]) -> tuple[Word, ...]:
        """The words after leading `NAME=value` assignments, checking what each one sets."""
        index = 0
        while index < len(words) and (match := _ASSIGNMENT.match(words[index].text)):
            self.variable(match.group(1))
            index += 1
        return words[index:]

    def variable(self, name: str) -> None:
        if problem := variable_problem(name):
            self.reasons.append(problem)

    def invocation(
        self,
        words: tuple[Word, ...],
        depth: int,
        *,
        stdin: _Stdin | None = None,
        args_unknown: bool = False,
    ) -> set[str]:
        """Review one command; returns the program names it runs, at any depth."""
        names: set[str] = set()
        unwrapped = self.unwrap(words, depth, names)
        if unwrapped is None:
            return names
        words, unknown = unwrapped
        name = program_name(words[0].text)
        names.add(name)
        if "/" in words[0].text and not words[0].text.startswith("/"):
            names.add(LOCAL_PROGRAM)
        call = Call(
            name=name,
            args=words[1:],
            scope=self.scope,
            args_unknown=args_unknown or unknown,
            piped_in=stdin is not None and stdin.piped,
            stdin_text=stdin.text if stdin else None,
            stdin_file=stdin.file if stdin else None,
            review_words=lambda inner, unknown: names.update(
                self.invocation(inner, depth + 1, args_unknown=unknown)
            ),
            review_script=lambda source: names.update(self.script(source, depth + 1)),
        )
        self.judge(call)
        if reads_environment(call):
            names.add(ENVIRONMENT)
        return names

    def unwrap(
        self, words: tuple[Word, ...], depth: int, names: set[str]
    ) -> tuple[tuple[Word, ...], bool] | None:
        """The command left once assignments, keywords, wrappers and privilege tools are peeled
        off, and whether its arguments arrive at run time; None when nothing knowable is left."""
        args_unknown = False
        while words := self.assignments(words):  # also after a wrapper: `command FOO=1 cmd`
            head = words[0]
            if head.dynamic or head.pattern or "{}" in head.text:  # `{}`: filled in by xargs or find
                self.reasons.append(f"the program to run is only known when the command runs ({head.text!r})")
                return None
            peeled = self.peel(program_name(head.text), words, depth, names)
            if peeled is None:
                return words, args_unknown
            words, unknown = peeled
            args_unknown = args_unknown or unknown
        return None

    def judge(self, call: Call) -> None:
        self.builtin(call)
        rule = RULES.get(call.name) or RULES.get(call.name.split(".", 1)[0])
        if rule is None and is_python(call.name):
            rule = interpreter_rule
        if rule is not None:
            self.reasons += list(rule(call))
        if call.name in RUNNERS:
            self.runner(call, RUNNERS[call.name])

    def peel(
        self, name: str, words: tuple[Word, ...], depth: int, names: set[str]
    ) -> tuple[tuple[Word, ...], bool] | None:
        """The command a keyword, wrapper or privilege tool runs; None when `name` is none of those."""
        if name in KEYWORDS:
            return words[1:], False
        if name in HEADER_KEYWORDS or name == "function":
            if name == "function":
                self.reasons.append("defines a shell function")
            return (), False
        if name in ELEVATORS:
            self.reasons.append(f"runs with elevated privileges ({name})")
            return self.command_string(words, ELEVATORS[name], depth, names), False
        if name in WRAPPERS:
            return self.wrapper(name, words, depth, names)
        if name == "env":
            rest = self.env(words, depth, names)
            if not rest and not any(word.text.startswith(("-S", "--split-string")) for word in words):
                names.add(ENVIRONMENT)  # env without a command prints the environment
            return rest, False
        if name == "watch":
            rest = peel_options(words, frozenset({"-n", "--interval", "-q", "--equexit"}), 0)
            names.update(self.script(" ".join(word.text for word in rest), depth + 1))
            return (), False
        return None

    def wrapper(
        self, name: str, words: tuple[Word, ...], depth: int, names: set[str]
    ) -> tuple[tuple[Word, ...], bool]:
        if name == "setsid":
            self.reasons.append(OUTLIVES_REASON)
        value_options, positionals, unknown = WRAPPERS[name]
        rest = peel_options(words, value_options, positionals)
        if name == "flock" and len(rest) > 1 and rest[0].text in ("-c", "--command"):
            names.update(self.script(rest[1].text, depth + 1))
            return (), False
        if name in SWITCHED_APPLETS and len(words) > 1 and words[1].text.startswith("--"):
            self.reasons.append(f"{name} {words[1].text} changes programs on the system, it runs no applet")
        if name == "parallel" and (not rest or rest[0].text.startswith(":::")):
            self.reasons.append("runs each input line or argument as a command (parallel without a command)")
        if (mark := replace_string(name, words)) is not None:
            rest = filled_at_run_time(rest, mark)
        return rest, unknown

    def command_string(
        self, words: tuple[Word, ...], spec: tuple[frozenset[str], int], depth: int, names: set[str]
    ) -> tuple[Word, ...]:
        """`su -c STRING`, `flock FILE -c STRING`: review STRING; else the command after the options."""
        command = _option_after(words, ("-c", "--command"))
        if command is not None:
            names.update(self.script(command.text, depth + 1))
            return ()
        return peel_options(words, *spec)

    def env(self, words: tuple[Word, ...], depth: int, names: set[str]) -> tuple[Word, ...]:
        index = 1
        while index < len(words):
            text = words[index].text
            if text in ("-S", "--split-string") or text.startswith(("-S", "--split-string=")):
                inline = text.split("=", 1)[1] if text.startswith("--") else text[2:]
                given = inline or (words[index + 1].text if index + 1 < len(words) else "")
                rest = words[index + (1 if inline else 2) :]
                names.update(self.script(" ".join([given, *(word.text for word in rest)]), depth + 1))
                return ()
            if text in ("-C", "--chdir") or text.startswith("--chdir="):
                self.scope = replace(self.scope, lost=True)
            if text in ("-u", "--unset", "-C", "--chdir"):
                index += 2
            elif text.startswith("-") and text != "-":
                index += 1
            elif match := _ASSIGNMENT.match(text):
                self.variable(match.group(1))
                index += 1
            else:
                break
        return words[index:]

    def builtin(self, call: Call) -> None:
        """The shell builtins that change how later commands are judged."""
        if call.name in ("cd", "pushd"):
            operands = [word for word in call.args if not word.text.startswith("-") or word.text == "-"]
            self.scope = self.scope.moved_to(operands[0] if operands else None)
        elif call.name == "popd":
            self.scope = replace(self.scope, lost=True)
        elif call.name in ("export", "declare", "typeset", "readonly", "local"):
            for word in call.args:
                if match := _ASSIGNMENT.match(word.text):
                    self.variable(match.group(1))

    def runner(self, call: Call, subcommands: frozenset[str]) -> None:
        """`uv run CMD`, `npx CMD` ...: review CMD. Where the first operand may be an option's value
        (`uv run --with rich CMD`), review from the next operand as well."""
        args = call.args
        if subcommands:
            if not args or args[0].text not in subcommands:
                return
            args = args[1:]
        if "--" in (texts := [word.text for word in args]):
            call.review_words(args[texts.index("--") + 1 :], call.args_unknown)
            return
        starts = [index for index, word in enumerate(args) if not word.text.startswith("-")]
        for position, start in enumerate(starts[:2]):
            if position == 0 or (starts[0] > 0 and args[starts[0] - 1].text.startswith("-")):
                call.review_words(args[start:], call.args_unknown)


def _option_after(words: tuple[Word, ...], options: tuple[str, ...]) -> Word | None:
    for index, word in enumerate(words):
        if word.text in options and index + 1 < len(words):
            return words[index + 1]
        if word.text.startswith("--command="):
            return Word(word.text.split("=", 1)[1], word.dynamic)
    return None


class _Stdin:
    """Where a command's input comes from: the previous pipeline stage, a here-document or
    here-string (its text), or a file (`< FILE`)."""

    def __init__(self, command: SimpleCommand) -> None:
        self.piped = command.piped_in
        self.text: str | None = None
        self.file: Word | None = None
        for redirect in command.redirects:
            if redirect.op in ("<<", "<<-", "<<<"):
                self.text = _stdin_text(redirect)
            elif redirect.op in ("<", "<>") and redirect.fd in ("", "0"):
                self.file = redirect.target


def _stdin_text(redirect: Redirect) -> str:
    return redirect.heredoc if redirect.heredoc is not None else redirect.target.text
