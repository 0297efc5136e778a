"""Safety rules for git: commands that lose work or rewrite shared history, and every way a git
command line can make git run a program — settings (`-c`, `--config-env`), transports (`ext::`),
and options naming a program (`--upload-pack`, `rebase --exec`, `grep -O` ...).

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from levelcode.tools.command_check.command_call import (
    Call,
    Rule,
    has_long,
    option_values,
    short_letters,
    split_options,
)
from levelcode.tools.command_check.git_settings import config_command_problems, setting_problem
from levelcode.tools.command_check.shell_words import Word

GitCheck = Callable[[Call, tuple[Word, ...]], Iterator[str]]
_DISCARDS = "discards uncommitted changes"


def _git_push(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options, operands = split_options(rest)
    letters = short_letters(options)
    if (
        "f" in letters
        or has_long(options, "--force", shortest=6)
        or any(o.startswith("--force") for o in options)
    ):
        yield "force-pushes, overwriting remote history (git push --force)"
    if any(word.text.startswith("+") for word in operands):
        yield "force-pushes a refspec (git push +ref)"
    if (
        "d" in letters
        or has_long(options, "--delete", shortest=5)
        or any(w.text.startswith(":") for w in operands)
    ):
        yield "deletes remote branches or tags (git push --delete)"
    if has_long(options, "--mirror") or has_long(options, "--prune", shortest=5):
        yield "can delete remote refs (git push --mirror / --prune)"


def _git_reset(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    if any(has_long(options, name) for name in ("--hard", "--merge", "--keep")):
        yield f"{_DISCARDS} (git reset --hard)"


def _git_clean(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    if "n" not in short_letters(options) and not has_long(options, "--dry-run"):
        yield "deletes untracked files (git clean)"


def _may_name_a_file(call: Call, word: Word) -> bool:
    if word.dynamic or word.pattern or word.text in (".", ":/", "*"):
        return True
    path = call.scope.resolve(word)
    return path is None or path.exists()  # no workspace to look in: it may well be a file


def _git_checkout(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options, operands = split_options(rest)
    letters = short_letters(options)
    risky = (
        "--force",
        "--ours",
        "--theirs",
        "--patch",
        "--pathspec-from-file",
        "--merge",
        "--overwrite-ignore",
    )
    if any(word.text == "--" for word in rest) or letters & {"f", "p", "m"}:
        yield f"{_DISCARDS} to files (git checkout -- / -f)"
    elif any(has_long(options, name, shortest=5) for name in risky):
        yield f"{_DISCARDS} to files (git checkout --force / --ours / --theirs)"
    if "B" in letters:
        yield "resets a branch to another commit (git checkout -B)"
    if letters & {"b", "B"} or has_long(options, "--orphan"):
        return
    if len(operands) > 1 or any(_may_name_a_file(call, word) for word in operands):
        yield f"checking out paths {_DISCARDS} to them (git checkout PATH)"


def _git_switch(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    names = ("--discard-changes", "--force", "--force-create")
    if short_letters(options) & {"f", "C"} or any(has_long(options, name) for name in names):
        yield f"{_DISCARDS} or resets a branch (git switch --discard-changes / -f / -C)"


def _git_restore(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    letters = short_letters(options)
    staged_only = ("S" in letters or has_long(options, "--staged")) and not (
        "W" in letters or has_long(options, "--worktree")
    )
    if not staged_only:
        yield f"{_DISCARDS} to files (git restore)"


def _first_operand_in(words: frozenset[str], reason: str) -> GitCheck:
    def check(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
        operands = split_options(rest)[1]
        if operands and operands[0].text in words:
            yield reason

    return check


def _git_branch(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    letters = short_letters(options)
    deleting = "d" in letters or has_long(options, "--delete")
    forced = "f" in letters or has_long(options, "--force")
    if letters & {"D", "M", "C"} or (deleting and forced):
        yield "deletes or overwrites branches (git branch -D / -M / -C)"


def _git_rm(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options = split_options(rest)[0]
    if short_letters(options) & {"r", "f"} and not has_long(options, "--cached"):
        yield "deletes files from the working tree (git rm -r / -f)"


def _git_option(names: tuple[str, ...], reason: str) -> GitCheck:
    def check(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
        options = split_options(rest)[0]
        if any(option.split("=", 1)[0] in names or option.startswith(names) for option in options):
            yield reason

    return check


def _git_worktree(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options, operands = split_options(rest)
    forced = "f" in short_letters(options) or has_long(options, "--force")
    if operands and operands[0].text == "remove" and forced:
        yield "removes a worktree with its uncommitted changes (git worktree remove --force)"


_HISTORY = "rewrites repository history"
GIT_CHECKS: dict[str, GitCheck] = {
    "push": _git_push,
    "reset": _git_reset,
    "clean": _git_clean,
    "checkout": _git_checkout,
    "switch": _git_switch,
    "restore": _git_restore,
    "stash": _first_operand_in(
        frozenset({"drop", "clear"}), "deletes stashed changes (git stash drop/clear)"
    ),
    "branch": _git_branch,
    "rm": _git_rm,
    "filter-branch": lambda _call, _rest: iter((_HISTORY,)),
    "filter-repo": lambda _call, _rest: iter((_HISTORY,)),
    "reflog": _first_operand_in(frozenset({"expire", "delete"}), "deletes reflog entries"),
    "gc": _git_option(("--prune",), "prunes unreachable commits (git gc --prune)"),
    "update-ref": _git_option(("-d", "--stdin"), "deletes or rewrites refs (git update-ref -d)"),
    "submodule": _first_operand_in(frozenset({"deinit"}), "removes a submodule's working tree"),
    "config": lambda _call, rest: config_command_problems(rest),
    "worktree": _git_worktree,
}


def _runs_program(options: tuple[str, ...], reason: str) -> GitCheck:
    """A check that flags when any of `options` (`--upload-pack`, `-u` ...) is given, in any form."""

    def check(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
        given = split_options(rest)[0]
        if any(option.split("=", 1)[0] in options or option.startswith(options) for option in given):
            yield reason

    return check


def _git_clone(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    yield from _runs_program(("--upload-pack", "-u"), _UPLOAD_PACK)(call, rest)
    yield from _runs_program(("--template",), _TEMPLATE)(call, rest)
    for setting in option_values(rest, "-c", "--config"):
        if problem := setting_problem(setting.text, "git clone --config"):
            yield problem


def _git_bisect(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    if rest and rest[0].text == "run":
        call.review_words(rest[1:], False)
    yield from ()


def _git_maintenance(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    if rest and rest[0].text in ("start", "register"):
        yield "schedules git to run in the background (git maintenance start)"


def _always(reason: str) -> GitCheck:
    return lambda _call, _rest: iter((reason,))


_UPLOAD_PACK = "names the program git runs to fetch (--upload-pack)"
_TEMPLATE = "copies hooks from a template directory, which then run (--template)"
_SERVES = "runs a git server, a browser or a bridge to another system"
RUNS_PROGRAM_CHECKS: dict[str, GitCheck] = {
    "clone": _git_clone,
    "init": _runs_program(("--template",), _TEMPLATE),
    **dict.fromkeys(("fetch", "pull", "ls-remote"), _runs_program(("--upload-pack",), _UPLOAD_PACK)),
    "push": _runs_program(
        ("--receive-pack", "--exec"), "names the program git runs to push (--receive-pack / --exec)"
    ),
    "archive": _runs_program(("--exec",), "names the program git runs for a remote archive (--exec)"),
    "rebase": _runs_program(("-x", "--exec"), "runs a command after each commit (git rebase --exec)"),
    "grep": _runs_program(("-O", "--open-files-in-pager"), "opens the matches with a program (git grep -O)"),
    "difftool": _runs_program(("-x", "--extcmd"), "runs the given program on each diff (git difftool -x)"),
    "apply": _runs_program(("--unsafe-paths",), "lets a patch write outside the repository (--unsafe-paths)"),
    "bisect": _git_bisect,
    "maintenance": _git_maintenance,
    "submodule": _first_operand_in(
        frozenset({"foreach"}), "runs a command in every submodule (git submodule foreach)"
    ),
    "hook": _always("runs a repository hook (git hook run)"),
    "send-email": _always("sends email, and may run the program given as its mail server (git send-email)"),
    **dict.fromkeys(
        ("credential", "credential-store", "credential-cache"),
        _always("reads or stores credentials (git credential)"),
    ),
    **dict.fromkeys(
        ("daemon", "instaweb", "web--browse", "cvsserver", "http-backend", "imap-send"), _always(_SERVES)
    ),
}


@dataclass
class _GitLine:
    """A git command line taken apart: its settings, what its global options do, the subcommand."""

    settings: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])  # (how, KEY=VALUE)
    problems: list[str] = field(default_factory=list[str])
    subcommand: str = ""
    rest: tuple[Word, ...] = ()


_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
_VALUE_OPTIONS |= {"--super-prefix", "--attr-source"}
_OTHER_REPOSITORY = "points git at another repository or work tree, whose settings can run commands"


def _git_line(args: tuple[Word, ...]) -> _GitLine:
    line = _GitLine()
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        text = args[index].text
        name, given, attached = text.partition("=")
        value = attached if given else (args[index + 1].text if index + 1 < len(args) else "")
        if name in ("-c", "--config-env"):
            line.settings.append((f"git {name}", value))
        elif name in ("--git-dir", "--work-tree"):
            line.problems.append(f"{_OTHER_REPOSITORY} ({name})")
        elif name == "--exec-path" and given:
            line.problems.append(f"runs git's own programs from another directory ({text})")
        index += 2 if name in _VALUE_OPTIONS and not given else 1
    if index < len(args):
        line.subcommand, line.rest = args[index].text, args[index + 1 :]
    return line


def git_rule(call: Call) -> Iterator[str]:
    line = _git_line(call.args)
    yield from line.problems
    for how, assignment in line.settings:
        if problem := setting_problem(assignment, how):
            yield problem
    for word in call.args:
        if "ext::" in word.text.lower():
            yield f"uses git's ext:: transport, which runs a command ({word.text!r})"
    for checks in (GIT_CHECKS, RUNS_PROGRAM_CHECKS):
        check = checks.get(line.subcommand)
        if check is not None:
            yield from check(call, line.rest)


GIT_RULES: dict[str, Rule] = {"git": git_rule}
