"""Every field of a server entry whose `${VAR}` LevelCode fills in from the user's environment when
the server starts: a stdio server's `env` values, and the `${VAR}` config loading left in its
`command` and `args` (those that look like secrets: config/launch_expansion.py); a remote
server's header values, what was left in its `url`, and its `oauth.clientSecret`. The one list
that the launch card's "will receive your …" lines and the check for LevelCode's own provider
keys read, so that no field that sends a secret goes unmentioned.

`cwd` (only `${workspaceFolder}` is filled in there, and in `args`), `oauth.clientId` and the
other oauth keys reach the server as written.

Pure: reads the spec, never the environment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from levelcode.mcp.config.environment import references
from levelcode.mcp.config.launch_expansion import WORKSPACE_FOLDER_NAME
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec

PURE = True


@dataclass(frozen=True)
class ExpandedField:
    """One value that is expanded: where it is (`env`, `header`, `oauth`), its key, its text."""

    field: str
    key: str
    value: str

    @property
    def label(self) -> str:
        """`env GITHUB_TOKEN`, `header Authorization`, `oauth clientSecret`, `arg 3`, `url`."""
        return f"{self.field} {self.key}".strip()


def expanded_fields(spec: ServerSpec) -> Iterator[ExpandedField]:
    """The entry's values that LevelCode expands `${VAR}` in, in the order they are written."""
    if not isinstance(spec, HttpServerSpec):
        yield ExpandedField("command", "", spec.command)
        yield from (ExpandedField("arg", str(index), arg) for index, arg in enumerate(spec.args, 1))
        yield from (ExpandedField("env", key, value) for key, value in spec.env)
        return
    yield ExpandedField("url", "", spec.url)
    yield from (ExpandedField("header", key, value) for key, value in spec.headers)
    if spec.oauth is not None and spec.oauth.client_secret:
        yield ExpandedField("oauth", "clientSecret", spec.oauth.client_secret)


def variables_received(spec: ServerSpec) -> list[tuple[str, ExpandedField]]:
    """(variable, the first field that refers to it) for every `${VAR}` the server would receive."""
    found: dict[str, ExpandedField] = {}
    for field in expanded_fields(spec):
        for name in references(field.value):
            if name != WORKSPACE_FOLDER_NAME:  # the workspace's path, not the user's variable
                found.setdefault(name, field)
    return list(found.items())
