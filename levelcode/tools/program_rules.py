"""Safety rules for programs with subcommands: git, docker/podman, package managers, cloud CLIs.

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from levelcode.tools.command_rules import Call, Rule, has_long, option_value, short_letters, split_options
from levelcode.tools.shell_words import Word

GitCheck = Callable[[Call, tuple[Word, ...]], Iterator[str]]
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_GIT_VALUE_OPTIONS |= {"--config-env", "--super-prefix", "--attr-source"}
_GIT_RUNS_COMMANDS = re.compile(
    r"alias|hook|command|pager|editor|fsmonitor|proxy|external|textconv|filter|helper|program|askpass|exec",
    re.IGNORECASE,
)
_DISCARDS = "discards uncommitted changes"


def _git_split(args: tuple[Word, ...]) -> tuple[list[str], str, tuple[Word, ...]]:
    """git's global `-c key=value` settings, its subcommand, and the subcommand's arguments."""
    configs: list[str] = []
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        text = args[index].text
        if text in _GIT_VALUE_OPTIONS and index + 1 < len(args):
            if text == "-c":
                configs.append(args[index + 1].text)
            index += 1
        index += 1
    if index >= len(args):
        return configs, "", ()
    return configs, args[index].text, args[index + 1 :]


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


def _git_config(call: Call, rest: tuple[Word, ...]) -> Iterator[str]:
    options, operands = split_options(rest)
    reading = {"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"}
    if reading & {*options, *(word.text for word in operands[:1])}:
        return
    if any(has_long(options, name) for name in ("--global", "--system", "--file")):
        yield "changes git settings outside this repository (git config --global)"
    if any(_GIT_RUNS_COMMANDS.search(word.text) for word in operands[:2]):
        yield "sets a git setting that makes git run a command"


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
    "config": _git_config,
    "worktree": _git_worktree,
}


def git_rule(call: Call) -> Iterator[str]:
    configs, subcommand, rest = _git_split(call.args)
    for setting in configs:
        if _GIT_RUNS_COMMANDS.search(setting.split("=", 1)[0]):
            yield f"git -c {setting.split('=', 1)[0]} can make git run a command"
    check = GIT_CHECKS.get(subcommand)
    if check is not None:
        yield from check(call, rest)


_DOCKER_VALUE_OPTIONS = frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"})
_HOST_NAMESPACES = re.compile(r"--(pid|net|network|ipc|uts|userns|cgroupns)(=|$)")
_DOCKER_REMOVALS = frozenset({"rm", "rmi", "kill", "stop", "prune", "remove", "down"})


def _mount_source(option: str, value: str) -> str | None:
    if option in ("-v", "--volume"):
        return value.split(":", 1)[0] if ":" in value else None
    match = re.search(r"(?:^|,)(?:source|src)=([^,]*)", value)
    return match.group(1) if match and "type=bind" in value else None


def _docker_run_checks(call: Call, args: tuple[Word, ...]) -> Iterator[str]:
    for index, word in enumerate(args):
        text = word.text
        value = args[index + 1] if index + 1 < len(args) else Word("")
        if text == "--privileged" or text.startswith("--privileged="):
            yield "runs a privileged container (docker --privileged)"
        if _HOST_NAMESPACES.match(text) and "host" in (text.split("=", 1)[1:] or [value.text]):
            yield "shares the host's namespaces with the container (--pid/--network=host)"
        if text.split("=", 1)[0] in ("--cap-add", "--security-opt", "--device"):
            yield "widens what the container may do on the host (--cap-add / --security-opt / --device)"
        option, _, attached = text.partition("=")
        if option in ("-v", "--volume", "--mount"):
            source = _mount_source(option, attached or value.text)
            if source and source[:1] in "/~.$":
                mount = Word(source, word.dynamic or value.dynamic)
                if problem := call.scope.write_problem(mount):
                    yield f"mounts {problem} into a container"


def docker_rule(call: Call) -> Iterator[str]:
    args = call.args
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        index += 2 if args[index].text in _DOCKER_VALUE_OPTIONS else 1
    words = [word.text for word in args[index : index + 3]]
    if words[:1] in (["container"], ["image"], ["volume"], ["network"], ["system"], ["builder"], ["compose"]):
        words = words[1:]
        index += 1
    if words and words[0] in ("run", "create", "exec"):
        yield from _docker_run_checks(call, args[index + 1 :])
    elif words and words[0] in _DOCKER_REMOVALS:
        yield f"removes or stops containers, images or volumes ({call.name} {words[0]})"


_PACKAGE_READS = frozenset({"search", "list", "show", "info", "policy", "madison", "depends", "rdepends"})
_PACKAGE_READS |= {"query", "help", "--help", "--version", "-v", "-l", "-L", "-s", "outdated", "doctor"}
_INSTALL_WORDS = frozenset({"install", "i", "in", "add", "remove", "rm", "uninstall", "un", "r", "update"})
_INSTALL_WORDS |= {"up", "upgrade", "link", "ln", "unlink"}


def system_packages_rule(call: Call) -> Iterator[str]:
    first = call.args[0].text if call.args else ""
    if first in _PACKAGE_READS or first.startswith(("-Q", "-q", "-Ss", "-Si")):
        return
    yield f"installs or removes system packages ({call.name})"


def pip_rule(call: Call) -> Iterator[str]:
    operands = split_options(call.args)[1]
    if operands and operands[0].text in ("install", "uninstall"):
        yield "installs or removes Python packages (runs their build code; the environment may be global)"


def js_packages_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    subcommand = operands[0].text if operands else ""
    global_flag = (
        "g" in short_letters(options) or has_long(options, "--global") or "--location=global" in options
    )
    if call.name == "yarn" and subcommand == "global":
        yield "installs or removes packages globally (yarn global)"
    elif global_flag and subcommand in _INSTALL_WORDS:
        yield f"installs or removes packages globally ({call.name} -g)"


def subcommands_rule(subcommands: frozenset[str], reason: str) -> Rule:
    def rule(call: Call) -> Iterator[str]:
        operands = split_options(call.args)[1]
        words = [word.text for word in operands[:2]]
        if words and (words[0] in subcommands or " ".join(words) in subcommands):
            yield f"{reason} ({call.name} {' '.join(words)})"

    return rule


def uv_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    words = [word.text for word in operands[:2]]
    if words[:2] in (["tool", "install"], ["tool", "uninstall"]):
        yield "installs or removes a global tool (uv tool install)"
    system = ("--system", "--break-system-packages", "--target", "--prefix")
    if words[:1] == ["pip"] and any(has_long(options, name) for name in system):
        yield "installs Python packages outside a project environment (uv pip --system)"


def gh_rule(call: Call) -> Iterator[str]:
    texts = [word.text for word in call.args]
    if "delete" in texts:
        yield "deletes something on GitHub (gh ... delete)"
    method = option_value(call.args, "-X", "--method")
    if texts[:1] == ["api"] and method is not None and method.text.upper() != "GET":
        yield f"changes something on GitHub (gh api -X {method.text})"


_INSTALLS = "installs or removes programs outside the workspace"
PROGRAM_RULES: dict[str, Rule] = {
    "git": git_rule,
    **dict.fromkeys(("docker", "podman", "nerdctl"), docker_rule),
    **dict.fromkeys(
        ("apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "rpm", "pacman", "zypper", "apk"),
        system_packages_rule,
    ),
    **dict.fromkeys(
        ("snap", "flatpak", "brew", "port", "emerge", "nix-env", "pkg", "opkg", "choco", "winget"),
        system_packages_rule,
    ),
    **dict.fromkeys(("pip", "pip3"), pip_rule),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), js_packages_rule),
    "uv": uv_rule,
    "gem": subcommands_rule(frozenset({"install", "uninstall", "update"}), _INSTALLS),
    "cargo": subcommands_rule(frozenset({"install", "uninstall"}), _INSTALLS),
    "go": subcommands_rule(frozenset({"install"}), _INSTALLS),
    "pipx": subcommands_rule(
        frozenset({"install", "uninstall", "inject", "upgrade", "reinstall-all"}), _INSTALLS
    ),
    **dict.fromkeys(
        ("conda", "mamba", "micromamba"),
        subcommands_rule(
            frozenset({"install", "remove", "uninstall", "update", "env remove"}),
            "changes a conda environment",
        ),
    ),
    "gh": gh_rule,
    "kubectl": subcommands_rule(
        frozenset({"delete", "drain", "cordon", "taint", "replace", "scale", "patch"}),
        "changes or deletes cluster resources",
    ),
    "helm": subcommands_rule(
        frozenset({"uninstall", "delete", "rollback"}), "removes or rolls back a release"
    ),
    **dict.fromkeys(
        ("terraform", "tofu"),
        subcommands_rule(
            frozenset({"apply", "destroy", "import", "taint", "state"}), "changes real infrastructure"
        ),
    ),
}
