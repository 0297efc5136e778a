"""Which of the servers found in other tools' files `levelcode mcp import` adds, and to which of the
user's two files: their settings (every workspace) or their servers for this workspace alone (the
local scope, mcp/config/local_servers.py) for a server that belonged to one project where it was.

Pure: never reads or writes a file. Never replaces a server the user has; a repository never takes
a name from the user's own files.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.edit import USER_SETTINGS, JsonDoc, ServersDoc, user_servers, with_server
from levelcode.mcp.config.importers import Candidate, Elsewhere, Origin, Skipped, SourceReading
from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.specs import Provenance, launch_encoding

PURE = True

Destination = Literal["user", "local"]  # `-s user` and `-s local`, as `levelcode mcp add` says them
DESTINATIONS: tuple[Destination, ...] = ("local", "user")  # the order a name is looked up in here
WHERE: dict[Destination, str] = {"user": "your settings", "local": "your servers for this workspace"}


@dataclass(frozen=True)
class ImportPlan:
    user: tuple[Candidate, ...] = ()  # to the user's settings: they start in every workspace
    local: tuple[Candidate, ...] = ()  # to the user's servers for this workspace: they start only here
    held: tuple[Candidate, ...] = ()  # written by a repository, left out without include_repo
    skipped: tuple[Skipped, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()
    elsewhere: tuple[Elsewhere, ...] = ()  # other projects' servers, only named

    @property
    def add(self) -> tuple[Candidate, ...]:
        return self.user + self.local

    def into(self, to: Destination) -> tuple[Candidate, ...]:
        return self.user if to == "user" else self.local


def destination(origin: Origin, *, only_here: bool = False) -> Destination:
    """A server that belonged to this workspace where it was (Claude Code's local scope, a file in
    the workspace) stays this workspace's; every other goes to the user's settings, as it started
    everywhere in its tool too, unless `only_here` asks for all of them to stay here."""
    return "local" if only_here or origin.project is not None or origin.repo_authored else "user"


def plan_import(
    readings: Sequence[SourceReading],
    existing: Mapping[str, object],
    *,
    include_repo: bool,
    here: Mapping[str, object] | None = None,
    only_here: bool = False,
) -> ImportPlan:
    """What to add where. `existing`: the servers in the user's settings; `here`: those in their
    file for this workspace. The user's own files come before any repository's; a name the user has
    is never replaced; the first one found for a file wins. One name may go to both files (as in
    Claude Code, where a project's own server wins in that project)."""
    found = sorted((c for r in readings for c in r.candidates), key=lambda c: c.origin.repo_authored)
    has: dict[Destination, Mapping[str, object]] = {"user": existing, "local": here or {}}
    placed: dict[Destination, list[Candidate]] = {"user": [], "local": []}
    held: list[Candidate] = []
    skipped = [s for r in readings for s in r.skipped]
    first: dict[tuple[Destination, str], Candidate] = {}
    for candidate in found:
        to = destination(candidate.origin, only_here=only_here)
        clash = _clash(candidate, to, has, first)
        if clash is not None:
            skipped.append(Skipped(candidate.name, candidate.origin, clash))
            continue
        first[to, candidate.name] = candidate
        (held if candidate.origin.repo_authored and not include_repo else placed[to]).append(candidate)
    problems = tuple(p for r in readings for p in r.problems)
    elsewhere = tuple(e for r in readings for e in r.elsewhere)
    return ImportPlan(
        tuple(placed["user"]), tuple(placed["local"]), tuple(held), tuple(skipped), problems, elsewhere
    )


def _clash(
    candidate: Candidate,
    to: Destination,
    has: Mapping[Destination, Mapping[str, object]],
    first: Mapping[tuple[Destination, str], Candidate],
) -> str | None:
    """Why `candidate` cannot take its name in `to`; a repository's server may not take a name the
    user has in either file, where it would stand in for theirs."""
    name = candidate.name
    scopes = DESTINATIONS if candidate.origin.repo_authored else (to,)
    for scope in scopes:
        if name in has[scope]:
            return _taken(has[scope][name], candidate, scope)
    for scope in scopes:
        if (scope, name) in first:
            return _duplicate(first[scope, name], candidate)
    return None


def _taken(current: object, candidate: Candidate, scope: Destination) -> str:
    spec = parse_server_entry(
        candidate.name, current, provenance=Provenance("user", "settings"), key=candidate.name, problems=[]
    )
    if spec is not None and launch_encoding(spec) == launch_encoding(candidate.spec):
        return f"already in {WHERE[scope]}, the same server"
    return (
        f"a different server with this name is already in {WHERE[scope]}; not replaced "
        f"(to replace it, first run `levelcode mcp remove -s {scope} {candidate.name}`)"
    )


def _duplicate(kept: Candidate, candidate: Candidate) -> str:
    same = launch_encoding(kept.spec) == launch_encoding(candidate.spec)
    what = "the same server" if same else "a server with this name"
    return f"{what} also comes from {kept.origin.describe()}, which is the one used"


def add_servers(
    doc: Mapping[str, object], candidates: Sequence[Candidate], of: ServersDoc = USER_SETTINGS
) -> tuple[JsonDoc, list[str], list[str]]:
    """The document with each candidate added to its servers; a name present by now (a change since
    the plan was shown) is left as it is. Returns (new document, added, left alone)."""
    new = dict(doc)
    added: list[str] = []
    kept: list[str] = []
    for candidate in candidates:
        if candidate.name in user_servers(new, of):
            kept.append(candidate.name)
        else:
            new = with_server(new, candidate.name, copy.deepcopy(dict(candidate.entry)), replace=False, of=of)
            added.append(candidate.name)
    return new, added, kept
