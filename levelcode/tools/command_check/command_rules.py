"""Per-command safety rules for files, disks, processes and the system; what each rule looks at.

Pure apart from resolving paths. Same contract as every rule table: see `command_call`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from levelcode.tools.command_check.command_call import (
    Call,
    Rule,
    always,
    has_long,
    option_value,
    path_checks,
    short_letters,
    split_options,
)
from levelcode.tools.command_check.command_wrappers import filled_at_run_time
from levelcode.tools.command_check.shell_words import Word


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
                call.review_words(filled_at_run_time(args[index + 1 : end], "{}"), True)
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
    letters = short_letters(option for option in options if not option.startswith("--"))
    if "e" in letters or has_long(options, "--rsh") or has_long(options, "--rsync-path", shortest=8):
        yield "rsync runs the program given as its remote shell (-e / --rsh / --rsync-path)"
    if any(option.startswith(("--del", "--remove-source")) for option in options):
        yield "deletes files (rsync --delete / --remove-source-files)"
    if operands and ":" in operands[-1].text:
        yield "copies to another machine (rsync to a remote destination)"
    elif len(operands) > 1:
        yield from path_checks("writes to", call, operands[-1:])


def tee_rule(call: Call) -> Iterator[str]:
    yield from path_checks("writes to", call, split_options(call.args)[1])


_TAR_RUNNERS: tuple[str, ...] = ("--to-command", "--use-compress-program", "--checkpoint-action")
_TAR_RUNNERS += ("--info-script", "--new-volume-script", "--rmt-command", "--rsh-command")


def _tar_letters(args: tuple[Word, ...]) -> set[str]:
    """tar's short option letters, its old-style first word included (`tar xzf a.tgz`)."""
    letters = short_letters(option for option in split_options(args)[0] if not option.startswith("--"))
    if args and args[0].text.isalpha():
        letters |= set(args[0].text)
    return letters


def tar_rule(call: Call) -> Iterator[str]:
    options = split_options(call.args)[0]
    letters = _tar_letters(call.args)
    if any(has_long(options, name, shortest=6) for name in _TAR_RUNNERS) or letters & {"I", "F"}:
        yield "a tar option runs a command (--to-command, -I/--use-compress-program, -F/--info-script, ...)"
    if "P" in letters or has_long(options, "--absolute-names"):
        yield "tar with absolute member names can write anywhere (-P)"
    archive = option_value(call.args, "-f", "--file")
    if archive is None and call.args and call.args[0].text.isalpha() and "f" in call.args[0].text:
        archive = call.args[1] if len(call.args) > 1 else None
    if archive is not None and ":" in archive.text and not has_long(options, "--force-local"):
        yield f"tar reaches another machine through a remote shell (archive {archive.text!r})"
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
