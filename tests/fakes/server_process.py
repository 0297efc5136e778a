"""A fake model API in its own process, for end-to-end tests that run `levelcode` as a subprocess.

    python -m tests.fakes.fake_openai --script steps.json --port-file port.txt [--requests-log log.jsonl]

The process prints `listening on BASE_URL` once it accepts connections, writes the port to
`--port-file` (atomically), appends each request it receives as one JSON line to
`--requests-log`, and serves until SIGTERM or SIGINT. `spawn_fake` does all of that from a test,
waiting a bounded time for the URL.
"""

from __future__ import annotations

import argparse
import json
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tests.fakes.scripted_server import DEFAULT_API_KEY, ApiShape, ScriptedServer, load_script

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_PREFIX = "listening on "


def run_fake_cli(shape: ApiShape, argv: Sequence[str]) -> int:
    args = _parser(shape.name).parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server = ScriptedServer(
        shape, load_script(args.script), api_key=args.api_key, request_log=args.requests_log, port=args.port
    )
    with server:
        if args.port_file is not None:
            partial = args.port_file.with_name(args.port_file.name + ".partial")
            partial.write_text(str(server.port), encoding="utf-8")
            partial.replace(args.port_file)
        print(READY_PREFIX + server.base_url, flush=True)
        stop.wait()
    return 0


def _parser(api: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m tests.fakes.fake_{api}", description=f"A fake {api} API."
    )
    parser.add_argument("--script", type=Path, required=True, help="JSON steps (see scripted_server)")
    parser.add_argument("--port-file", type=Path, help="write the port here once listening")
    parser.add_argument("--port", type=int, default=0, help="default: any free port")
    parser.add_argument(
        "--api-key", default=DEFAULT_API_KEY, help=f"the key to accept (default {DEFAULT_API_KEY})"
    )
    parser.add_argument("--requests-log", type=Path, help="append each request here as a JSON line")
    return parser


@dataclass(frozen=True)
class FakeProcess:
    process: subprocess.Popen[str]
    base_url: str
    requests_log: Path
    port_file: Path

    def requests(self) -> list[dict[str, Any]]:
        """Every request received so far: `{"path": ..., "body": {...}}`."""
        if not self.requests_log.exists():
            return []
        lines = self.requests_log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line]


@contextmanager
def spawn_fake(
    api: Literal["anthropic", "openai"],
    script: list[dict[str, Any]] | Path,
    workdir: Path,
    *,
    api_key: str = DEFAULT_API_KEY,
    timeout: float = 15.0,
) -> Iterator[FakeProcess]:
    """Run `python -m tests.fakes.fake_<api>` with `script` (JSON steps, or a file of them)."""
    if not isinstance(script, Path):
        script_path = workdir / f"fake-{api}-script.json"
        script_path.write_text(json.dumps(script), encoding="utf-8")
        script = script_path
    log = workdir / f"fake-{api}-requests.jsonl"
    port_file = workdir / f"fake-{api}.port"
    command = [sys.executable, "-m", f"tests.fakes.fake_{api}", "--script", str(script)]
    command += ["--requests-log", str(log), "--port-file", str(port_file), "--api-key", api_key]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = _first_line(process, timeout)
        if not line.startswith(READY_PREFIX):
            raise RuntimeError(f"fake {api} server did not start (exit {process.poll()}): {line!r}")
        yield FakeProcess(process, line.removeprefix(READY_PREFIX).strip(), log, port_file)
    finally:
        _stop(process)


def _first_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            return ""
    return process.stdout.readline()


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    if process.stdout is not None:
        process.stdout.close()
