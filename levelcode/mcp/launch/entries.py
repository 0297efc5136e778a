"""What a command line runs besides its program, read from the words alone: interpreters (see
interpreters.py), `env` in front of one, and package runners — the `node_modules/.bin`
entry `npx`/`bunx`/`pnpm exec`/`yarn` would pick, the project files `uv run` reads and the local
project it (or `uvx --from PATH`, `pipx run --spec PATH`) installs, and whether
`npx`, `uvx`, `pipx run`, `bunx`, `pnpm dlx`, `yarn dlx` or `docker run` is pinned.

Pure: never looks at a file (inspection.py finds and hashes them). Wrappers other than
`env`, and whatever inline code or a shell script runs in turn, are not looked through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from levelcode.mcp.launch.interpreters import (
    BUN,
    DENO,
    CommandPlan,
    Options,
    PlanBuilder,
    interpret,
    interpreter_options,
    option_set,
    program_name,
    split_option,
)

PURE = True

Recurse = Callable[[list[str]], None]
MAX_DEPTH = 4

NPX = Options(
    value=option_set(
        "-p --package --prefix --registry --cache --userconfig -w --workspace --node-options "
        "--script-shell --loglevel"
    ),
    code=option_set("-c --call"),
)
UVX = Options(
    value=option_set(
        "--from --with --with-editable --with-requirements -w -p --python --index --default-index -i "
        "--index-url --extra-index-url -f --find-links -c --constraint --override --build-constraint "
        "--cache-dir --directory --project --config-file --env-file"
    )
)
UV_RUN = Options(
    value=option_set(
        "--with --with-editable --with-requirements -w -p --python --project --directory --env-file "
        "--index --default-index -i --index-url --extra-index-url -f --find-links --group --only-group "
        "--no-group --extra --package --config-file --cache-dir"
    ),
    module=option_set("-m --module"),
)
PIPX_RUN = Options(value=option_set("--spec --python --pip-args --index-url --backend"))
DOCKER_RUN = Options(
    value=option_set(
        "-e --env -v --volume --name -p --publish --network --net --mount -w --workdir --entrypoint -u "
        "--user --platform --pull -l --label --cpus -m --memory --add-host --cap-add --cap-drop --device "
        "--dns --gpus -h --hostname --ipc --log-driver --log-opt --restart --security-opt --shm-size "
        "--tmpfs --ulimit --cidfile --pid --userns --uts --runtime --stop-signal --stop-timeout "
        "--health-cmd --expose --link --volumes-from --group-add --memory-swap -c --cpu-shares "
        "--cpuset-cpus --annotation -a --attach --detach-keys --dns-option --dns-search --ip --ip6 "
        "--network-alias --sysctl --storage-opt --cgroupns --cgroup-parent --oom-score-adj"
    ),
    files=option_set("--env-file --label-file"),
    clusters=True,
)
UV_PROJECT_FILES = ("pyproject.toml", "uv.lock", "uv.toml", ".python-version")
_EXACT_SEMVER = re.compile(r"v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


def plan_command(argv: Sequence[str]) -> CommandPlan:
    """What `argv` (program first) runs, as far as its words tell."""
    plan = PlanBuilder()
    _plan_into(list(argv), plan, depth=0)
    return plan.frozen()


def _plan_into(argv: list[str], plan: PlanBuilder, *, depth: int) -> None:
    if not argv or depth > MAX_DEPTH:
        return
    name, args = program_name(argv[0]), argv[1:]
    options = interpreter_options(name)
    if options is not None:
        interpret(args, options, plan)
    elif name in ("deno", "bun"):
        interpret(args[1:] if args[:1] == ["run"] else args, DENO if name == "deno" else BUN, plan)
    elif name in _RUNNERS:
        _RUNNERS[name](args, plan, lambda rest: _plan_into(rest, plan, depth=depth + 1))


def walk_options(args: Sequence[str], options: Options) -> tuple[list[tuple[str, str | None]], int]:
    """A runner's own options (name, value) and the index of its first other word."""
    pairs: list[tuple[str, str | None]] = []
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        if args[index] == "--":
            return pairs, index + 1
        following = args[index + 1] if index + 1 < len(args) else None
        parsed, used_next = split_option(args[index], following, options)
        pairs.extend(parsed)
        index += 2 if used_next else 1
    return pairs, index


def _values(pairs: list[tuple[str, str | None]], *names: str) -> list[str]:
    return [value for option, value in pairs if option in names and value]


def _env(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-u", "--unset"):
            index += 2
        elif word in ("-i", "--ignore-environment", "-0", "--null", "-") or word.startswith("--unset="):
            index += 1
        elif word == "--":
            index += 1
            break
        elif word.startswith("-"):
            return  # -S, -C …: not looked through
        elif "=" in word:
            index += 1
        else:
            break
    recurse(args[index:])


def _npx(args: list[str], plan: PlanBuilder, runner: str = "npx", *, local: bool = True) -> None:
    """`npx [-y] [-p PKG]... CMD`: the packages (registry or workspace) and the bin that runs."""
    pairs, at = walk_options(args, NPX)
    plan.add("file", ".npmrc")  # it can name the registry that serves the package
    plan.code.extend((option, value or "") for option, value in pairs if option in NPX.code)
    command = args[at] if at < len(args) else None
    packages = _values(pairs, "-p", "--package") or ([command] if command else [])
    for spec in packages:
        if local:
            plan.add("package", npm_package_name(spec))
        if plan.unpinned is None and not npm_spec_pinned(spec):
            plan.unpinned = f"{runner} {spec}"
    if local and command:
        plan.add("bin", npm_package_name(command).rsplit("/", 1)[-1])


def npm_package_name(spec: str) -> str:
    """`@scope/pkg@1.2.3` → `@scope/pkg`; `pkg@latest` → `pkg`."""
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


def npm_spec_pinned(spec: str) -> bool:
    """An exact version (`pkg@1.2.3`) or a local path; not a range, a tag, or nothing."""
    if spec.startswith((".", "/", "file:")):
        return True
    at = spec.find("@", 1)
    return at > 0 and bool(_EXACT_SEMVER.fullmatch(spec[at + 1 :]))


def _npm(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:1] in (["exec"], ["x"]):
        _npx(args[1:], plan, "npm exec")
    elif args[:1] in (["run"], ["run-script"], ["start"], ["test"]):
        plan.add("file", "package.json")


def _pnpm(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:1] == ["dlx"]:
        _npx(args[1:], plan, "pnpm dlx", local=False)
    elif args[:1] == ["exec"] and len(args) > 1:
        plan.add("bin", args[1])
    elif args:
        _package_script(args[1:] if args[0] == "run" else args, plan)


def _yarn(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:1] == ["dlx"]:
        _npx(args[1:], plan, "yarn dlx", local=False)
    elif args[:1] == ["exec"] and len(args) > 1:
        plan.add("bin", args[1])
    elif args:
        _package_script(args[1:] if args[0] == "run" else args, plan)


def _package_script(args: list[str], plan: PlanBuilder) -> None:
    """`yarn NAME` / `pnpm run NAME`: a script from package.json, or a bin from node_modules."""
    if args and not args[0].startswith("-"):
        plan.add("file", "package.json")
        plan.add("bin", args[0])


def _uvx(args: list[str], plan: PlanBuilder, runner: str = "uvx") -> None:
    pairs, at = walk_options(args, UVX)
    froms = _values(pairs, "--from")
    spec = froms[-1] if froms else (args[at] if at < len(args) else None)
    if spec and not python_spec_pinned(spec):
        plan.unpinned = f"{runner} {spec}"
    if froms and is_local_project(froms[-1]):
        plan.add("python_project", froms[-1])


def is_local_project(spec: str) -> bool:
    """`.`, `./tools/server`, `/abs/path`: a project folder built from the workspace, not a package."""
    return spec.startswith((".", "/"))


def python_spec_pinned(spec: str) -> bool:
    """`pkg==1.2`, `pkg@1.2` (uvx's spelling) or a local path; not `pkg`, `pkg>=1`, `pkg@latest`."""
    if spec.startswith((".", "/")):
        return True
    return "==" in spec or bool(re.search(r"@v?\d", spec))


def _uv(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:2] == ["tool", "run"]:
        _uvx(args[2:], plan, "uv tool run")
    elif args[:1] == ["run"]:
        _uv_run(args[1:], plan, recurse)


def _uv_run(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    """`uv run [opts] script.py | -m module | command …`: the project files decide what is installed."""
    pairs, at = walk_options(args, UV_RUN)
    for name in UV_PROJECT_FILES:
        plan.add("file", name)
    projects = _values(pairs, "--project", "--directory")
    plan.add("python_project", projects[-1] if projects else ".")  # installed editable: imported
    for module in _values(pairs, "-m", "--module"):
        plan.add("python_module", module)
    for spec in _values(pairs, "--with", "-w"):
        if plan.unpinned is None and not python_spec_pinned(spec):
            plan.unpinned = f"uv run --with {spec}"
    rest = args[at:]
    if rest and (rest[0].endswith(".py") or "/" in rest[0]):
        plan.add("python_script", rest[0])
    elif rest:
        recurse(rest)


def _pipx(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:1] != ["run"]:
        return
    pairs, at = walk_options(args[1:], PIPX_RUN)
    specs = _values(pairs, "--spec") or args[1 + at : 2 + at]
    if specs and not python_spec_pinned(specs[-1]):
        plan.unpinned = f"pipx run {specs[-1]}"
    if specs and is_local_project(specs[-1]):
        plan.add("python_project", specs[-1])


def _docker(args: list[str], plan: PlanBuilder, recurse: Recurse) -> None:
    if args[:2] == ["container", "run"]:
        args = args[1:]
    if args[:1] != ["run"]:
        return
    pairs, at = walk_options(args[1:], DOCKER_RUN)
    for name in _values(pairs, *DOCKER_RUN.files):
        plan.add("file", name)
    image = args[1 + at] if 1 + at < len(args) else None
    if image and "@sha256:" not in image:
        plan.unpinned = f"docker run {image}"


_RUNNERS: dict[str, Callable[[list[str], PlanBuilder, Recurse], None]] = {
    "env": _env,
    "npx": lambda args, plan, _recurse: _npx(args, plan),
    "bunx": lambda args, plan, _recurse: _npx(args, plan, "bunx"),
    "npm": _npm,
    "pnpm": _pnpm,
    "yarn": _yarn,
    "uvx": lambda args, plan, _recurse: _uvx(args, plan),
    "uv": _uv,
    "pipx": _pipx,
    "docker": _docker,
    "podman": _docker,
}
