"""The programs that run another command — wrappers (`env`, `timeout`, `xargs` ...), privilege
tools (`sudo` ...) and project runners (`uv run`, `npx` ...) — and how to find the command inside.

Pure: tables and word juggling. The classifier reviews the inner command as if typed alone.
"""

from __future__ import annotations

from levelcode.tools.command_check.shell_words import Word

PURE = True

_NO_VALUES: frozenset[str] = frozenset()
# wrapper -> (options that take a value, positional arguments before the command, args unknown)
WRAPPERS: dict[str, tuple[frozenset[str], int, bool]] = {
    **dict.fromkeys(
        ("command", "builtin", "nohup", "setsid", "unbuffer", "busybox", "toybox", "eatmydata"),
        (_NO_VALUES, 0, False),
    ),
    **dict.fromkeys(
        ("fakeroot", "proxychains", "proxychains4", "torsocks", "exec"), (frozenset({"-a"}), 0, False)
    ),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0, False),
    "nice": (frozenset({"-n", "--adjustment"}), 0, False),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0, False),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1, False),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0, False),
    "chrt": (_NO_VALUES, 1, False),
    "taskset": (_NO_VALUES, 1, False),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1, False),
    "caffeinate": (frozenset({"-w", "-t"}), 0, False),
    **dict.fromkeys(("strace", "ltrace"), (frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-P"}), 0, False)),
    "xargs": (
        frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter"}),
        0,
        True,
    ),
    "parallel": (frozenset({"-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a"}), 0, True),
}
ELEVATORS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "pkexec": (frozenset({"--user"}), 0),
    "run0": (frozenset({"--user", "-u"}), 0),
    "runuser": (frozenset({"-u", "-g", "-G", "--user", "--group"}), 0),
    "su": (frozenset({"-s", "--shell", "-g", "-G", "--group"}), 1),
    "gosu": (_NO_VALUES, 1),
    "sg": (_NO_VALUES, 1),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "sudoedit": (_NO_VALUES, 0),
}
# runner -> the subcommands after which a command follows (empty: it follows at once)
RUNNERS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("uvx", "npx", "bunx", "dotenv", "cross-env"), frozenset()),
    **dict.fromkeys(
        ("uv", "poetry", "pipenv", "hatch", "pdm", "pixi", "rye", "devbox", "pipx"), frozenset({"run"})
    ),
    **dict.fromkeys(("conda", "mamba", "micromamba"), frozenset({"run"})),
    **dict.fromkeys(("pnpm", "yarn"), frozenset({"exec", "dlx"})),
    **dict.fromkeys(("npm", "bun", "mise"), frozenset({"exec", "x"})),
    **dict.fromkeys(("bundle", "direnv", "asdf"), frozenset({"exec"})),
}
KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac"}
)
HEADER_KEYWORDS = frozenset({"for", "select", "case", "in"})
SWITCHED_APPLETS = frozenset({"busybox", "toybox"})  # `busybox --install DIR` is no command


def peel_options(
    words: tuple[Word, ...], value_options: frozenset[str], positionals: int
) -> tuple[Word, ...]:
    """The words after a wrapper's own options, the option values and `positionals` operands."""
    index = 1
    while index < len(words):
        text = words[index].text
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        index += 2 if text in value_options else 1
    return words[index + positionals :]


def replace_string(name: str, words: tuple[Word, ...]) -> str | None:
    """What xargs or parallel replaces with each input item when it builds a command (`{}`)."""
    if name == "parallel":
        return "{"
    for index, word in enumerate(words[1:] if name == "xargs" else (), start=1):
        text = word.text
        if text == "-I" and index + 1 < len(words):
            return words[index + 1].text
        if text in ("-i", "--replace"):
            return "{}"
        if text.startswith("--replace="):
            return text.split("=", 1)[1] or "{}"
        if text.startswith(("-I", "-i")):
            return text[2:] or "{}"
        if text == "--" or not text.startswith("-"):
            break
    return None


def filled_at_run_time(words: tuple[Word, ...], mark: str) -> tuple[Word, ...]:
    """`words` with each one holding `mark` (an xargs or find `{}`) known only at run time; the
    mark is written `{}` whatever it was, so a command string that is only the mark reads as a
    program named at run time (`xargs -I% sh -c %`)."""
    return tuple(
        Word(w.text.replace(mark, "{}") if mark != "{" else w.text, True, w.pattern, w.quoted)
        if mark in w.text
        else w
        for w in words
    )
