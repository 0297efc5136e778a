"""Reading what a command line runs from its words. Load-bearing direction: the script, module,
preload or package an interpreter or runner really runs is found — and for Python the folder it
imports from first (`-c`, stdin) and the local project `uv run`/`uvx --from .` install — past
value-taking options (`node --title x server.js` runs server.js), through `env`, inside clusters
(`python -Bc`), so an approval can cover its content; inline code is always reported, and a
runner without an exact version is called unpinned. The second corpus: option values are not
taken for scripts, and a pinned runner is not called unpinned."""

from __future__ import annotations

import pytest

from levelcode.mcp.launch.entries import npm_spec_pinned, plan_command, python_spec_pinned
from levelcode.mcp.launch.interpreters import Entry

S, N, P = "script", "node_script", "python_script"
UV_FILES = [("file", f) for f in ("pyproject.toml", "uv.lock", "uv.toml", ".python-version")]

FOUND = [
    (["python3", "server.py", "--port", "1"], [(P, "server.py")]),
    (["python3.12", "-u", "-W", "ignore", "-X", "dev", "srv/main.py"], [(P, "srv/main.py")]),
    (["/usr/bin/python", "-Wignore", "-I", "run.py"], [(P, "run.py")]),
    (["python3", "-um", "mcp_server_git"], [("python_module", "mcp_server_git")]),
    (["pypy3", "-m", "pkg.sub"], [("python_module", "pkg.sub")]),
    (["python3", "--", "-odd.py"], [(P, "-odd.py")]),
    (["python3", "-c", "import srv"], [("python_folder", ".")]),  # '' (the cwd) is first on sys.path
    (["python3", "-"], [("python_folder", ".")]),
    (["node", "--title", "x", "server.js"], [(N, "server.js")]),
    (["node", "--title=x", "--max-old-space-size=4096", "dist/index"], [(N, "dist/index")]),
    (
        ["nodejs", "-r", "./pre.js", "--import", "tsx", "--require=@s/hook/x", "s.mjs"],
        [(N, "./pre.js"), ("node_module", "tsx"), ("node_module", "@s/hook/x"), (N, "s.mjs")],
    ),
    (["node", "--env-file", ".env", "s.js"], [("file", ".env"), (N, "s.js")]),
    (["tsx", "--tsconfig", "t.json", "src/server.ts"], [("file", "t.json"), (N, "src/server.ts")]),
    (["deno", "run", "-A", "--config", "deno.json", "main.ts"], [(N, "main.ts")]),
    (["bun", "run", "--preload", "./p.ts", "index.ts"], [(N, "./p.ts"), (N, "index.ts")]),
    (["bash", "-x", "-o", "pipefail", "run.sh"], [(S, "run.sh")]),
    (["sh", "+o", "errexit", "run.sh"], [(S, "run.sh")]),
    (["ruby", "-I", "lib", "-rjson", "x.rb"], [("file", "json"), (S, "x.rb")]),
    (["perl", "-I", "lib", "-w", "s.pl"], [(S, "s.pl")]),
    (["php", "-d", "x=1", "-f", "s.php"], [(S, "s.php")]),
    (["lua", "-l", "mod", "s.lua"], [(S, "s.lua")]),
    (["env", "-i", "A=1", "-u", "B", "node", "x.js"], [(N, "x.js")]),
    (["uv", "run", "--with", "x==1", "server.py"], [*UV_FILES, ("python_project", "."), (P, "server.py")]),
    (["uv", "run", "-m", "srv"], [*UV_FILES, ("python_project", "."), ("python_module", "srv")]),
    (["uv", "run", "--directory", "tools", "srv"], [*UV_FILES, ("python_project", "tools")]),
    (["uvx", "--from", ".", "srv"], [("python_project", ".")]),
    (["uv", "tool", "run", "--from", "./tools/srv", "srv"], [("python_project", "./tools/srv")]),
    (["pipx", "run", "--spec", "./srv", "srv"], [("python_project", "./srv")]),
    (["uvx", "--from", "srv==1.0", "srv"], []),
    (["yarn", "mcp"], [("file", "package.json"), ("bin", "mcp")]),
    (["pnpm", "exec", "mcp"], [("bin", "mcp")]),
    (["docker", "run", "--env-file", "x.env", "img@sha256:ab"], [("file", "x.env")]),
]


@pytest.mark.parametrize(("argv", "entries"), FOUND)
def test_what_a_command_line_runs_is_found(argv: list[str], entries: list[tuple[str, str]]) -> None:
    assert plan_command(argv).entries == tuple(Entry(k, n) for k, n in entries)  # type: ignore[arg-type]


def test_npx_looks_for_the_package_its_bin_and_the_npmrc() -> None:
    plan = plan_command(["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.1.1", "/tmp"])
    assert plan.entries == (
        Entry("file", ".npmrc"),
        Entry("package", "@modelcontextprotocol/server-filesystem"),
        Entry("bin", "server-filesystem"),
    )
    assert plan.unpinned is None


INLINE = [
    (["python3", "-c", "import os"], ("-c", "import os")),
    (["python3", "-Bc", "import os"], ("-c", "import os")),
    (["python3", "-cimport os"], ("-c", "import os")),
    (["node", "-e", "require('x')"], ("-e", "require('x')")),
    (["node", "--eval=1+1"], ("--eval", "1+1")),
    (["node", "-p", "1"], ("-p", "1")),
    (["node", "--print", "1"], ("--print", "1")),
    (["bash", "-c", "curl x | sh"], ("-c", "curl x | sh")),
    (["sh", "-ec", "id"], ("-c", "id")),
    (["perl", "-lne", "print"], ("-e", "print")),
    (["perl", "-E", "say 1"], ("-E", "say 1")),
    (["ruby", "-e", "puts 1"], ("-e", "puts 1")),
    (["php", "-r", "echo 1;"], ("-r", "echo 1;")),
    (["lua", "-e", "x()"], ("-e", "x()")),
    (["deno", "eval", "1"], None),
    (["npx", "-c", "evil"], ("-c", "evil")),
    (["env", "A=1", "python3", "-c", "x"], ("-c", "x")),
]


@pytest.mark.parametrize(("argv", "code"), INLINE)
def test_inline_code_is_reported(argv: list[str], code: tuple[str, str] | None) -> None:
    plan = plan_command(argv)
    assert plan.inline_code == ((code,) if code else ())
    if code:
        assert not [e for e in plan.entries if e.kind in ("script", "python_script", "node_script")]


UNPINNED = [
    (["npx", "-y", "@modelcontextprotocol/server-filesystem"], "npx @modelcontextprotocol/server-filesystem"),
    (["npx", "pkg@^1.2.0"], "npx pkg@^1.2.0"),
    (["npx", "pkg@latest"], "npx pkg@latest"),
    (["npx", "-p", "a@1.0.0", "-p", "b", "bin"], "npx b"),
    (["bunx", "pkg"], "bunx pkg"),
    (["pnpm", "dlx", "pkg"], "pnpm dlx pkg"),
    (["yarn", "dlx", "pkg@1"], "yarn dlx pkg@1"),
    (["npm", "exec", "--", "pkg"], "npm exec pkg"),
    (["uvx", "mcp-server-time"], "uvx mcp-server-time"),
    (["uvx", "--from", "git+https://x/y", "y"], "uvx git+https://x/y"),
    (["uvx", "pkg>=1"], "uvx pkg>=1"),
    (["uv", "tool", "run", "pkg"], "uv tool run pkg"),
    (["uv", "run", "--with", "fastmcp", "fastmcp", "run", "s.py"], "uv run --with fastmcp"),
    (["pipx", "run", "pkg"], "pipx run pkg"),
    (["pipx", "run", "--spec", "pkg>=2", "app"], "pipx run pkg>=2"),
    (
        ["docker", "run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/github/github-mcp-server"],
        "docker run ghcr.io/github/github-mcp-server",
    ),
    (["docker", "container", "run", "-it", "img:1.0"], "docker run img:1.0"),
    (["podman", "run", "img"], "docker run img"),
]
PINNED = [
    ["npx", "-y", "pkg@1.2.3"],
    ["npx", "-y", "@scope/pkg@1.2.3-rc.1"],
    ["npx", "./local"],
    ["uvx", "mcp-server-time==2026.1.19"],
    ["uvx", "mcp-server-time@2026.1.19"],
    ["uvx", "--from", "pkg==1", "cmd"],
    ["pipx", "run", "pkg==1.0"],
    ["docker", "run", "img@sha256:0123abcd"],
    ["node", "server.js"],
    ["python3", "-m", "pkg"],
]


@pytest.mark.parametrize(("argv", "note"), UNPINNED)
def test_unpinned_runners_are_named(argv: list[str], note: str) -> None:
    assert plan_command(argv).unpinned == note


@pytest.mark.parametrize("argv", PINNED)
def test_pinned_runners_and_plain_programs_are_not_called_unpinned(argv: list[str]) -> None:
    assert plan_command(argv).unpinned is None


def test_version_checks() -> None:
    assert npm_spec_pinned("@a/b@1.0.0")
    assert not npm_spec_pinned("@a/b")
    assert not npm_spec_pinned("@a/b@1")
    assert python_spec_pinned("x==1")
    assert not python_spec_pinned("x~=1")


def test_option_values_are_not_taken_for_scripts() -> None:
    for argv in (
        ["python3", "-W", "x.py", "real.py"],
        ["node", "--title", "x.js", "real.py"],
        ["bash", "-o", "x.py", "real.py"],
    ):
        assert [e.name for e in plan_command(argv).entries] == ["real.py"]


def test_unknown_programs_and_empty_lines_run_nothing_we_can_name() -> None:
    assert plan_command([]).entries == ()
    assert plan_command(["github-mcp-server", "stdio"]).entries == ()
    assert plan_command(["python3"]).entries == ()
    assert plan_command(["env", "-S", "node x.js"]).entries == ()
