"""Reading one JSON configuration file leniently: the parsed document, or a problem naming the file
(its text parsed, and a mistake in it worded, by core/json_text.py).

Reads only, never writes (settings_store.py and json_store.py write). In the user's own files a
missing, empty or `null` file means nothing is configured (the organisation's policy takes the
text and is stricter: policy/managed_policy.py); a FIFO, a device, a huge file or bad JSON is a listed
problem, never a hang or a crash.
"""

from __future__ import annotations

from pathlib import Path

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import parse_json_text

MAX_CONFIG_BYTES = 4 * 1024 * 1024


def read_json_file(path: Path) -> tuple[object, ConfigProblem | None]:
    """The parsed document (None when missing or blank), or a problem naming the file."""
    text, problem = read_config_text(path)
    if problem is not None or text is None or not text.strip():
        return None, problem
    return parse_json_text(text, file=str(path))


def read_config_text(path: Path) -> tuple[str | None, ConfigProblem | None]:
    """The file's text (None when there is no file), or a problem naming the file: not a
    regular file, too large, or unreadable. Blank text is returned as it is, for the caller to
    judge (the organisation's policy does not take it for "nothing configured")."""
    try:
        if path.exists() and not path.is_file():  # a FIFO or device would block or never end
            return None, ConfigProblem(str(path), "(file)", "not a regular file; ignored")
        if path.exists() and path.stat().st_size > MAX_CONFIG_BYTES:
            return None, ConfigProblem(
                str(path), "(file)", f"larger than {MAX_CONFIG_BYTES:,} bytes; ignored"
            )
        return path.read_text(encoding="utf-8"), None
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigProblem(str(path), "(file)", f"cannot be read: {exc}")
