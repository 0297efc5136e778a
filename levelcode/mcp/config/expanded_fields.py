"""Every field of a server entry whose `${VAR}` LevelCode fills in from the user's environment: a
stdio server's `env` values, a remote server's header values and its `oauth.clientSecret`. The one
list that the launch card's "will receive your …" lines and the check for LevelCode's own provider
keys read, so that no field that sends a secret goes unmentioned.

Everything else reaches the server as written: `command`, `args` and `cwd` (only
`${workspaceFolder}` is filled in there), `url`, `oauth.clientId` and the other oauth keys.

Pure: reads the spec, never the environment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from levelcode.mcp.config.environment import references
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec


@dataclass(frozen=True)
class ExpandedField:
    """One value that is expanded: where it is (`env`, `header`, `oauth`), its key, its text."""

    field: str
    key: str
    value: str

    @property
    def label(self) -> str:
        """`env GITHUB_TOKEN`, `header Authorization`, `oauth clientSecret`."""
        return f"{self.field} {self.key}"


def expanded_fields(spec: ServerSpec) -> Iterator[ExpandedField]:
    """The entry's values that LevelCode expands `${VAR}` in, in the order they are written."""
    if not isinstance(spec, HttpServerSpec):
        yield from (ExpandedField("env", key, value) for key, value in spec.env)
        return
    yield from (ExpandedField("header", key, value) for key, value in spec.headers)
    if spec.oauth is not None and spec.oauth.client_secret:
        yield ExpandedField("oauth", "clientSecret", spec.oauth.client_secret)


def variables_received(spec: ServerSpec) -> list[tuple[str, ExpandedField]]:
    """(variable, the first field that refers to it) for every `${VAR}` the server would receive."""
    found: dict[str, ExpandedField] = {}
    for field in expanded_fields(spec):
        for name in references(field.value):
            found.setdefault(name, field)
    return list(found.items())
