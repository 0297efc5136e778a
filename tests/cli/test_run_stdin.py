"""`levelcode run` takes its prompt from stdin: with `-`, or with no prompt when stdin is not a
terminal. The model receives exactly what was piped in (lines kept); no prompt at a terminal,
an empty one, or one over the cap is refused with exit status 2 and no request."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest

from levelcode.cli.run import MAX_STDIN_PROMPT_CHARS, piped_beside, task_prompt
from levelcode.core.errors import ConfigError
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, provider_env, provider_flags

PIPED = "Fix the failing test.\n\nIt is in tests/test_app.py:\n  assert value() == 2\n"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_piped(
    api: Api, base_url: str, home: Path, workspace: Path, *args: str, given: str
) -> subprocess.CompletedProcess[str]:
    command = [
        str(LEVELCODE),
        "run",
        "-C",
        str(workspace),
        *provider_flags(api.name, base_url, api.model),
        *args,
    ]
    env = provider_env(home, api.name)
    return subprocess.run(
        command, input=given, capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
@pytest.mark.parametrize("args", [(), ("-",)], ids=["no-prompt", "dash"])
def test_the_piped_prompt_reaches_the_model_as_written(
    api: Api, args: tuple[str, ...], isolated_home: Path, tmp_path: Path
) -> None:
    with api.fake([Reply(text="On it.")]) as server:
        done = run_piped(api, server.base_url, isolated_home, tmp_path, *args, given=PIPED)
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout == "On it.\n"
    last = request.body["messages"][-1]
    content = last["content"]
    text = content if isinstance(content, str) else "".join(block["text"] for block in content)
    assert last["role"] == "user"
    assert text == PIPED.strip("\n")


def test_an_empty_pipe_is_refused_before_any_request(isolated_home: Path, tmp_path: Path) -> None:
    with OPENAI.fake([Reply(text="never")]) as server:
        done = run_piped(OPENAI, server.base_url, isolated_home, tmp_path, given=" \n")
        assert server.requests == []
    assert done.returncode == 2
    assert "the prompt read from stdin is empty" in done.stderr


def test_the_prompt_comes_from_the_argument_or_stdin() -> None:
    assert task_prompt("do it", Terminal("ignored")) == "do it"
    assert task_prompt("-", Terminal("typed at the terminal\n")) == "typed at the terminal"
    assert task_prompt(None, io.StringIO("\n\npiped\n\n")) == "piped"
    with pytest.raises(ConfigError, match="no prompt"):
        task_prompt(None, Terminal("never read"))
    with pytest.raises(ConfigError, match="over 1,000,000 characters"):
        task_prompt("-", io.StringIO("x" * (MAX_STDIN_PROMPT_CHARS + 1)))
    assert len(task_prompt("-", io.StringIO("x" * MAX_STDIN_PROMPT_CHARS))) == MAX_STDIN_PROMPT_CHARS


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_text_piped_beside_a_prompt_goes_before_it(api: Api, isolated_home: Path, tmp_path: Path) -> None:
    """Claude Code's `cat build.log | claude -p "why did it fail?"`: the log is the material, the
    argument the question; neither is lost."""
    with api.fake([Reply(text="Because.")]) as server:
        done = run_piped(api, server.base_url, isolated_home, tmp_path, "why did it fail?", given=PIPED)
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    content = request.body["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(block["text"] for block in content)
    assert text == PIPED.strip("\n") + "\n\nwhy did it fail?"


def test_a_prompt_beside_a_pipe_that_never_speaks_is_not_held_back() -> None:
    """A harness that leaves stdin open and silent: the prompt alone, after the short wait."""
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "r", closefd=False) as silent:
            assert not piped_beside(silent, wait=0.05)
            os.write(write_end, b"material\n")
            assert piped_beside(silent, wait=0.05)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_prompt_beside_a_terminal_or_dev_null_reads_nothing() -> None:
    assert task_prompt("do it", Terminal("never read")) == "do it"
    with open(os.devnull) as nothing:
        assert not piped_beside(nothing, wait=0.05)
        assert task_prompt("do it", nothing) == "do it"
