"""The files this session saved cut results to, and the one exception the read tool makes for them.

A result too long for the model is saved whole to a 0600 file in LevelCode's state (results/,
0700) so the model can page through it with `read_file`, which otherwise reads only inside the
workspace and the folders the user added. The exception is exactly these files: the ones this
process wrote, by resolved path — not the folder, not another session's files, not anything a
link or `..` makes look like one of them.
"""

from __future__ import annotations

import os
from pathlib import Path

# Lines longer than this are folded when saved: `read_file` cuts a longer line, and a result that
# is one long line (JSON, minified text) must still be readable page by page.
SAVED_LINE_CHARS = 2000


class SpillFiles:
    def __init__(self) -> None:
        self._paths: set[str] = set()

    def add(self, path: Path) -> None:
        self._paths.add(os.path.realpath(path))

    def allows(self, resolved: Path) -> bool:
        """Whether `resolved` (symlinks already followed) is one of this session's saved results."""
        return str(resolved) in self._paths


def folded(text: str, width: int = SAVED_LINE_CHARS) -> str:
    """`text` with every line longer than `width` broken into lines of `width` characters."""
    if all(len(line) <= width for line in text.split("\n")):
        return text
    lines: list[str] = []
    for line in text.split("\n"):
        lines.extend([line[i : i + width] for i in range(0, len(line), width)] or [""])
    return "\n".join(lines)
