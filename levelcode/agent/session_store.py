"""Saved sessions on disk: one file per session, in a folder per workspace under the state dir
(`sessions/NAME-HASH/ID.jsonl`, folders 0700, files 0600).

What a session file holds, and nothing more: the conversation exactly as the provider is sent it
— the prompts, the model's answers, every tool call with its arguments and every result in full,
pictures included — the model in use, the tokens and cost so far, the workspace's path, the
provider's name and when the session began. Never an API key, a base URL, settings, a server's
environment, or anything the conversation itself does not hold. Tool arguments and results can
hold tokens (they are masked in logs, but the model is sent them), so the file is as private as
the REPL history. The format is in agent/session_record.py.

Written as it goes: each save appends what changed in one write, then fsyncs, so a crash or a
kill -9 loses at most the line being written (a torn last line is dropped when the file is read)
and the turn under way then (it is read back closed with the interrupted note). The LevelCode
using a session holds a lock on its file, so two never write one. Only files in this workspace's
folder whose header names this workspace are offered. The newest `SESSIONS_KEPT` of a workspace
are kept; older ones are deleted when a new session begins.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from levelcode.agent.session_record import (
    BadRecord,
    SessionState,
    apply_record,
    check_header,
    closed_transcript,
)
from levelcode.core.errors import SessionUnavailable, SessionUnreadable
from levelcode.core.messages import Message
from levelcode.platform import paths
from levelcode.platform.private_files import FILE_MODE, private_folder

SESSIONS_KEPT = 50  # per workspace
SUFFIX = ".jsonl"
HEAD_BYTES = 65_536  # the header is well under this (its first prompt is capped)
TAIL_BYTES = 16_384  # where the last mark is looked for


def sessions_root() -> Path:
    return paths.state_dir() / "sessions"


def workspace_folder(workspace: Path, root: Path | None = None) -> Path:
    """This workspace's folder: its name for the eye, a hash of its full path for uniqueness."""
    digest = hashlib.sha256(str(workspace).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (root or sessions_root()) / f"{paths.file_stem(workspace.name, fallback='root')}-{digest}"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class SessionSummary:
    """What a list of sessions shows of one."""

    id: str
    path: Path
    first_prompt: str
    created: str  # ISO 8601, UTC
    modified: float  # the file's last write (seconds since the epoch): the newest is the latest
    model: str
    turns: int


class SessionFile:
    """One session file, open for appending and locked by this process until `close`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def append(self, *records: Mapping[str, object]) -> None:
        """The records as lines, in one write, then fsync. Raises OSError."""
        if self._fd is None:
            raise OSError(f"{self.path} is closed")
        data = b"".join(_line(record) for record in records)
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the lock goes with it
            self._fd = None


@dataclass
class SavedSession:
    """A session read back and locked for this process, ready to go on."""

    summary: SessionSummary
    provider: str
    state: SessionState  # as the file holds it (its last turn may be unfinished)
    messages: list[Message]  # the transcript to go on with: the state's, its last turn closed
    file: SessionFile


class SessionFolder:
    """The saved sessions of one workspace."""

    def __init__(self, workspace: Path, root: Path | None = None) -> None:
        self.workspace = workspace
        self.folder = workspace_folder(workspace, root)

    def summaries(self) -> tuple[list[SessionSummary], list[str]]:
        """This workspace's sessions, the latest first, and a line for each file that cannot be read."""
        found: list[SessionSummary] = []
        problems: list[str] = []
        for path in self._files():
            try:
                found.append(self._summary(path))
            except SessionUnreadable as exc:
                problems.append(str(exc))
        found.sort(key=lambda summary: summary.modified, reverse=True)
        return found, problems

    def open(self, session_id: str) -> SavedSession:
        """The session `session_id` (or the one whose id starts with it), read and locked.
        Raises SessionUnavailable (none, several, open elsewhere) or SessionUnreadable."""
        summaries, _problems = self.summaries()
        matches = [s for s in summaries if s.id == session_id] or [
            s for s in summaries if s.id.startswith(session_id)
        ]
        if not matches:
            path = self.folder / f"{paths.file_stem(session_id, fallback='session')}{SUFFIX}"
            if path.is_file():  # there, but unreadable: say why
                self._summary(path)
            raise SessionUnavailable(
                f"no saved session {session_id!r} in {self.workspace} (levelcode --resume lists them)"
            )
        if len(matches) > 1:
            names = ", ".join(s.id for s in matches[:5])
            raise SessionUnavailable(f"{session_id!r} names several sessions ({names}); give more of the id")
        return self.load(matches[0].path)

    def latest(self, report: Callable[[str], None]) -> SavedSession:
        """The latest session that can be read (each unreadable one is reported and skipped)."""
        summaries, problems = self.summaries()
        for problem in problems:
            report(problem)
        for summary in summaries:
            try:
                return self.load(summary.path)
            except SessionUnreadable as exc:
                report(str(exc))
        raise SessionUnavailable(f"no saved session to continue in {self.workspace}")

    def load(self, path: Path) -> SavedSession:
        """Read `path` whole and lock it for this process (its torn last line, if any, cut off)."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except OSError as exc:
            raise SessionUnreadable(f"{path}: cannot be opened: {exc.strerror}") from exc
        try:
            _lock(fd, path)
            data = _read_all(fd)
            whole = data[: data.rfind(b"\n") + 1]
            header, state = self._replay(path, whole)
            messages = _closed(path, state)
            if len(whole) < len(data):
                os.ftruncate(fd, len(whole))  # the next line must not join a torn one
        except BaseException:
            os.close(fd)
            raise
        summary = SessionSummary(
            header["id"],
            path,
            header["first_prompt"],
            header["created"],
            _modified(path),
            state.model,
            len(state.turns),
        )
        return SavedSession(summary, header["provider"], state, messages, SessionFile(path, fd))

    def create(self, header: Mapping[str, object], session_id: str) -> SessionFile:
        """A new session file holding `header`, locked for this process; older sessions pruned."""
        folder = private_folder(self.folder)
        path = folder / f"{session_id}{SUFFIX}"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # new: nobody else can hold it
        file = SessionFile(path, fd)
        try:
            file.append(header)
        except BaseException:
            file.close()
            raise
        self.prune(keep=SESSIONS_KEPT)
        return file

    def prune(self, keep: int) -> None:
        """Delete all but the newest `keep` session files (a file open in a LevelCode stays)."""
        files = sorted(self._files(), key=_modified, reverse=True)
        for path in files[keep:]:
            with contextlib.suppress(OSError), _unused(path):
                path.unlink()

    def _files(self) -> list[Path]:
        try:
            return [p for p in self.folder.iterdir() if p.suffix == SUFFIX and p.is_file()]
        except OSError:
            return []

    def _summary(self, path: Path) -> SessionSummary:
        """From the header and the last mark (the whole file only when the tail holds no mark)."""
        try:
            with path.open("rb") as handle:
                head = handle.read(HEAD_BYTES)
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - TAIL_BYTES))
                tail = handle.read()
            modified = path.stat().st_mtime
        except OSError as exc:
            raise SessionUnreadable(f"{path}: cannot be read: {exc.strerror}") from exc
        header = self._header(path, head)
        mark = _last_mark(tail)
        if mark is None:
            with path.open("rb") as handle:
                _header, state = self._replay(path, handle.read())
            model, turns = state.model, len(state.turns)
        else:
            model, turns = mark
        return SessionSummary(
            header["id"], path, header["first_prompt"], header["created"], modified, model, turns
        )

    def _header(self, path: Path, head: bytes) -> Mapping[str, str]:
        first = head.split(b"\n", 1)[0]
        try:
            header = check_header(json.loads(first))
        except (ValueError, BadRecord) as exc:
            raise SessionUnreadable(f"{path}: line 1: {_reason(exc)}") from exc
        if header["workspace"] != str(self.workspace):
            raise SessionUnreadable(f"{path}: belongs to another workspace ({header['workspace']})")
        return header

    def _replay(self, path: Path, data: bytes) -> tuple[Mapping[str, str], SessionState]:
        """Header and state from the file's whole lines (marks are checked, not needed)."""
        lines = data.split(b"\n")
        if data.endswith(b"\n") or len(lines) > 1:
            lines = lines[:-1]  # the empty tail after the last newline, or a torn last line
        header = self._header(path, data)
        state = SessionState()
        for number, line in enumerate(lines[1:], start=2):
            try:
                record = json.loads(line)
                if isinstance(record, dict) and "mark" in record:
                    _mark_fields(record["mark"])
                else:
                    apply_record(state, record)
            except (ValueError, BadRecord) as exc:
                raise SessionUnreadable(f"{path}: line {number}: {_reason(exc)}") from exc
        return header, state


def _closed(path: Path, state: SessionState) -> list[Message]:
    try:
        return closed_transcript(state.messages)
    except BadRecord as exc:
        raise SessionUnreadable(f"{path}: {exc}") from exc


def new_session_id() -> str:
    """Sortable by when it began, readable, and unique: `20261104-153012-a1b2c3`."""
    return f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def _line(record: Mapping[str, object]) -> bytes:
    return (
        json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n"
    )


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        raise SessionUnavailable(
            f"session {path.stem} is open in another LevelCode; "
            "leave it there first, or pick another with --resume"
        ) from exc


@contextlib.contextmanager
def _unused(path: Path) -> Iterator[None]:
    """Hold `path`'s lock for the block; raises OSError when a LevelCode has the session open."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _last_mark(tail: bytes) -> tuple[str, int] | None:
    """(model, turns) of the last whole mark line in `tail`."""
    for line in reversed(tail.split(b"\n")[1:-1] if b"\n" in tail else []):
        if not line.startswith(b'{"mark"'):
            continue
        try:
            return _mark_fields(json.loads(line).get("mark"))
        except (ValueError, AttributeError, BadRecord):
            continue
    return None


def _mark_fields(mark: object) -> tuple[str, int]:
    """(model, turns) of a mark; raises BadRecord."""
    if not isinstance(mark, dict):
        raise BadRecord("a mark is not a JSON object")
    model, turns, when = mark.get("model"), mark.get("turns"), mark.get("time")
    if (
        not isinstance(model, str)
        or isinstance(turns, bool)
        or not isinstance(turns, int)
        or not isinstance(when, str)
    ):
        raise BadRecord("a mark has no model, turns or time")
    return model, turns


def mark_json(model: str, turns: int) -> dict[str, object]:
    return {"mark": {"model": model, "turns": turns, "time": utc_now()}}


def _reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, BadRecord) else f"not valid JSON ({exc})"
