"""The keys of the user's own settings, each parsed once into the typed value `Settings` carries
(policy/settings.py), with a problem for a value that cannot be used: said once, and the key then
counts as unset (or its default).

Pure: the user's document in, values out, problems told to `Said`; never reads a file. A key whose
meaning belongs elsewhere is parsed by that rule where it lives at or below this layer
(policy/prices.py, policy/profiles.py, policy/network_hosts.py). A command rule's words are the
shell parser's (tools/command_allow_rules.py): only the list's shape is checked here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.policy.managed_policy import registry_url_problem
from levelcode.policy.network_hosts import host_entries

PURE = True

Said = Callable[[str, str], None]  # (key, what is wrong with its value)
ToolSearchMode = Literal["auto", "always", "never"]
DEFAULT_SHARE = 0.10  # of the model's window, over which MCP tools are deferred
MIN_CONTEXT_WINDOW = 1_000
MAX_CONTEXT_WINDOW = 100_000_000  # a window over this is a typing mistake
MAX_RETRIES = 10
RULES_KEY = "commandRules"
REGISTRY_KEY = "mcpRegistry"
_PROVIDER_TEXTS = ("provider", "model", "baseUrl", "apiKey")
COMMAND_RULE_FORM = 'expected one command of plain words, optionally ending in " *", such as "npm run *"'


@dataclass(frozen=True)
class ProviderPreferences:
    """What the user's settings say of the model provider: `provider`, `model`, `baseUrl` and
    `apiKey` (which providers/factory.py applies only to the provider they belong to), `maxRetries`
    and `contextWindow`; None where unset or unusable."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    max_retries: int | None = None
    context_window: int | None = None


def provider_preferences(doc: Mapping[str, object], said: Said) -> ProviderPreferences:
    provider, model, base_url, api_key = (_text(doc, key, said) for key in _PROVIDER_TEXTS)
    retries = _whole(doc, "maxRetries", range(MAX_RETRIES + 1), said)
    window = _whole(doc, "contextWindow", range(MIN_CONTEXT_WINDOW, MAX_CONTEXT_WINDOW), said)
    return ProviderPreferences(provider, model, base_url, api_key, retries, window)


def _text(doc: Mapping[str, object], key: str, said: Said) -> str | None:
    value = doc.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        said(key, "expected text; ignored")
        return None
    return value


def _whole(doc: Mapping[str, object], key: str, fits: range, said: Said) -> int | None:
    value = doc.get(key)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value in fits:
        return value
    said(key, f"expected a whole number from {fits.start} to {fits.stop - 1}; got {value!r}, ignored")
    return None


def tool_search(doc: Mapping[str, object], said: Said) -> tuple[ToolSearchMode, float]:
    """`toolSearch`: the mode and the share of the model's window over which tools are deferred."""
    parsed = parse_tool_search(doc.get("toolSearch"))
    if isinstance(parsed, str):
        said("toolSearch", f'{parsed}; using "auto"')
        return "auto", DEFAULT_SHARE
    return parsed


def parse_tool_search(value: object) -> tuple[ToolSearchMode, float] | str:
    """The `toolSearch` setting: "auto" (defer over 10 % of the window), "auto:N" (over N %),
    "always" or "never"; absent is "auto". A string saying what is wrong otherwise."""
    if value is None or value == "auto":
        return "auto", DEFAULT_SHARE
    fixed: dict[str, ToolSearchMode] = {"always": "always", "never": "never"}
    if isinstance(value, str) and value in fixed:
        return fixed[value], DEFAULT_SHARE
    if isinstance(value, str) and value.startswith("auto:"):
        try:
            percent = float(value.removeprefix("auto:"))
        except ValueError:
            percent = -1.0
        if 0 <= percent <= 100:
            return "auto", percent / 100
    return f'expected "auto", "auto:N" (N percent of the model\'s window), "always" or "never"; got {value!r}'


def command_rule_texts(doc: Mapping[str, object], said: Said) -> tuple[str, ...]:
    """`commandRules`: the command lines of its `allow` list, as written."""
    raw = doc.get(RULES_KEY)
    if raw is None:
        return ()
    if not isinstance(raw, Mapping) or any(key != "allow" for key in raw):
        said(RULES_KEY, 'expected {"allow": ["npm test", "npm run *", ...]}')
        return ()
    allow = raw.get("allow", [])
    if not isinstance(allow, list):
        said(f"{RULES_KEY}.allow", "expected a list of command lines")
        return ()
    for index, entry in enumerate(allow):
        if not isinstance(entry, str):
            said(f"{RULES_KEY}.allow[{index}]", f"{COMMAND_RULE_FORM}; ignored")
    return tuple(entry for entry in allow if isinstance(entry, str))


def registry(doc: Mapping[str, object], said: Said) -> str | None:
    """`mcpRegistry`: the MCP Registry's URL (no trailing slash)."""
    written = doc.get(REGISTRY_KEY)
    if written is None:
        return None
    if not isinstance(written, str):
        said(REGISTRY_KEY, "expected the registry's https:// URL")
        return None
    problem = registry_url_problem(written)
    if problem is not None:
        said(REGISTRY_KEY, f"{written!r}: {problem}")
        return None
    return written.rstrip("/")


def sandbox(doc: Mapping[str, object], said: Said) -> tuple[bool, tuple[str, ...]]:
    """`sandbox`: whether it asks for the whole network (`"network": true`), and the hosts it
    lists (`"network": ["host", …]`: the valid entries, each once)."""
    if "sandbox" not in doc:
        return False, ()
    section = doc["sandbox"]
    if not isinstance(section, Mapping):
        said("sandbox", 'expected an object such as {"network": true}')
        return False, ()
    for key in section:
        if key != "network":
            said(f"sandbox.{key}", "unknown key, ignored")
    network = section.get("network", False)
    if isinstance(network, list):
        return False, host_entries(network, lambda text: said("sandbox.network", text))
    if not isinstance(network, bool):
        said("sandbox.network", "expected true, false or a list of hosts; the network stays off")
        return False, ()
    return network, ()


def allowed_directories(doc: Mapping[str, object]) -> tuple[Path, ...]:
    """`allowedDirectories` as written: a leading `~` is the caller's to expand (that reads the
    environment)."""
    raw = doc.get("allowedDirectories")
    if not isinstance(raw, list):
        return ()
    return tuple(Path(item) for item in raw if isinstance(item, str) and item)
