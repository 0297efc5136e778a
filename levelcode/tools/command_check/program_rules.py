"""Safety rules for programs with subcommands: docker/podman, GitHub and cloud CLIs.

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from levelcode.tools.command_check.command_call import Call, Rule, option_value, subcommands_rule
from levelcode.tools.command_check.shell_words import Word

_DOCKER_VALUE_OPTIONS = frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"})
_HOST_NAMESPACES = re.compile(r"--(pid|net|network|ipc|uts|userns|cgroupns)(=|$)")
_DOCKER_REMOVALS = frozenset({"rm", "rmi", "kill", "stop", "prune", "remove", "down"})


def _mount_source(option: str, value: str) -> str | None:
    if option in ("-v", "--volume"):
        return value.split(":", 1)[0] if ":" in value else None
    match = re.search(r"(?:^|,)(?:source|src)=([^,]*)", value)
    return match.group(1) if match and "type=bind" in value else None


def _docker_run_checks(call: Call, args: tuple[Word, ...]) -> Iterator[str]:
    for index, word in enumerate(args):
        text = word.text
        value = args[index + 1] if index + 1 < len(args) else Word("")
        if text == "--privileged" or text.startswith("--privileged="):
            yield "runs a privileged container (docker --privileged)"
        if _HOST_NAMESPACES.match(text) and "host" in (text.split("=", 1)[1:] or [value.text]):
            yield "shares the host's namespaces with the container (--pid/--network=host)"
        if text.split("=", 1)[0] in ("--cap-add", "--security-opt", "--device"):
            yield "widens what the container may do on the host (--cap-add / --security-opt / --device)"
        option, _, attached = text.partition("=")
        if option in ("-v", "--volume", "--mount"):
            source = _mount_source(option, attached or value.text)
            if source and source[:1] in "/~.$":
                mount = Word(source, word.dynamic or value.dynamic)
                if problem := call.scope.write_problem(mount):
                    yield f"mounts {problem} into a container"


_COMPOSE_VALUE_OPTIONS = frozenset({"-f", "--file", "-p", "--project-name", "--profile", "--env-file"})
_COMPOSE_VALUE_OPTIONS |= {"--project-directory", "--ansi", "--parallel", "--progress"}
_COMPOSE_RUNS = frozenset({"up", "run", "exec", "create", "start", "restart", "watch"})


def _skip_options(args: tuple[Word, ...], index: int, value_options: frozenset[str]) -> int:
    while index < len(args) and args[index].text.startswith("-"):
        index += 2 if args[index].text in value_options else 1
    return index


def docker_rule(call: Call) -> Iterator[str]:
    args = call.args
    index = _skip_options(args, 0, _DOCKER_VALUE_OPTIONS)
    group = args[index].text if index < len(args) else ""
    if group in ("container", "image", "volume", "network", "system", "builder", "compose"):
        index = _skip_options(args, index + 1, _COMPOSE_VALUE_OPTIONS if group == "compose" else frozenset())
    action = args[index].text if index < len(args) else ""
    if group == "compose" and action in _COMPOSE_RUNS:
        yield (
            f"runs the containers a compose file describes ({call.name} compose {action}); "
            "they may mount any host path"
        )
    elif action in ("run", "create", "exec"):
        yield f"runs a command in a container ({call.name} {action}); what the image runs is not visible here"
        yield from _docker_run_checks(call, args[index + 1 :])
    elif action in _DOCKER_REMOVALS:
        yield f"removes or stops containers, images or volumes ({call.name} {action})"


def compose_rule(call: Call) -> Iterator[str]:
    """`docker-compose ...`, the standalone spelling of `docker compose ...`."""
    yield from docker_rule(replace(call, args=(Word("compose"), *call.args)))


def gh_rule(call: Call) -> Iterator[str]:
    texts = [word.text for word in call.args]
    if "delete" in texts:
        yield "deletes something on GitHub (gh ... delete)"
    method = option_value(call.args, "-X", "--method")
    if texts[:1] == ["api"] and method is not None and method.text.upper() != "GET":
        yield f"changes something on GitHub (gh api -X {method.text})"


PROGRAM_RULES: dict[str, Rule] = {
    **dict.fromkeys(("docker", "podman", "nerdctl"), docker_rule),
    **dict.fromkeys(("docker-compose", "podman-compose"), compose_rule),
    "gh": gh_rule,
    "kubectl": subcommands_rule(
        frozenset({"delete", "drain", "cordon", "taint", "replace", "scale", "patch"}),
        "changes or deletes cluster resources",
    ),
    "helm": subcommands_rule(
        frozenset({"uninstall", "delete", "rollback"}), "removes or rolls back a release"
    ),
    **dict.fromkeys(
        ("terraform", "tofu"),
        subcommands_rule(
            frozenset({"apply", "destroy", "import", "taint", "state"}), "changes real infrastructure"
        ),
    ),
}
