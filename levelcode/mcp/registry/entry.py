"""A registry's `server.json` made into a LevelCode server entry: which of its packages or remotes
to use, and for a package the command that runs exactly that release — `npx -y pkg@1.2.3`,
`uvx pkg==1.2.3`, `docker run -i --rm image@sha256:…` — with its declared arguments and
environment filled in, `"sandbox": true` for npm and PyPI packages (its own folder, and the network
only to its package registry), and the `registry` origin the views show.

Pure: the server's document, the values (inputs.py) and the origin in; the entry and what to say
about it out. The entry is then validated with the checks config loading applies (cli), and a
command that would not be pinned, or would run inline code, is refused here first: the launch
card's own reading of a command line (mcp/launch/entries.py) must find it pinned.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from levelcode.core.errors import RegistryError
from levelcode.mcp.config.registry_entry import REGISTRY_KEY, RegistryOrigin
from levelcode.mcp.launch.entries import plan_command
from levelcode.mcp.registry.documents import Argument, Package, Remote, ServerDetail
from levelcode.mcp.registry.inputs import Filler, Need
from levelcode.mcp.registry.rules import (
    EXTRAS,
    PYTHON_VERSION,
    RUNNERS,
    ImageReference,
    npm_package,
    oci_image,
    option_name,
    pypi_package,
    refused_runner_option,
    variable_name,
)

PURE = True

Entry = dict[str, object]
TRANSPORT_CHOICES = {"stdio": "package", "http": "streamable-http remote", "sse": "sse remote"}
DOCKER_FLAGS = ("-i", "--interactive", "--rm")  # LevelCode passes these itself
DOCKER_NOTE = (
    "it runs in a docker container: docker's isolation, not LevelCode's sandbox (the container is "
    "started by docker's daemon, outside any sandbox LevelCode could build)"
)


@dataclass(frozen=True)
class Made:
    entry: Entry
    notes: tuple[str, ...] = ()  # what the user should know about it (a tag, not a digest, …)


def choose(server: ServerDetail, transport: str | None) -> Package | Remote:
    """The package or remote to use: `transport` stdio (a package), http or sse (a remote); None:
    the first package LevelCode runs, else a streamable-http remote, else an sse one."""
    runnable = [p for p in server.packages if p.registry_type in RUNNERS and p.transport == "stdio"]
    remotes = {
        kind: [r for r in server.remotes if r.transport == kind] for kind in ("streamable-http", "sse")
    }
    choices: dict[str | None, list[Package | Remote]] = {
        None: [*runnable, *remotes["streamable-http"], *remotes["sse"]],
        "stdio": [*runnable],
        "http": [*remotes["streamable-http"]],
        "sse": [*remotes["sse"]],
    }
    wanted = choices.get(transport, [])
    if wanted:
        return wanted[0]
    raise RegistryError(f"{server.name} {server.version} {_what_it_offers(server, transport)}")


def _what_it_offers(server: ServerDetail, transport: str | None) -> str:
    offered = [f"{p.registry_type} package" + _served(p) for p in server.packages]
    offered += [f"{r.transport} remote" for r in server.remotes]
    if transport is not None and offered:
        return f"offers no {TRANSPORT_CHOICES[transport]}; it offers: {', '.join(offered)}"
    if not offered:
        return "offers neither a package nor a remote server to connect to"
    return (
        f"offers only {', '.join(offered)}: LevelCode runs npm, PyPI and OCI packages over stdio, "
        "and remote servers (streamable-http, sse)"
    )


def _served(package: Package) -> str:
    return "" if package.transport == "stdio" else f" serving {package.transport} itself"


def package_entry(server: ServerDetail, package: Package, filler: Filler, origin: RegistryOrigin) -> Made:
    where = f"{server.name} {server.version}"
    env = _environment(package, filler, where)
    arguments = _arguments(package.package_arguments, filler, "argument")
    notes: list[str] = []
    if package.registry_type == "npm":
        _runner_flags(package, "npx", ("-y", "--yes"), filler, where)
        command, args = "npx", ["-y", npm_package(package.identifier, package.version, where), *arguments]
    elif package.registry_type == "pypi":
        command, args = "uvx", [*_uvx_head(package, filler, where), *arguments]
    else:
        image = oci_image(package.identifier, package.version, where)
        command, args = "docker", _docker_args(package, image, env, filler, where) + arguments
        notes += [DOCKER_NOTE] + ([] if image.digest else [_tag_note(image)])
    entry: Entry = {"command": command, "args": args}
    if env:
        entry["env"] = env
    if command != "docker":
        entry["sandbox"] = True
    entry[REGISTRY_KEY] = origin.as_json()
    _pinned_and_plain(command, args, where, by_tag=command == "docker")
    return Made(entry, tuple(notes))


def _tag_note(image: ImageReference) -> str:
    return (
        f"pinned by its tag {image.tag} only: the registry gave no digest, and whoever publishes "
        "the image can move a tag"
    )


def _pinned_and_plain(command: str, args: list[str], where: str, *, by_tag: bool) -> None:
    """The launch card's reading of the command: pinned (a docker tag aside, said in the notes)
    and with no inline code. A rule above that let something through is caught here."""
    plan = plan_command([command, *args])
    if plan.inline_code:
        raise RegistryError(f"{where}: the command would run inline code ({plan.inline_code[0][0]})")
    if plan.unpinned is not None and not by_tag:
        raise RegistryError(f"{where}: the command would not be pinned ({plan.unpinned})")


def _environment(package: Package, filler: Filler, where: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for variable in package.environment:
        name = variable_name(variable.name, f"{where}: environmentVariables")
        need = Need(name, f"env {name}", variable.input, reference=name)
        values = filler.values(need)
        if values:
            env[name] = values[0]
    return env


def _arguments(arguments: tuple[Argument, ...], filler: Filler, kind: str) -> list[str]:
    words: list[str] = []
    for index, argument in enumerate(arguments):
        if argument.kind == "positional":
            key = argument.value_hint or f"{kind}{index + 1}"
            words += filler.values(Need(key, f"{kind} {key}", argument.input))
            continue
        flag = option_name(argument.name or "", f"{kind} {argument.name!r}")
        for value in filler.values(Need(flag.lstrip("-"), f"{kind} {flag}", argument.input)):
            if argument.input.format == "boolean":
                words += [flag] if value == "true" else []
            else:
                words += [flag, value]
    return words


def _fixed(argument: Argument) -> str | None:
    """A runner argument's word as the server.json fixes it (positional value or hint, named flag)."""
    if argument.kind == "named":
        return argument.name
    return argument.input.value if argument.input.value is not None else argument.value_hint


def _runner_flags(
    package: Package, runner: str, allowed: tuple[str, ...], filler: Filler, where: str
) -> None:
    """Runtime arguments that only repeat what LevelCode passes anyway; any other is refused."""
    for argument in package.runtime_arguments:
        word = _fixed(argument) or ""
        if word not in allowed:
            raise refused_runner_option(runner, word, where)


def _uvx_head(package: Package, filler: Filler, where: str) -> list[str]:
    """`uvx [--python 3.12] pkg==1.2.3`, or `uvx --from 'pkg[extra]==1.2.3' COMMAND` when the
    server.json names the package (and extras) to take its command from."""
    spec = pypi_package(package.identifier, package.version, where)
    head: list[str] = []
    for argument in package.runtime_arguments:
        word = _fixed(argument) or ""
        values = filler.values(Need(word.lstrip("-"), f"uvx {word}", argument.input)) if word else []
        if (
            argument.kind == "named"
            and word in ("--python", "-p")
            and values
            and PYTHON_VERSION.match(values[0])
        ):
            head += ["--python", values[0]]
        elif argument.kind == "named" and word == "--from" and values and _same_package(values[0], package):
            head += ["--from", values[0] + spec[len(package.identifier) :]]
        else:
            shown = " ".join([word, *values]) if argument.kind == "named" else word
            raise refused_runner_option("uvx", shown, where)
    if "--from" not in head:
        return [*head, spec]
    first = package.package_arguments[:1]
    if not first or first[0].kind != "positional" or first[0].input.value is None:
        raise RegistryError(f"{where}: uvx --from names no command to run (its first package argument)")
    return head


def _same_package(text: str, package: Package) -> bool:
    """`pkg[extra]` for the package itself: extras, never another package or a version."""
    match = EXTRAS.match(text)
    return match is not None and _normal(match.group("name")) == _normal(package.identifier)


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _docker_args(
    package: Package, image: ImageReference, env: dict[str, str], filler: Filler, where: str
) -> list[str]:
    """`run -i --rm [--init] [-e NAME]... IMAGE`: the environment by name only (values stay out of
    the command line, which every process can read); `run`, `-i`, `--rm` and the image named again
    are what LevelCode writes anyway; any other runtime argument is refused."""
    init: list[str] = []
    for argument in package.runtime_arguments:
        word = _fixed(argument) or ""
        if argument.kind == "positional" and word in ("run", image.repository, package.identifier):
            continue
        if argument.kind == "named" and word in DOCKER_FLAGS:
            continue
        if argument.kind == "named" and word == "--init":
            init = ["--init"]
        elif argument.kind == "named" and word in ("-e", "--env"):
            _docker_env(argument, env, filler, where)
        else:
            raise refused_runner_option("docker", word, where)
    passed = [flag for name in env for flag in ("-e", name)]
    return ["run", "-i", "--rm", *init, *passed, image.text()]


def _docker_env(argument: Argument, env: dict[str, str], filler: Filler, where: str) -> None:
    """`-e NAME=VALUE` (VALUE may hold `{variables}`, secrets among them) into the environment;
    `-e NAME` alone only for a variable the package declares (never one of the user's own)."""
    text = argument.input.value or ""
    name, has_value, template = text.partition("=")
    name = variable_name(name, f"{where}: docker -e")
    if not has_value:
        return  # passed through only when declared: it is in `env` already, or not passed at all
    fixed = dataclasses.replace(argument.input, value=template)
    values = filler.values(Need(name, f"env {name}", fixed, reference=name))
    if values:
        env[name] = values[0]
