"""Saved command rules — `"commandRules": {"allow": ["npm test", "npm run *"]}` in the user's own
settings: which command lines run without a card. Pure: text in, verdicts out.

Load-bearing direction: a rule must never match a command that can do more than the line it
names. So the pattern language is small:
- a rule is one simple command of plain words: `npm test`, `git status`, `pytest -x`;
- a last word `*` stands for any further plain words, or none: `npm run *`, `git diff *`.
A command matches only when it, too, is one simple command of plain words — no `;`, `&&`, `||`,
`|`, `&`, newline, parentheses, redirection, here-document, comment, `$` (variables, `$(...)`),
backtick, glob, brace list or leading `~` anywhere in it — and its words (quotes removed) equal the rule's,
followed, for a rule ending in `*`, by anything else plain. A program named by another path
(`/usr/bin/npm`, `./npm`) is another program. The command check still runs first: a flagged
command asks whatever a rule says (tools/command_approval.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from levelcode.policy.settings_keys import COMMAND_RULE_FORM, RULES_KEY
from levelcode.tools.command_check.shell_words import Word, simple_words

PURE = True

ANY_MORE = "*"
RULE_FORM = COMMAND_RULE_FORM


@dataclass(frozen=True)
class CommandRule:
    words: tuple[str, ...]  # what the command's words must start with (or be)
    any_more: bool  # the rule ended in `*`: further plain words may follow
    text: str  # as written in settings


def plain(word: Word) -> bool:
    """A word that means what it says: no expansion, no glob, no tilde, no control character."""
    text = word.text
    return not (word.dynamic or word.pattern or text.startswith("~") or not text.isprintable())


def parse_rule(text: str) -> CommandRule | str:
    """The rule `text` says, or why it is not one."""
    words = simple_words(text)
    if not words:
        return RULE_FORM
    any_more = words[-1].text == ANY_MORE and not words[-1].quoted
    fixed = words[:-1] if any_more else words
    if not fixed or not all(plain(word) for word in fixed):
        return RULE_FORM
    return CommandRule(tuple(word.text for word in fixed), any_more, text)


def parse_command_rules(texts: Sequence[str]) -> tuple[tuple[CommandRule, ...], list[tuple[str, str]]]:
    """The user's `commandRules.allow` lines (as Settings read them, policy/settings_keys.py): the
    rules, and (key, problem) for each line that is not one, left out."""
    rules: list[CommandRule] = []
    problems: list[tuple[str, str]] = []
    for text in texts:
        rule = parse_rule(text)
        if isinstance(rule, CommandRule):
            rules.append(rule)
        else:
            problems.append((f"{RULES_KEY}.allow", f"{text!r}: {rule}; ignored"))
    return tuple(rules), problems


def matches(rule: CommandRule, command: str) -> bool:
    words = simple_words(command)
    if words is None or not all(plain(word) for word in words):
        return False
    texts = tuple(word.text for word in words)
    if rule.any_more:
        return texts[: len(rule.words)] == rule.words
    return texts == rule.words


def allowing_rule(rules: Sequence[CommandRule], command: str) -> CommandRule | None:
    return next((rule for rule in rules if matches(rule, command)), None)


def rule_for(command: str) -> str | None:
    """The exact rule a card may offer to save for `command` (the same words, written so they read
    back the same), or None when no rule can cover it (compound, redirected, expanded...)."""
    words = simple_words(command)
    if words is None or not all(plain(word) for word in words):
        return None
    text = shlex.join(word.text for word in words)
    rule = parse_rule(text)
    return text if isinstance(rule, CommandRule) and matches(rule, command) else None
