"""Per-command safety rules for files, disks, processes and the system; what each rule looks at.

Pure apart from resolving paths. A rule sees one command (wrappers already peeled off) and yields
the reasons to flag it; yielding nothing means this rule saw no danger. When unsure, yield.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from levelcode.tools.command_paths import PathScope
from levelcode.tools.shell_words import Word


@dataclass(frozen=True)
class Call:
    """One command as a rule sees it, with ways to review the commands it embeds."""

    name: str  # the program's base name, lower-cased: "/bin/RM" -> "rm"
    args: tuple[Word, ...]
    scope: PathScope
    args_unknown: bool  # more arguments arrive at run time (xargs, find -exec {})
    piped_in: bool  # stdin is the previous pipeline stage's output
    stdin_text: str | None  # a here-document or here-string fed to it
    review_words: Callable[[tuple[Word, ...], bool], None]  # (embedded command, args_unknown)
    review_script: Callable[[str], None]  # embedded shell source (sh -c, eval, trap)


Rule = Callable[[Call], Iterator[str]]


def split_options(args: Iterable[Word]) -> tuple[list[str], list[Word]]:
    """Options (`-x`, `--long=v`) and operands; everything after `--` is an operand."""
    options: list[str] = []
    operands: list[Word] = []
    ended = False
    for word in args:
        if not ended and word.text == "--":
            ended = True
        elif not ended and word.text.startswith("-") and len(word.text) > 1:
            options.append(word.text)
        else:
            operands.append(word)
    return options, operands


def short_letters(options: Iterable[str]) -> set[str]:
    return {letter for option in options if not option.startswith("--") for letter in option[1:]}


def has_long(options: Iterable[str], full: str, *, shortest: int = 4) -> bool:
    """Whether `--full` was given, also abbreviated as GNU tools accept (`--rec` for `--recursive`)."""
    for option in options:
        name = option.split("=", 1)[0]
        if option.startswith("--") and len(name) >= shortest and full.startswith(name):
            return True
    return False


def option_value(args: tuple[Word, ...], short: str | None, long: str) -> Word | None:
    """The value of `-s VALUE`, `-sVALUE`, `--long VALUE` or `--long=VALUE`, if given; also of a
    cluster such as `-sSLo FILE`, read as GNU tools do: the rest of the cluster, else the next word."""
    for index, word in enumerate(args):
        text = word.text
        following = args[index + 1] if index + 1 < len(args) else None
        if text == long or (short is not None and text == short):
            return following
        if text.startswith(long + "="):
            return Word(text.split("=", 1)[1], word.dynamic, word.pattern, word.quoted)
        if short and text.startswith("-") and not text.startswith("--") and short[1] in text[1:]:
            rest = text[text.index(short[1], 1) + 1 :]
            return Word(rest, word.dynamic, word.pattern, word.quoted) if rest else following
    return None


def always(reason: str) -> Rule:
    def rule(call: Call) -> Iterator[str]:
        yield reason

    return rule


def path_checks(verb: str, call: Call, words: Iterable[Word]) -> Iterator[str]:
    for word in words:
        if problem := call.scope.write_problem(word):
            yield f"{verb} {problem}"


def rm_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    if short_letters(options) & {"r", "R"} or has_long(options, "--recursive", shortest=3):
        yield f"deletes recursively ({call.name} -r)"
    if has_long(options, "--no-preserve-root"):
        yield "deletes with --no-preserve-root"
    if call.args_unknown:
        yield "deletes files named only at run time (xargs, find -exec)"
    for word in operands:
        if word.pattern:
            yield f"deletes every file a wildcard matches ({word.text!r})"
    yield from path_checks("deletes", call, (word for word in operands if not word.pattern))


def paths_rule(verb: str) -> Rule:
    def rule(call: Call) -> Iterator[str]:
        if call.args_unknown:
            yield f"{verb} paths named only at run time (xargs, find -exec)"
        yield from path_checks(verb, call, split_options(call.args)[1])

    return rule


_OCTAL_MODE = re.compile(r"[0-7]{1,4}")
_SYMBOLIC_CLAUSE = re.compile(r"([ugoa]*)((?:[-+=][rwxXstugo]*)+)")


def mode_problem(mode: Word) -> str | None:
    text = mode.text
    if mode.dynamic:
        return f"sets a permission mode computed when it runs ({text!r})"
    if _OCTAL_MODE.fullmatch(text):
        value = int(text, 8)
        if value & 0o002:
            return f"makes files writable by everyone (chmod {text})"
        return f"sets the setuid/setgid bit (chmod {text})" if value & 0o6000 else None
    for clause in text.split(","):
        match = _SYMBOLIC_CLAUSE.fullmatch(clause)
        if match is None:
            return f"uses a permission mode it cannot read ({text!r})"
        who, change = match.groups()
        if "s" in change:
            return f"sets the setuid/setgid bit (chmod {text})"
        if "w" in change and ("o" in who or "a" in who) and re.search(r"[+=][^-+=]*w", change):
            return f"makes files writable by everyone (chmod {text})"
    return None


def chmod_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    modes = [option for option in options if re.fullmatch(r"-[rwxXst]+", option)]  # chmod -w file
    flags = [option for option in options if option not in modes]
    if "R" in short_letters(flags) or has_long(flags, "--recursive", shortest=3):
        yield "changes permissions recursively (chmod -R)"
    if call.args_unknown:
        yield "changes permissions of paths named only at run time (xargs, find -exec)"
    if not modes and not has_long(flags, "--reference") and operands:
        mode, operands = operands[0], operands[1:]
        if problem := mode_problem(mode):
            yield problem
    yield from path_checks("changes permissions of", call, operands)


def find_rule(call: Call) -> Iterator[str]:
    args = call.args
    index = 0
    while index < len(args):
        text = args[index].text
        if text == "-delete":
            yield "deletes every file it finds (find -delete)"
        elif text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(index + 1, len(args)) if args[j].text in (";", "+")), len(args))
            if end > index + 1:
                call.review_words(args[index + 1 : end], True)
            index = end
        elif text in ("-fprint", "-fprint0", "-fprintf", "-fls") and index + 1 < len(args):
            yield from path_checks("writes to", call, args[index + 1 : index + 2])
        index += 1


def _destination_rule(verb: str, *, every_operand: bool) -> Rule:
    """cp/ln/install/mv: the destination (`-t DIR` or the last operand) must stay inside;
    for mv every operand, since moving a file away deletes it where it was."""

    def rule(call: Call) -> Iterator[str]:
        target = option_value(call.args, "-t", "--target-directory")
        operands = split_options(call.args)[1]
        if target is not None:
            operands = [word for word in operands if word is not target]
        checked = list(operands) if every_operand else ([] if target else operands[-1:])
        if call.args_unknown and (every_operand or target is None):
            yield f"{verb} paths named only at run time (xargs, find -exec)"
        yield from path_checks(verb, call, [*checked, *([target] if target else [])])

    return rule


def ln_rule(call: Call) -> Iterator[str]:
    """A link pointing out of the workspace turns later in-workspace writes into writes outside."""
    operands = split_options(call.args)[1]
    yield from _destination_rule("links at", every_operand=False)(call)
    sources = operands[:-1] if len(operands) > 1 else operands
    yield from path_checks("links to", call, sources)


def rsync_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    if any(option.startswith(("--del", "--remove-source")) for option in options):
        yield "deletes files (rsync --delete / --remove-source-files)"
    if operands and ":" in operands[-1].text:
        yield "copies to another machine (rsync to a remote destination)"
    elif len(operands) > 1:
        yield from path_checks("writes to", call, operands[-1:])


def tee_rule(call: Call) -> Iterator[str]:
    yield from path_checks("writes to", call, split_options(call.args)[1])


_SED_RUNS_OR_WRITES = re.compile(
    r"(^|[;}\n])\s*[0-9,$/!]*\s*[ewW]\s|/[gpIiMm0-9]*[ew][gpIiMm0-9]*\s*($|[;}])"
)


def sed_rule(call: Call) -> Iterator[str]:
    options, operands = split_options(call.args)
    script_given = option_value(call.args, "-e", "--expression") or option_value(call.args, "-f", "--file")
    scripts = [script_given] if script_given else operands[:1]
    files = operands if script_given else operands[1:]
    if any(_SED_RUNS_OR_WRITES.search(script.text) for script in scripts):
        yield "the sed script runs commands or writes files (e, w, W)"
    in_place = "i" in short_letters(o for o in options if o not in ("-e", "-f")) or has_long(
        options, "--in-place"
    )
    if in_place:
        if call.args_unknown:
            yield "edits in place files named only at run time (xargs, find -exec)"
        yield from path_checks("edits in place", call, files)


def tar_rule(call: Call) -> Iterator[str]:
    options, _operands = split_options(call.args)
    runners = ("--to-command", "--use-compress-program", "--checkpoint-action", "--info-script")
    if any(has_long(options, name, shortest=6) for name in runners) or "-I" in options:
        yield "a tar option runs a command (--to-command, --use-compress-program, ...)"
    if "P" in short_letters(o for o in options if not o.startswith("--")) or has_long(
        options, "--absolute-names"
    ):
        yield "tar with absolute member names can write anywhere (-P)"
    directory = option_value(call.args, "-C", "--directory")
    if directory is not None:
        yield from path_checks("unpacks into", call, [directory])


def unzip_rule(call: Call) -> Iterator[str]:
    directory = option_value(call.args, "-d", "--exdir")
    if directory is not None:
        yield from path_checks("unpacks into", call, [directory])


def output_option_rule(call: Call) -> Iterator[str]:
    """sort -o FILE and the like: the output file must stay inside."""
    target = option_value(call.args, "-o", "--output")
    if target is not None:
        yield from path_checks("writes to", call, [target])


def service_rule(call: Call) -> Iterator[str]:
    read_only = {"status", "show", "list-units", "list-unit-files", "list-timers", "is-active", "is-enabled"}
    read_only |= {"is-failed", "cat", "help", "--version", "print", "list", "--status-all"}
    operands = [word.text for word in split_options(call.args)[1]]
    if not read_only & {*operands, *(word.text for word in call.args)}:
        yield f"starts, stops or changes system services ({call.name})"


def eval_rule(call: Call) -> Iterator[str]:
    yield "eval runs a string as a command"
    call.review_script(" ".join(word.text for word in call.args))


def trap_rule(call: Call) -> Iterator[str]:
    operands = split_options(call.args)[1]
    if operands:
        call.review_script(operands[0].text)
    yield from ()


def source_rule(call: Call) -> Iterator[str]:
    operands = split_options(call.args)[1]
    if call.args_unknown or not operands:
        yield "runs commands from a file named only at run time"
    yield from path_checks("runs commands from", call, operands[:1])


OUTLIVES_REASON = "starts processes that outlive the command and escape its clean-up (setsid, screen, tmux)"
_DISK = "partitions, formats, mounts or overwrites disks"
_SIGNALS = "sends signals to (kills) other processes"
_POWER = "shuts down or reboots the machine"
_SCHEDULE = "schedules commands to run later (cron, at)"
_ACCOUNTS = "changes users, groups, passwords or privileges"
_NETWORK = "connects to another machine"
_FIREWALL = "changes the firewall, kernel settings or modules"

FILE_AND_SYSTEM_RULES: dict[str, Rule] = {
    "rm": rm_rule,
    "unlink": rm_rule,
    "rimraf": always("deletes recursively (rimraf)"),
    "sort": output_option_rule,
    "rmdir": paths_rule("removes"),
    "shred": always("shred destroys file contents"),
    "truncate": always("truncate cuts files short"),
    "dd": always("dd copies raw data and can overwrite disks"),
    "chmod": chmod_rule,
    "chown": always("changes file ownership (chown)"),
    "chgrp": always("changes file group ownership (chgrp)"),
    "chattr": always("changes file attributes (chattr)"),
    "setfacl": always("changes file access lists (setfacl)"),
    "find": find_rule,
    "cp": _destination_rule("writes to", every_operand=False),
    "install": _destination_rule("writes to", every_operand=False),
    "ln": ln_rule,
    "mv": _destination_rule("moves", every_operand=True),
    "rsync": rsync_rule,
    "tee": tee_rule,
    "touch": paths_rule("writes to"),
    "mkdir": paths_rule("creates"),
    "sed": sed_rule,
    "tar": tar_rule,
    "unzip": unzip_rule,
    "eval": eval_rule,
    "trap": trap_rule,
    "source": source_rule,
    ".": source_rule,
    "alias": always("defines an alias, which changes what later commands mean"),
    "systemctl": service_rule,
    "service": service_rule,
    "launchctl": always("loads or changes system services (launchctl)"),
    "systemd-run": always("runs a command as a system service (systemd-run)"),
    **dict.fromkeys(("screen", "tmux", "daemonize", "disown", "start-stop-daemon"), always(OUTLIVES_REASON)),
    "crontab": always(_SCHEDULE),
    "at": always(_SCHEDULE),
    "batch": always(_SCHEDULE),
    **dict.fromkeys(
        ("mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk"), always(_DISK)
    ),
    **dict.fromkeys(
        ("parted", "wipefs", "blkdiscard", "mount", "umount", "losetup", "swapon"), always(_DISK)
    ),
    **dict.fromkeys(("swapoff", "diskutil", "format", "hdparm", "cryptsetup", "lvremove"), always(_DISK)),
    **dict.fromkeys(("kill", "pkill", "killall", "skill", "xkill", "killpg"), always(_SIGNALS)),
    **dict.fromkeys(("shutdown", "reboot", "halt", "poweroff", "init", "telinit"), always(_POWER)),
    **dict.fromkeys(("useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd"), always(_ACCOUNTS)),
    **dict.fromkeys(("chpasswd", "visudo", "adduser", "deluser", "newgrp", "setcap"), always(_ACCOUNTS)),
    **dict.fromkeys(
        ("ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp"), always(_NETWORK)
    ),
    **dict.fromkeys(("iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "sysctl"), always(_FIREWALL)),
    **dict.fromkeys(("modprobe", "insmod", "rmmod"), always(_FIREWALL)),
}
