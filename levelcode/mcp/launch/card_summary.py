"""The decisive lines of a launch card, which the approver keeps on screen whatever else is folded:
what changed, inline code, env entries that change what gets loaded, each secret the server would
receive through `${VAR}` (and the provider keys it will not), an unpinned package runner, and a
remote server reached over plain `http://` from another machine.

Pure: takes the spec, its facts and the names kept back, returns lines; the full text of every
argument and env entry stays in the card's body.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path

from levelcode.mcp.config.expanded_fields import variables_received
from levelcode.mcp.config.remote_urls import is_plaintext_remote
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec
from levelcode.mcp.launch.entries import plan_command
from levelcode.mcp.launch.plan import launch_argv
from levelcode.mcp.launch.trust import LaunchReview, since_approval

PURE = True

MAX_CODE_CHARS = 600  # the rest of the code is in the body and in `levelcode mcp get`
UNPINNED_NOTE = "runs whatever the registry serves when it starts"
PLAINTEXT_NOTE = "plain http:// to another machine"
PLAINTEXT_LINE = f"{PLAINTEXT_NOTE}: its headers, tokens and tool calls can be read and changed on the way"
# Environment variables that change what a program loads or runs, whatever its arguments say.
LOADER_VARIABLES = frozenset(
    {
        "PATH",
        "NODE_OPTIONS",
        "NODE_PATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "PYTHONINSPECT",
        "PYTHONPYCACHEPREFIX",
        "BASH_ENV",
        "ENV",
        "ZDOTDIR",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EXEC_PATH",
        "GIT_ASKPASS",
        "GIT_EDITOR",
        "GIT_PAGER",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "GIT_TEMPLATE_DIR",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "DENO_DIR",
    }
)
LOADER_PREFIXES = (
    "DYLD_",
    "LD_",
    "GIT_CONFIG",
    "NPM_CONFIG_",
    "UV_INDEX",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX",
)


def is_loader_variable(name: str) -> bool:
    return name in LOADER_VARIABLES or name.upper().startswith(LOADER_PREFIXES)


def launch_summary(review: LaunchReview, workspace: Path, withheld: Collection[str] = ()) -> tuple[str, ...]:
    """The card's decisive lines, most alarming first."""
    lines: list[str] = []
    if review.state == "changed":
        lines.append(since_approval(review.check.change))
    spec = review.spec
    if isinstance(spec, HttpServerSpec) and is_plaintext_remote(spec.url):
        lines.append(PLAINTEXT_LINE)
    if not isinstance(spec, HttpServerSpec):
        lines.extend(_inline_code(launch_argv(spec, workspace)))
        lines.extend(
            f"env {key}={value} — changes what the program loads"
            for key, value in spec.env
            if is_loader_variable(key)
        )
    lines.extend(_secrets(spec, withheld))
    if review.facts is not None and review.facts.unpinned:
        lines.append(f"unpinned — `{review.facts.unpinned}` {UNPINNED_NOTE}")
    return tuple(lines)


def _inline_code(argv: tuple[str, ...]) -> Iterator[str]:
    for option, code in plan_command(argv).inline_code:
        if len(code) > MAX_CODE_CHARS:
            shown = f"{code[:MAX_CODE_CHARS]}… ({MAX_CODE_CHARS} of {len(code)} characters shown)"
        else:
            shown = code
        yield f"runs inline code ({option}): {shown}"


def _secrets(spec: ServerSpec, withheld: Collection[str]) -> Iterator[str]:
    """One line per variable any expanded field refers to (config/expanded_fields.py): sent (your
    GITHUB_TOKEN), or kept back."""
    for name, field in variables_received(spec):
        if name in withheld:
            yield (
                f"{field.label} asks for {name}, LevelCode's own provider key: a repository's "
                "server never receives it (treated as unset)"
            )
        else:
            yield f"will receive your {name} ({field.label})"
