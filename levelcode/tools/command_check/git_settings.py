"""Which git settings a command may set on the way (`git -c KEY=VALUE`, `--config-env=KEY=VAR`,
`git clone --config`, `git config KEY VALUE`) without a person looking.

No I/O. An allow-list, because git has dozens of settings that run a program or fetch from elsewhere
(core.fsmonitor, core.hooksPath, core.sshCommand, alias.*, filter.*, diff.*.textconv,
include.path, protocol.*.allow ...) and each release may add one: only settings known to change
looks and bookkeeping pass; every other key flags.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from levelcode.tools.command_check.command_call import has_long, split_options
from levelcode.tools.command_check.shell_words import Word

# compared lower-cased: git reads section and key names case-insensitively
HARMLESS_KEYS = frozenset(
    {"user.name", "user.email", "init.defaultbranch", "core.quotepath", "core.autocrlf", "core.safecrlf"}
    | {"core.eol", "core.filemode", "core.ignorecase", "core.precomposeunicode", "core.abbrev"}
    | {"core.longpaths", "core.whitespace", "core.commentchar", "core.commentstring"}
    | {"pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "merge.ff"}
    | {"merge.conflictstyle", "rebase.autostash", "rebase.autosquash", "rebase.updaterefs"}
    | {"fetch.prune", "log.date", "log.decorate", "log.follow", "status.short", "status.branch"}
    | {"status.showuntrackedfiles", "diff.renames", "diff.algorithm", "diff.noprefix"}
    | {"diff.mnemonicprefix", "diff.colormoved", "diff.context", "diff.interhunkcontext"}
    | {"diff.indentheuristic", "diff.relative", "commit.verbose", "commit.cleanup", "tag.sort"}
    | {"branch.sort", "gc.auto", "maintenance.auto", "rerere.enabled", "grep.linenumber"}
    | {"grep.patterntype", "column.ui", "i18n.commitencoding", "i18n.logoutputencoding"}
    | {"protocol.version", "feature.manyfiles", "index.version", "checkout.defaultremote"}
)
HARMLESS_SECTIONS = ("color.", "advice.")
# settings whose name says they run a program or fetch: named as such in the reason
_RUNS_OR_FETCHES = re.compile(
    r"alias|hook|command|pager|editor|fsmonitor|proxy|external|textconv|filter|helper|program|"
    r"askpass|exec|driver|uploadpack|receivepack|include|protocol|insteadof|worktree|safe\.",
    re.IGNORECASE,
)
_READING = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"})
_UNSETTING = frozenset({"--unset", "--unset-all", "unset", "--remove-section", "remove-section"})


def is_harmless(key: str) -> bool:
    lowered = key.lower()
    return lowered in HARMLESS_KEYS or lowered.startswith(HARMLESS_SECTIONS)


def setting_problem(assignment: str, how: str) -> str | None:
    """Why `KEY=VALUE` given through `how` ("git -c") needs a look; None for a harmless key."""
    key = assignment.split("=", 1)[0]
    if is_harmless(key):
        return None
    if _RUNS_OR_FETCHES.search(key):
        return f"{how} {key} can make git run a program or fetch from elsewhere"
    return f"{how} {key}: not a git setting known to be harmless (many run programs)"


def config_command_problems(rest: tuple[Word, ...]) -> Iterator[str]:
    """`git config ...`: what it would write, where. Reading and unsetting pass."""
    options, operands = split_options(rest)
    words = [word.text for word in operands]
    if _READING & {*options, *words[:1]}:
        return
    if {"-e", "--edit", "edit"} & {*options, *words[:1]}:
        yield "opens the git settings in an editor (git config --edit)"
        return
    if any(has_long(options, name) for name in ("--global", "--system", "--file")) or "-f" in options:
        yield "changes git settings outside this repository (git config --global / --file)"
    if _UNSETTING & {*options, *words[:1]}:
        return
    if words[:1] == ["set"]:
        words = words[1:]
    adding = bool({"--add", "--replace-all"} & set(options))
    setting = words[0] if len(words) > 1 or (adding and words) else None
    if setting is not None and (problem := setting_problem(setting, "git config sets")):
        yield problem
