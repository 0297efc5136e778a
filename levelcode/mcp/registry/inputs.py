"""The values a server asks for, and where each comes from: `--input KEY=VALUE` on the command line,
the `server.json` itself (a fixed value, whose `{variables}` are values in turn), an answer typed
on a terminal, its default — or nowhere, and then it is named, with every other missing one, in
one error that says how to give it.

A value the server declares secret is never written: it becomes a `${VAR}` reference to the
user's environment (by default the variable of the same name), and only where LevelCode expands
references — an environment variable or a header; a secret asked for anywhere else (a command-line
argument, which every process on the machine can read, or a URL) is refused.

Pure: the answers come through the `ask` callable the caller gives (None: nobody to ask).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.errors import ConfigError, RegistryError
from levelcode.mcp.registry.documents import Input

PURE = True

INPUT_FLAG = "--input"
REFERENCE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
TEMPLATE_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a typed variable name looks like (GITHUB_TOKEN); a token pasted by mistake does not.
TYPED_VARIABLE = re.compile(r"^(?=.*_|.{1,15}$)[A-Z_][A-Z0-9_]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Need:
    """One value to find. `key` is what `--input KEY=VALUE` names it by; `label` how it is shown."""

    key: str
    label: str
    input: Input
    reference: str | None = None  # a secret: the variable its `${…}` names unless told otherwise

    @property
    def secret(self) -> bool:
        return self.input.secret


# A terminal's answer (given what was wrong with the last one, if anything); "" or None: the
# default, or nothing.
Ask = Callable[[Need, str | None], str | None]


@dataclass
class Filler:
    """Finds values, and keeps what it could not find (`missing`) and what it took as a default
    without asking (`defaulted`), for the caller to say."""

    given: Mapping[str, Sequence[str]]
    ask: Ask | None = None
    missing: list[Need] = field(default_factory=list[Need])
    defaulted: list[tuple[Need, str]] = field(default_factory=list[tuple[Need, str]])
    skipped: list[Need] = field(default_factory=list[Need])  # optional, not given: left out
    used: set[str] = field(default_factory=set[str])

    def values(self, need: Need) -> list[str]:
        """Every value for it ([] when it is optional and not given); secrets as `${VAR}`."""
        self.used.add(need.key)
        if need.key in self.given:
            return [checked(need, value) for value in self.given[need.key]]
        if need.input.value is not None:
            if not need.input.required and not self._available(need.input):
                self.skipped.append(need)  # an optional value whose variables nobody gave
                return []
            return [self.fill(need.input.value, need.input.variables, need)]
        if not need.input.required:
            self.skipped.append(need)
            return []
        found = self._asked(need)
        if found is None:
            self.missing.append(need)
            return []
        return [found]

    def fill(self, template: str, variables: Mapping[str, Input], owner: Need) -> str:
        """A fixed value with its `{variables}` filled in (an unknown one stays, as the schema says)."""
        _no_reference(template, owner)

        def value_of(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in variables:
                return match.group(0)
            exact = match.group(0) == template
            reference = owner.reference if exact and owner.reference else name.upper()
            need = Need(name, f"{{{name}}} in {owner.label}", variables[name], reference)
            if need.secret and owner.reference is None:
                raise RegistryError(f"{owner.label} holds a secret ({{{name}}}): {SECRET_PLACES}")
            found = self.values(need if need.input.required else as_required(need))
            return found[0] if found else match.group(0)

        return TEMPLATE_VARIABLE.sub(value_of, template)

    def _available(self, fixed: Input) -> bool:
        """Whether every variable of an optional fixed value has a value without asking: given,
        or (not a secret) a default."""
        names = [name for name in TEMPLATE_VARIABLE.findall(fixed.value or "") if name in fixed.variables]
        return all(
            name in self.given
            or (not fixed.variables[name].secret and fixed.variables[name].default is not None)
            for name in names
        )

    def _asked(self, need: Need) -> str | None:
        default = f"${{{need.reference}}}" if need.secret else need.input.default
        if default is not None and not need.secret:
            _no_reference(default, need)
        if self.ask is None:
            if default is not None and not need.secret:
                self.defaulted.append((need, default))
            return default
        problem: str | None = None
        for _attempt in range(3):
            answer = self.ask(need, problem)
            if not answer:
                return default
            try:
                return checked(need, answer, typed=True)
            except ConfigError as exc:
                problem = str(exc)
        return None

    def missing_error(self, server: str) -> ConfigError:
        flags = " ".join(f"{INPUT_FLAG} {need.key}=VALUE" for need in self.missing)
        listed = "; ".join(_described(need) for need in self.missing)
        return ConfigError(
            f"{server} needs values LevelCode cannot choose for you: {listed}. Give them with {flags} "
            "(or run the command in a terminal to be asked)"
        )


SECRET_PLACES = (
    "LevelCode passes a secret only through an environment variable or a header (a command-line "
    "argument or a URL can be read by others); if you accept that, add the server by hand"
)


def checked(need: Need, value: str, *, typed: bool = False) -> str:
    """A value given for `need`, as it will be written; ConfigError for one LevelCode will not write."""
    if _CONTROL.search(value):
        raise ConfigError(f"{need.key}: a value with control characters (a newline, say) is not written")
    if need.secret:
        return _secret_reference(need, value, typed=typed)
    if need.input.choices and value not in need.input.choices:
        raise ConfigError(f"{need.key}={value!r}: expected one of {', '.join(need.input.choices)}")
    if need.input.format == "number" and not re.fullmatch(r"-?\d+(\.\d+)?", value):
        raise ConfigError(f"{need.key}={value!r}: expected a number")
    if need.input.format == "boolean" and value not in ("true", "false"):
        raise ConfigError(f"{need.key}={value!r}: expected true or false")
    return value


def _secret_reference(need: Need, value: str, *, typed: bool) -> str:
    """`${VAR}`: given as such, or (typed at the prompt) as the variable's name."""
    if typed and TYPED_VARIABLE.match(value):
        return f"${{{value}}}"
    if REFERENCE.match(value):
        return value
    if typed:
        raise ConfigError(
            "that is not the name of a variable (such as ACME_API_KEY): LevelCode never writes the secret "
            "itself; export it in your shell and give the variable's name"
        )
    raise ConfigError(
        f"{need.key} is a secret: LevelCode writes only a reference to the environment variable that "
        f"holds it, never the secret; give {INPUT_FLAG} {need.key}='${{{need.reference or 'MY_VARIABLE'}}}'"
    )


def _no_reference(text: str, need: Need) -> None:
    """A value the registry wrote may not hold `${…}`: LevelCode would fill it from the user's
    environment (`${AWS_SECRET_ACCESS_KEY}`) and hand it to the server."""
    if "${" in text:
        raise RegistryError(
            f"{need.label}: its value {text!r} holds ${{…}}, which LevelCode would fill in from your "
            "environment and send to the server; a registry may not ask for your variables that way"
        )


def as_required(need: Need) -> Need:
    """A variable of a fixed value: the value cannot be written without it."""
    return dataclasses.replace(need, input=dataclasses.replace(need.input, required=True))


def _described(need: Need) -> str:
    about = need.input.description.strip()
    return f"{need.key} ({need.label}{': ' + about[:80] if about else ''})"


def parse_given(items: Sequence[str]) -> dict[str, list[str]]:
    """`--input KEY=VALUE`, each KEY as often as it is given (a repeated argument takes several)."""
    given: dict[str, list[str]] = {}
    for item in items:
        key, found, value = item.partition("=")
        if not found or not key:
            raise ConfigError(f"{INPUT_FLAG} {item!r}: expected KEY=VALUE")
        given.setdefault(key, []).append(value)
    return given


def environment_reference(name: str) -> str:
    """The variable a secret header or value refers to by default: `X-API-Key` → `X_API_KEY`."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").upper()
    return cleaned if cleaned and not cleaned[0].isdigit() else f"MCP_{cleaned}"
