"""The decisive lines of a launch card. Load-bearing direction: inline code, an env entry that
changes what gets loaded, every `${VAR}` the server would receive, a provider key it asks for and
will not get, an unpinned runner and what changed since approval are each named in the summary
(which the terminal keeps on screen). The second corpus: an ordinary launch has no alarming
lines, and a plain env entry is not called a loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.card_summary import MAX_CODE_CHARS, is_loader_variable, launch_summary
from levelcode.mcp.launch.launch_card import launch_card
from levelcode.mcp.launch.trust import LaunchFacts, LaunchReview, TrustCheck

REPO = Provenance("workspace", "/repo/.mcp.json")
WS = Path("/repo")


def summary(spec: StdioServerSpec | HttpServerSpec, **kw: object) -> tuple[str, ...]:
    facts = kw.pop("facts", None)
    check = kw.pop("check", TrustCheck("never_approved"))
    review = LaunchReview(spec, facts, check)  # type: ignore[arg-type]
    return launch_summary(review, WS, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("command", "args", "line"),
    [
        (
            "python3",
            ("-c", "import os; os.system('id')"),
            "runs inline code (-c): import os; os.system('id')",
        ),
        ("node", ("-e", "require('child_process')"), "runs inline code (-e): require('child_process')"),
        ("node", ("--eval=x()",), "runs inline code (--eval): x()"),
        ("node", ("-p", "1"), "runs inline code (-p): 1"),
        ("sh", ("-c", "curl x | sh"), "runs inline code (-c): curl x | sh"),
        ("perl", ("-e", "system 1"), "runs inline code (-e): system 1"),
    ],
)
def test_inline_code_is_in_the_summary(command: str, args: tuple[str, ...], line: str) -> None:
    assert line in summary(StdioServerSpec("s", command, REPO, args=args))


def test_long_inline_code_is_cut_in_the_summary_only() -> None:
    code = "x" * (MAX_CODE_CHARS + 50)
    spec = StdioServerSpec("s", "python3", REPO, args=("-c", code))
    (line,) = summary(spec)
    assert line.endswith(f"({MAX_CODE_CHARS} of {len(code)} characters shown)")
    assert f"arg 2:   {code}" in launch_card(LaunchReview(spec, None, TrustCheck("never_approved")), WS).body


@pytest.mark.parametrize(
    "key",
    ["NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
     "BASH_ENV", "ENV", "DYLD_INSERT_LIBRARIES", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "NODE_PATH",
     "JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND", "GIT_CONFIG_COUNT", "PATH", "npm_config_registry"],
)  # fmt: skip
def test_loader_variables_are_flagged(key: str) -> None:
    spec = StdioServerSpec("s", "node", REPO, args=("s.js",), env=((key, "./x"),))
    assert f"env {key}=./x — changes what the program loads" in summary(spec)


@pytest.mark.parametrize("key", ["NODE_ENV", "DEBUG", "GITHUB_TOKEN", "LOG_LEVEL", "MEMORY_FILE_PATH"])
def test_plain_variables_are_not_called_loaders(key: str) -> None:
    assert not is_loader_variable(key)


def test_every_reference_says_whose_secret_the_server_gets() -> None:
    env = (
        ("GH_TOKEN", "${GITHUB_TOKEN}"),
        ("A", "${AWS_KEY:-x}-${GITHUB_TOKEN}"),
        ("K", "${OPENAI_API_KEY}"),
    )
    lines = summary(StdioServerSpec("s", "gh-mcp", REPO, env=env), withheld=["OPENAI_API_KEY"])
    assert lines == (
        "will receive your GITHUB_TOKEN (env GH_TOKEN)",
        "will receive your AWS_KEY (env A)",
        "env K asks for OPENAI_API_KEY, LevelCode's own provider key: a repository's server never "
        "receives it (treated as unset)",
    )
    http = HttpServerSpec("h", "https://x/mcp", REPO, headers=(("Authorization", "Bearer ${TOKEN}"),))
    assert summary(http) == ("will receive your TOKEN (header Authorization)",)


def test_unpinned_runners_and_changes_are_named() -> None:
    spec = StdioServerSpec("s", "npx", REPO, args=("-y", "pkg"))
    facts = LaunchFacts("/usr/bin/npx", (), "npx pkg")
    lines = summary(spec, facts=facts, check=TrustCheck("changed", "server.py changed"))
    assert lines == (
        "server.py changed since you approved it",
        "unpinned — `npx pkg` runs whatever the registry serves when it starts",
    )


def test_an_ordinary_launch_has_nothing_alarming() -> None:
    spec = StdioServerSpec("s", "node", REPO, args=("dist/index.js",), env=(("NODE_ENV", "production"),))
    assert summary(spec, facts=LaunchFacts("/usr/bin/node")) == ()
