"""`/init`'s request: write AGENTS.md when there is none; when there is one, read it and improve it
with exact edits, never rewrite it; both name the read and search tools and the size LevelCode
reads of the file."""

from __future__ import annotations

from pathlib import Path

from levelcode.agent.init_prompt import init_prompt


def test_a_new_agents_md_is_written(tmp_path: Path) -> None:
    prompt = init_prompt(tmp_path)
    assert prompt.startswith(f"Write an AGENTS.md file at the root of this repository ({tmp_path})")
    assert "create AGENTS.md with write_file" in prompt
    assert "edit_file" not in prompt
    assert "read_file, list_directory, find_files and search_files" in prompt
    assert "well under 12,000 characters" in prompt


def test_an_existing_agents_md_is_improved_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# AGENTS.md\n")
    prompt = init_prompt(tmp_path)
    assert "has an AGENTS.md already" in prompt
    assert "do not rewrite it from scratch" in prompt
    assert "change AGENTS.md with edit_file, in exact edits" in prompt
    assert "write_file" not in prompt
