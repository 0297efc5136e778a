"""`/init`: what the model is asked to do to write the repository's AGENTS.md — the rules file
LevelCode reads into its system prompt at the start of every session (agent/system_prompt.py) —
from a look at the repository with the read and search tools. An AGENTS.md that exists is to be
read and improved with exact edits, never replaced wholesale. The write goes through the normal
edit approval (a card, or autopilot's rules), like any other edit.

The workspace's state in, the prompt's text out; one look at the disk (is AGENTS.md there).
"""

from __future__ import annotations

from pathlib import Path

from levelcode.agent.system_prompt import MAX_RULES_CHARS, RULES_FILES

AGENTS_FILE = RULES_FILES[0]
INIT_NOTE = f"running /init: the model looks at the repository to write {AGENTS_FILE}…"

LOOK = """\
Look before you write, with read_file, list_directory, find_files and search_files (run no \
commands unless reading cannot tell you something): the README; the build, package and \
dependency files (pyproject.toml, package.json, Makefile, Cargo.toml, go.mod and the like); the \
CI configuration; contributor docs; other tools' rules files (CLAUDE.md, GEMINI.md, .cursorrules, \
.cursor/rules/, .github/copilot-instructions.md); and a sample of the source and the tests.

What AGENTS.md should hold, specific to this repository and only what you found (invent nothing, \
no generic advice such as "write clean code"):
- the commands to install, build, lint, type-check and test, and how to run a single test;
- the architecture in brief: the main parts, where they live and how they fit together — what \
takes reading several files to see, not a list of every file;
- the conventions the code follows that are not obvious (layout, naming, error handling, tests), \
and anything a newcomer would trip over.
Keep it short (well under {limit:,} characters: LevelCode reads no more than that), in Markdown, \
starting with the line "# AGENTS.md"."""

NEW = """\
Write an {name} file at the root of this repository ({workspace}): the instructions a coding \
agent — and a new contributor — needs to work here. LevelCode reads it at the start of every \
session.

{look}

Then create {name} with write_file and say in two or three lines what it covers."""

IMPROVE = """\
This repository ({workspace}) has an {name} already: the instructions LevelCode reads at the \
start of every session. Improve it; do not rewrite it from scratch.

Read {name} first. Then check it against the repository.

{look}

Then change {name} with edit_file, in exact edits: correct what is wrong or out of date, add what \
is missing, and keep what is still true, its structure and its voice. If it is accurate and \
complete already, change nothing and say so. Say in two or three lines what you changed."""


def init_prompt(workspace: Path) -> str:
    """The message `/init` sends: write AGENTS.md, or improve the one there is."""
    look = LOOK.format(limit=MAX_RULES_CHARS)
    template = IMPROVE if (workspace / AGENTS_FILE).exists() else NEW
    return template.format(name=AGENTS_FILE, workspace=workspace, look=look)
