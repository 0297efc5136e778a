"""Safety rules for package managers: installs that reach outside the project (global or system
packages), installs from a URL, a repository or a folder outside the workspace (whose build and
install scripts run), other package indexes, and changes to the managers' own settings.

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from levelcode.tools.command_check.command_call import (
    Call,
    Rule,
    all_of,
    has_long,
    option_values,
    short_letters,
    split_options,
    subcommands_rule,
)
from levelcode.tools.command_check.shell_words import Word

_PACKAGE_READS = frozenset({"search", "list", "show", "info", "policy", "madison", "depends", "rdepends"})
_PACKAGE_READS |= {"query", "help", "--help", "--version", "-v", "-l", "-L", "-s", "outdated", "doctor"}
_INSTALL_WORDS = frozenset({"install", "i", "in", "add", "remove", "rm", "uninstall", "un", "r", "update"})
_INSTALL_WORDS |= {"up", "upgrade", "link", "ln", "unlink"}
_JS_ADDS = frozenset({"install", "i", "in", "isntall", "add", "update", "up", "upgrade"})
_REMOTE = re.compile(
    r"^(git\+|hg\+|svn\+|bzr\+|[a-z][a-z0-9+.-]*://|git@|github:|gitlab:|bitbucket:|gist:)|"
    r"@\s*(git\+|[a-z][a-z0-9+.-]*://)",
    re.IGNORECASE,
)
_GITHUB_SHORTHAND = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+(#.*)?")  # npm: user/repo
_PYTHON_INDEXES = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index"})
_PYTHON_INDEXES |= {"--default-index"}
_JS_INDEXES = frozenset({"--registry"})


def source_problem(call: Call, word: Word, *, shorthand: bool = False) -> str | None:
    """Why installing `word` needs a look: it names a URL, a repository or a folder outside the
    workspace, whose build and install scripts would run. None for a registry package name."""
    text = word.text
    if word.dynamic:
        return f"installs from a source known only when it runs ({text!r})"
    if _REMOTE.search(text) or (shorthand and _GITHUB_SHORTHAND.fullmatch(text)):
        return f"installs from a URL or a repository, whose build and install scripts run ({text!r})"
    path = text.removeprefix("file:")
    if path.startswith((".", "/", "~")) and (problem := call.scope.outside_problem(Word(path))):
        return f"installs from {problem}, whose build and install scripts run"
    return None


def _sources(call: Call, words: Iterable[Word], *, shorthand: bool = False) -> Iterator[str]:
    for word in words:
        if problem := source_problem(call, word, shorthand=shorthand):
            yield problem


def _indexes(options: list[str], names: frozenset[str], program: str) -> Iterator[str]:
    given = sorted({option.split("=", 1)[0] for option in options} & names)
    if given:
        yield f"installs from a package index other than the usual one ({program} {given[0]})"


def _settings_change(program: str, words: list[str]) -> Iterator[str]:
    if words[:2] == ["config", "set"] or words[:1] == ["set"]:
        yield f"changes {program}'s own settings, which can change what its installs and scripts run"


def system_packages_rule(call: Call) -> Iterator[str]:
    first = call.args[0].text if call.args else ""
    if first in _PACKAGE_READS or first.startswith(("-Q", "-q", "-Ss", "-Si")):
        return
    yield f"installs or removes system packages ({call.name})"


def pip_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    words = [word.text for word in operands]
    if words[:1] in (["install"], ["uninstall"]):
        yield "installs or removes Python packages (runs their build code; the environment may be global)"
    if words[:1] in (["install"], ["download"], ["wheel"]):
        yield from _indexes(options, _PYTHON_INDEXES, call.name)
        yield from _sources(call, operands[1:])
    yield from _settings_change(call.name, words)


def js_packages_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    words = [word.text for word in operands]
    subcommand = words[0] if words else ""
    global_flag = (
        "g" in short_letters(options) or has_long(options, "--global") or "--location=global" in options
    )
    if call.name == "yarn" and subcommand == "global":
        yield "installs or removes packages globally (yarn global)"
    elif global_flag and subcommand in _INSTALL_WORDS:
        yield f"installs or removes packages globally ({call.name} -g)"
    yield from _indexes(options, _JS_INDEXES, call.name)
    yield from _settings_change(call.name, words)
    if subcommand in _JS_ADDS:
        yield from _sources(call, operands[1:], shorthand=True)
    elif subcommand in ("exec", "x", "dlx"):
        yield from _sources(
            call, [*option_values(call.args, "-p", "--package"), *operands[1:2]], shorthand=True
        )


def uv_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    words = [word.text for word in operands[:2]]
    if words[:2] in (["tool", "install"], ["tool", "uninstall"]):
        yield "installs or removes a global tool (uv tool install)"
    system = ("--system", "--break-system-packages", "--target", "--prefix")
    if words[:1] == ["pip"] and any(has_long(options, name) for name in system):
        yield "installs Python packages outside a project environment (uv pip --system)"
    yield from _indexes(options, _PYTHON_INDEXES, call.name)
    if words[:2] in (["pip", "install"], ["pip", "sync"], ["tool", "install"]):
        yield from _sources(call, operands[2:])
    elif words[:1] == ["add"]:
        yield from _sources(call, operands[1:])
    yield from _sources(call, _with_options(call.args))


def _with_options(args: tuple[Word, ...]) -> list[Word]:
    """What `--with`, `--with-editable`, `--from` or `--spec` add to a run (uv run, uvx, pipx run)."""
    names = ("--with", "--with-editable", "--from", "--spec")
    return [value for name in names for value in option_values(args, None, name)]


def package_runner_rule(call: Call) -> Iterator[str]:
    """uvx, npx, bunx, pipx run: the package they fetch and run, when it names a URL or a repository."""
    options, operands = split_options(call.args)
    if call.name == "pipx":
        operands = operands[1:] if operands[:1] and operands[0].text == "run" else []
    yield from _indexes(options, _PYTHON_INDEXES | _JS_INDEXES, call.name)
    packages = [*_with_options(call.args), *option_values(call.args, "-p", "--package"), *operands[:1]]
    yield from _sources(call, packages, shorthand=call.name in ("npx", "bunx"))


_INSTALLS = "installs or removes programs outside the workspace"
PACKAGE_RULES: dict[str, Rule] = {
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
    **dict.fromkeys(("uvx", "npx", "bunx"), package_runner_rule),
    "gem": subcommands_rule(frozenset({"install", "uninstall", "update"}), _INSTALLS),
    "cargo": subcommands_rule(frozenset({"install", "uninstall"}), _INSTALLS),
    "go": subcommands_rule(frozenset({"install"}), _INSTALLS),
    "pipx": all_of(
        subcommands_rule(
            frozenset({"install", "uninstall", "inject", "upgrade", "reinstall-all"}), _INSTALLS
        ),
        package_runner_rule,
    ),
    **dict.fromkeys(
        ("conda", "mamba", "micromamba"),
        subcommands_rule(
            frozenset({"install", "remove", "uninstall", "update", "env remove"}),
            "changes a conda environment",
        ),
    ),
}
