"""The user's own servers that this very command line spawned early last time, spawned again at
once — before LevelCode parses its arguments or reads its settings — when nothing they were made
from has changed: the same arguments, directory, environment, settings file (size, times, inode)
and LevelCode version. `levelcode mcp list` then spawns its server ~10 ms after a bare stdlib
client would, not ~40 ms after (bench/startup_bench.py).

A guess, never a decision. Each process waits, like any early one (early.py), for the session to
make its launch through the gate as always; only a launch that is the very same process (argv,
environment, directory) claims it, and whatever nobody claims is ended at exit. The record keeps
no secret: a server whose entry has an `env` of its own or a `${VAR}` anywhere is not remembered,
and of the environment only the names of inherited variables are written, beside a checksum of
the whole; of the command line, only a checksum (a `run` prompt is the user's own). Light on
purpose, like early.py: no dataclasses, no typing, no argparse.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from levelcode import __version__
from levelcode.core import paths
from levelcode.mcp.stdio.early import spawn_process

TYPE_CHECKING = False  # not `typing`'s: imported before the first spawn, and typing is not
if TYPE_CHECKING:
    from levelcode.mcp.config.specs import StdioServerSpec
    from levelcode.mcp.stdio.launch_spec import StdioLaunch

RECORD_NAME = "early-launches.json"
MAX_COMMAND_LINES = 16  # command lines remembered, the most recent first


def spawn_remembered(argv: Sequence[str]) -> int:
    """Spawn what `argv` spawned early last time, if it may be the same; how many started."""
    try:
        conditions = _conditions(argv)
        for entry in _entries(_record_path()):
            if entry.get("conditions") == conditions:
                launches = entry.get("launches")
                return (
                    sum(_spawn(one) for one in launches if isinstance(one, dict))
                    if isinstance(launches, list)
                    else 0
                )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # no record, or not ours
        pass
    return 0


def remember(argv: Sequence[str], started: Iterable[tuple[StdioServerSpec, StdioLaunch]]) -> None:
    """Write down the launches `argv` spawned early (those that may be), for its next run."""
    launches = [_written(spec, launch) for spec, launch in started]
    entry: dict[str, object] = {
        "conditions": _conditions(argv),
        "launches": [one for one in launches if one is not None],
    }
    path = _record_path()
    try:
        entries = _entries(path)
    except (OSError, ValueError):
        entries = []
    others = [one for one in entries if _line(one) != _line(entry)]
    kept = [entry, *others][:MAX_COMMAND_LINES] if entry["launches"] else others
    if kept == entries:
        return  # as written already (a command line with no server to note, most often)
    from levelcode.core.private_files import private_folder, write_private_text

    try:
        private_folder(path.parent)
        write_private_text(path, json.dumps({"entries": kept}))
    except OSError:
        pass  # only the next start is slower


def _line(entry: Mapping[str, object]) -> object:
    conditions = entry.get("conditions")
    return conditions.get("line") if isinstance(conditions, dict) else None


def _conditions(argv: Sequence[str]) -> dict[str, object]:
    """What the launches were made from; all of it must be equal for them to be spawned again —
    the organisation's policy file too, which may block a server spawned last time, and the
    servers turned off per workspace."""
    settings, policy = paths.user_settings_path(), paths.managed_settings_path()
    turned_off = paths.workspace_servers_path()  # servers turned off in a workspace since
    return {
        "line": _checksum([os.getcwd(), *argv]),
        "levelcode": __version__,
        "settings": [str(settings), _stamp(settings)],
        "policy": [str(policy), _stamp(policy)],
        "off": [str(turned_off), _stamp(turned_off)],
        "environment": _environment(os.environ),
    }


def _stamp(path: Path) -> list[object] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino]


def _checksum(parts: Iterable[str]) -> list[int]:
    text = "\0".join(parts).encode("utf-8", "surrogateescape")
    return [len(text), zlib.crc32(text), zlib.adler32(text)]


# the shell's own notes, which LevelCode never reads and no server inherits: the program it ran
# (the same command, typed differently) and the folder before the last `cd`
_SHELL_NOTES = frozenset({"_", "OLDPWD"})


def _environment(env: Mapping[str, str]) -> list[int]:
    return _checksum(f"{key}={value}" for key, value in sorted(env.items()) if key not in _SHELL_NOTES)


def _written(spec: StdioServerSpec, launch: StdioLaunch) -> dict[str, object] | None:
    """The launch as the record keeps it, or None when it may not be kept (see the docstring)."""
    written = (spec.command, *spec.args, spec.cwd or "")
    if spec.env or any("${" in part for part in written):
        return None
    if any(os.environ.get(key) != value for key, value in launch.env.items()):
        return None  # a value LevelCode did not inherit: not written down
    return {"argv": list(launch.argv), "env": sorted(launch.env), "cwd": launch.cwd}


def _spawn(launch: Mapping[str, object]) -> bool:
    argv, names, cwd = launch["argv"], launch["env"], launch["cwd"]
    if not (isinstance(argv, list) and isinstance(names, list) and isinstance(cwd, str)):
        return False
    env = {str(name): os.environ[str(name)] for name in names}
    return spawn_process([str(part) for part in argv], env, cwd)


def _entries(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as file:
        record = json.load(file)
    entries = record.get("entries") if isinstance(record, dict) else None
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []


def _record_path() -> Path:
    return paths.state_dir() / RECORD_NAME
