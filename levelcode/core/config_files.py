"""Reading one JSON configuration file leniently: the parsed document, or a problem naming the file.

Reads only, never writes (settings_store.py and json_store.py write). A missing, empty or `null`
file means nothing is configured; a FIFO, a device, a huge file or bad JSON is a listed problem,
never a hang or a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from levelcode.core.errors import ConfigProblem

MAX_CONFIG_BYTES = 4 * 1024 * 1024


def is_absent(doc: object) -> bool:
    """Missing, empty and `null` configuration all mean: nothing configured, nothing wrong."""
    return doc is None or doc in ({}, [])


def read_json_file(path: Path) -> tuple[object, ConfigProblem | None]:
    """The parsed document (None when missing or blank), or a problem naming the file."""
    try:
        if path.exists() and not path.is_file():  # a FIFO or device would block or never end
            return None, ConfigProblem(str(path), "(file)", "not a regular file; ignored")
        if path.exists() and path.stat().st_size > MAX_CONFIG_BYTES:
            return None, ConfigProblem(
                str(path), "(file)", f"larger than {MAX_CONFIG_BYTES:,} bytes; ignored"
            )
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigProblem(str(path), "(file)", f"cannot be read: {exc}")
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, ConfigProblem(
            str(path), "(file)", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        )
    except RecursionError:
        return None, ConfigProblem(str(path), "(file)", "not valid JSON: nested too deeply")
