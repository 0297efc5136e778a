"""How interpreters read their command line: the script they are given, the modules and
preloads they load, the inline code they are handed (`-c`, `-e` …), and the plain data that
describes it (`CommandPlan`; entries.py adds the package runners).

Pure: reads words only, never a file. Options are skipped the way each interpreter parses them,
value-taking ones with their value, so `node --title x server.js` runs `server.js`, not `x`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

PURE = True

EntryKind = Literal[
    "script",
    "python_script",  # a Python script: its folder goes first on the import path too
    "python_folder",  # a folder first on Python's import path (the cwd for `-c`)
    "python_project",  # a project folder `uv run` installs or `uvx --from PATH` builds
    "node_script",
    "python_module",
    "node_module",
    "bin",
    "package",
    "file",
]


@dataclass(frozen=True)
class Entry:
    kind: EntryKind
    name: str  # as written: a path relative to the cwd, or a module, bin or package name


@dataclass(frozen=True)
class CommandPlan:
    entries: tuple[Entry, ...] = ()
    inline_code: tuple[tuple[str, str], ...] = ()  # (option, code), e.g. ("-c", "import os; …")
    unpinned: str | None = None  # the runner and package that the registry decides, e.g. "npx pkg"


@dataclass
class PlanBuilder:
    entries: list[Entry] = field(default_factory=list[Entry])
    code: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    unpinned: str | None = None

    def add(self, kind: EntryKind, name: str | None) -> None:
        if name:
            self.entries.append(Entry(kind, name))

    def frozen(self) -> CommandPlan:
        return CommandPlan(tuple(self.entries), tuple(self.code), self.unpinned)


@dataclass(frozen=True)
class Options:
    """How one program reads its options; a name in no set is a flag without a value."""

    value: frozenset[str] = frozenset()  # takes a value, which is skipped
    code: frozenset[str] = frozenset()  # the value is inline code: no script follows
    module: frozenset[str] = frozenset()  # the value is a module run as the program (python -m)
    script: frozenset[str] = frozenset()  # the value is the script (php -f)
    preload: frozenset[str] = frozenset()  # the value is a module or file loaded first (node -r)
    files: frozenset[str] = frozenset()  # the value is a file read first (--env-file, --rcfile)
    clusters: bool = False  # `-uBc code`: flags run together, a value-taking letter takes the rest
    script_kind: EntryKind = "script"
    folder_first: bool = False  # inline code or stdin imports from the cwd first (Python's '')

    def takes_value(self, option: str) -> bool:
        sets = (self.value, self.code, self.module, self.script, self.preload, self.files)
        return any(option in s for s in sets)


def option_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


PYTHON = Options(
    value=option_set("-W -X --check-hash-based-pycs"),
    code=option_set("-c"),
    module=option_set("-m"),
    clusters=True,
    script_kind="python_script",
    folder_first=True,
)
NODE = Options(
    value=option_set(
        "-C --conditions --cpu-prof-dir --cpu-prof-interval --cpu-prof-name --diagnostic-dir "
        "--disable-proto --disable-warning --dns-result-order --experimental-default-type "
        "--experimental-policy --experimental-sea-config --heap-prof-dir --heap-prof-interval "
        "--heap-prof-name --heapsnapshot-near-heap-limit --heapsnapshot-signal --icu-data-dir "
        "--input-type --inspect-publish-uid --max-http-header-size --openssl-config --policy-integrity "
        "--redirect-warnings --report-dir --report-directory --report-filename --report-signal "
        "--secure-heap --secure-heap-min --snapshot-blob --build-snapshot-config --test-concurrency "
        "--test-name-pattern --test-reporter --test-reporter-destination --test-shard --test-timeout "
        "--title --tls-cipher-list --tls-keylog --trace-event-categories --trace-event-file-pattern "
        "--trace-require-module --unhandled-rejections --use-largepages --v8-pool-size --watch-path "
        "--allow-fs-read --allow-fs-write --run "
        "--network-family-autoselection-attempt-timeout --stack-size --max-old-space-size"
    ),
    code=option_set("-e --eval -p --print"),
    preload=option_set("-r --require --import --loader --experimental-loader"),
    files=option_set("--env-file --env-file-if-exists"),
    script_kind="node_script",
)
TS_NODE = Options(
    value=option_set("-P --project -C --compiler -O --compilerOptions -I --ignore --cwd --scope-dir -D"),
    code=option_set("-e --eval -p --print"),
    preload=option_set("-r --require --import"),
    files=option_set("--tsconfig --env-file"),
    script_kind="node_script",
)
DENO = Options(
    value=option_set("-c --config --import-map --lock --cert --location --seed --ext -L --log-level"),
    code=option_set("--eval"),
    preload=option_set("--preload"),
    script_kind="node_script",
)
BUN = Options(
    value=option_set("--cwd -c --config --tsconfig-override --main-fields --extension-order --jsx-factory"),
    code=option_set("-e --eval -p --print"),
    preload=option_set("-r --preload --require --import"),
    files=option_set("--env-file"),
    script_kind="node_script",
)
SHELL = Options(
    value=option_set("-o +o -O +O"),
    code=option_set("-c"),
    files=option_set("--rcfile --init-file"),
    clusters=True,
)
RUBY = Options(
    value=option_set("-I -C -E -F --encoding --external-encoding --internal-encoding"),
    code=option_set("-e"),
    files=option_set("-r --require"),
    clusters=True,
)
PERL = Options(value=option_set("-I -M -m -V"), code=option_set("-e -E"), clusters=True)
PHP = Options(value=option_set("-c -d -z -S -t"), code=option_set("-r -B -R -E"), script=option_set("-f -F"))
LUA = Options(value=option_set("-l"), code=option_set("-e"))

_INTERPRETERS: tuple[tuple[str, Options], ...] = (
    (r"python[0-9.]*|pypy[0-9.]*", PYTHON),
    (r"nodejs|node", NODE),
    (r"tsx|ts-node|ts-node-esm", TS_NODE),
    (r"sh|bash|zsh|dash|ksh", SHELL),
    (r"ruby[0-9.]*", RUBY),
    (r"perl[0-9.]*", PERL),
    (r"php[0-9.]*", PHP),
    (r"lua[0-9.]*|luajit", LUA),
)


def program_name(command: str) -> str:
    """`/usr/bin/python3.12` → `python3.12`: what decides how the words are read."""
    return command.rsplit("/", 1)[-1].lower().removesuffix(".exe")


def interpreter_options(name: str) -> Options | None:
    return next((opts for pattern, opts in _INTERPRETERS if re.fullmatch(pattern, name)), None)


def interpret(args: Sequence[str], options: Options, plan: PlanBuilder) -> None:
    """Walk an interpreter's options to its script (or module, or inline code)."""
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            plan.add(options.script_kind, args[index + 1] if index + 1 < len(args) else None)
            return
        if word == "-":  # the script comes from stdin: nothing to find but where it imports from
            if options.folder_first:
                plan.add("python_folder", ".")
            return
        if not word.startswith(("-", "+")) or (word.startswith("+") and options is not SHELL):
            plan.add(options.script_kind, word)
            return
        following = args[index + 1] if index + 1 < len(args) else None
        parsed, used_next = split_option(word, following, options)
        index += 2 if used_next else 1
        for option, value in parsed:
            if _apply(option, value, options, plan):
                return


def split_option(
    word: str, following: str | None, options: Options
) -> tuple[list[tuple[str, str | None]], bool]:
    """One word as (option, value) pairs, and whether the value was the next word."""
    if word.startswith("--") and "=" in word:
        name, _, value = word.partition("=")
        return [(name, value)], False
    if word.startswith("--") or len(word) == 2:
        return ([(word, following)], True) if options.takes_value(word) else ([(word, None)], False)
    head = word[:2]
    if not options.clusters:
        return ([(head, word[2:])], False) if options.takes_value(head) else ([(word, None)], False)
    pairs: list[tuple[str, str | None]] = []
    for position, letter in enumerate(word[1:], start=1):
        option = word[0] + letter
        if options.takes_value(option):
            rest = word[position + 1 :]
            return [*pairs, (option, rest or following)], not rest
        pairs.append((option, None))
    return pairs, False


def _apply(option: str, value: str | None, options: Options, plan: PlanBuilder) -> bool:
    """Record what one option means; True when nothing after it is the program's own."""
    if option in options.code:
        plan.code.append((option, value or ""))
        if options.folder_first:
            plan.add("python_folder", ".")
        return True
    if option in options.module:
        plan.add("python_module", value)
        return True
    if option in options.script:
        plan.add(options.script_kind, value)
        return True
    if option in options.preload and value:
        local = value.startswith((".", "/"))
        plan.add(
            ("node_script" if local else "node_module") if options.script_kind == "node_script" else "script",
            value,
        )
    elif option in options.files:
        plan.add("file", value)
    return False
