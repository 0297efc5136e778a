"""Where saved command rules are read from and kept: `commandRules.allow` in the user's own
settings.json — never a repository's (policy/settings.py USER_ONLY_KEYS). What a rule matches is
decided in tools/command_allow_rules.py.

The rules are read once per session; saving one (the "save as a rule" answer of a command card)
writes the user's settings (locked, atomic, everything else kept; platform/settings_store.py) and
applies at once. Reads and writes files only when saving.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from levelcode.core.errors import ConfigError
from levelcode.platform.json_store import JsonDoc
from levelcode.platform.settings_store import update_user_settings
from levelcode.policy.settings_keys import RULES_KEY
from levelcode.tools.command_allow_rules import CommandRule, allowing_rule, parse_rule


class CommandAllowances:
    def __init__(self, rules: Sequence[CommandRule] = (), settings_file: Path | None = None) -> None:
        self.rules = tuple(rules)
        self.settings_file = settings_file

    def allowing(self, command: str) -> CommandRule | None:
        """The saved rule that lets `command` run without a card, if one does."""
        return allowing_rule(self.rules, command)

    def save(self, text: str) -> Path:
        """Keep `text` as an allow rule in the user's settings; the file written. Raises
        ConfigError (a settings file that cannot be read, or whose commandRules is no object)."""
        rule = parse_rule(text)
        if isinstance(rule, str):
            raise ConfigError(f"not a command rule: {rule}")
        self.rules = (*self.rules, rule)

        def keep(doc: JsonDoc) -> None:
            rules = doc.setdefault(RULES_KEY, {})
            allow = rules.setdefault("allow", []) if isinstance(rules, dict) else None
            if not isinstance(allow, list):
                raise ConfigError(f'"{RULES_KEY}" in your settings is not {{"allow": [...]}}; fix it first')
            if text not in allow:
                allow.append(text)

        return update_user_settings(keep, self.settings_file)
