"""`${VAR}` and `${VAR:-default}` in a server's `command`, `args` and `url`, filled in from the
user's environment when the configuration is loaded (as Claude Code does), so that the launch
card, the launch fingerprint and every view show — and an approval covers — what will run.

What is shown expanded and what by its reference is decided by one rule, `shows_value`: what
runs (the command, a path, a host) is shown as it will be; a value that looks like a secret —
by its variable's name (`GITHUB_TOKEN`), the option it follows (`--api-key`, `?token=`) or its
own shape (`ghp_…`, `sk-…`, a URL with a password) — stays `${NAME}` in the spec, is shown so
with "will receive your NAME", is left out of the fingerprint (a rotated token asks nothing),
and is filled in only at spawn (mcp/launch/resolve.py) or connect (mcp/http/endpoint.py).
`env` and header values are never expanded here: they are always shown by reference.

A variable that is not set and has no default is a problem naming the file, the key and the
variable; that server is not loaded, the others are. For a repository's server, a variable that
holds one of LevelCode's provider keys (`Withheld`) is never filled in here (its start fails,
saying why). A value already filled in is not expanded again: a reference whose value itself
holds `${…}` is left to the one expansion at spawn.

Pure: takes the environment as a mapping and specs as data; never reads anything itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.environment import NOTHING_WITHHELD, REFERENCE, Withheld
from levelcode.mcp.config.server_entry import ExpandSpec
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec

PURE = True

# Not the user's environment: filled in with the workspace by mcp/launch/plan.py.
WORKSPACE_FOLDER_NAME = "workspaceFolder"
SECRET_WORDS = frozenset(
    {
        "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "PAT",
        "KEY", "KEYS", "APIKEY", "AUTH", "AUTHORIZATION", "CREDENTIAL", "CREDENTIALS", "CREDS",
        "COOKIE", "SESSION", "PRIVATE", "BEARER", "JWT", "DSN", "CONNECTION", "SIGNATURE", "HEADER",
    }
)  # fmt: skip
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_CREDENTIAL = re.compile(
    r"^(gh[pousr]_|github_pat_|glpat-|sk-|sk_(live|test)_|rk_live_|xox[abprs]-|AKIA|ASIA|AIza|eyJ"
    r"|npm_|hf_|pypi-|dop_v1_|SG\.)"
)
_URL_PASSWORD = re.compile(r"://[^/@\s:]*:[^/@\s]+@")
BY_REFERENCE = frozenset({"env", "header", "oauth"})


@dataclass(frozen=True)
class Place:
    """Where a reference is: its field (`command`, `args`, `url`, `env`, `header`), the label a
    problem and a card give it (`arg 3`), and the word it is the value of, if any (the option
    before an argument, `--api-key` in `--api-key=${K}`, a URL's query key)."""

    field: str
    label: str
    near: str = ""


def names_a_secret(text: str) -> bool:
    """`GITHUB_TOKEN`, `apiKey`, `--api-key`, `DB_PASSWORD`: a name made of a secret's words."""
    return any(word.upper() in SECRET_WORDS for word in _WORD.findall(text))


def looks_like_a_credential(value: str) -> bool:
    """A token by its well-known prefix (`ghp_`, `sk-`, `xoxb-`, `AKIA`, a JWT), or a URL that
    carries a password (`postgres://user:pw@host`)."""
    return _CREDENTIAL.match(value) is not None or _URL_PASSWORD.search(value) is not None


def shows_value(place: Place, variable: str, value: str) -> bool:
    """THE rule: whether what `${variable}` holds (`value`) is shown — on the card, in every view,
    in the fingerprint — or the reference is, with "will receive your VARIABLE"."""
    if place.field in BY_REFERENCE:
        return False
    if place.field == "command":
        return True  # what runs is what the user approves
    return not (names_a_secret(variable) or names_a_secret(place.near) or looks_like_a_credential(value))


@dataclass(frozen=True)
class Unset:
    """A reference to a variable that is not set, with no default."""

    place: Place
    variable: str


def expand_text(
    text: str,
    place: Place | Callable[[int], Place],
    environ: Mapping[str, str],
    withheld: Withheld,
    unset: list[Unset],
) -> str:
    """`text` with each reference the rule shows filled in; the others left as written. An unset
    variable without a default is added to `unset` (left as written). `place`: the reference's,
    or where a reference at that index is."""

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        at = place(match.start()) if callable(place) else place
        if name == WORKSPACE_FOLDER_NAME or withheld.covers(name, environ):
            return match.group(0)
        value = environ.get(name) or (default if default is not None else environ.get(name))
        if value is None:
            unset.append(Unset(at, name))
            return match.group(0)
        if REFERENCE.search(value) or not shows_value(at, name, value):
            return match.group(0)
        return value

    return REFERENCE.sub(substitute, text)


def arg_places(args: tuple[str, ...]) -> list[Place]:
    """Each argument's place: the option it belongs to (`--token X`, `--token=X`), if any."""
    places = []
    for index, arg in enumerate(args):
        before = args[index - 1] if index else ""
        near = arg.partition("=")[0] if arg.startswith("-") and "=" in arg else ""
        near = near or (before if before.startswith("-") and "=" not in before else "")
        places.append(Place("args", f"arg {index + 1}", near))
    return places


def url_places(url: str) -> Callable[[int], Place]:
    """Where in a URL a reference is: a query value is the value of its key (`?api_key=${K}`
    reads as a secret's); anywhere else, the address itself."""
    query = url.find("?")

    def place_at(index: int) -> Place:
        if query < 0 or index < query:
            return Place("url", "url")
        key = url[query + 1 : index].rpartition("&")[2].partition("=")[0]
        return Place("url", "url", key)

    return place_at


def launch_expander(environ: Mapping[str, str], withheld: Withheld = NOTHING_WITHHELD) -> ExpandSpec:
    """What config loading applies to each server it parsed (key: the entry's, for problems)."""

    def expand(spec: ServerSpec, key: str, problems: list[ConfigProblem]) -> ServerSpec | None:
        unset: list[Unset] = []
        expanded = _expanded(spec, environ, withheld, unset)
        problems.extend(_unset_problem(spec, key, missing) for missing in unset)
        if unset:
            return None
        if isinstance(expanded, HttpServerSpec) and not _is_web_address(expanded.url):
            message = f"{expanded.url!r} (filled in) is not an http:// or https:// URL"
            problems.append(_not_loaded(spec, f"{key}.url", message))
            return None
        return expanded

    return expand


def _expanded(
    spec: ServerSpec, environ: Mapping[str, str], withheld: Withheld, unset: list[Unset]
) -> ServerSpec:
    if isinstance(spec, HttpServerSpec):
        return dataclasses.replace(
            spec, url=expand_text(spec.url, url_places(spec.url), environ, withheld, unset)
        )
    assert isinstance(spec, StdioServerSpec)
    command = expand_text(spec.command, Place("command", "command"), environ, withheld, unset)
    args = tuple(
        expand_text(arg, place, environ, withheld, unset)
        for arg, place in zip(spec.args, arg_places(spec.args), strict=True)
    )
    return dataclasses.replace(spec, command=command, args=args)


def _is_web_address(url: str) -> bool:
    return url.lower().startswith(("http://", "https://", "${"))


def _unset_problem(spec: ServerSpec, key: str, missing: Unset) -> ConfigProblem:
    message = (
        f"{missing.place.label} refers to ${{{missing.variable}}}, which is not set in your environment "
        f"(set it, or write ${{{missing.variable}:-default}})"
    )
    return _not_loaded(spec, f"{key}.{missing.place.field}", message)


def _not_loaded(spec: ServerSpec, key: str, message: str) -> ConfigProblem:
    return ConfigProblem(spec.provenance.file, key, message + "; this server is not loaded", not_loaded=True)
