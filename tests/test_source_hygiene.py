"""No raw control bytes (NUL and friends) in any source or test file: they make grep and diff skip
a file silently. Escapes (`\\x00`) are the way to write them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED_DIRS = ("levelcode", "tests", "bench", "scripts", ".ci", "conformance", "docs")
SUFFIXES = {".py", ".toml", ".md", ".json", ".sh", ""}
ALLOWED = {0x09, 0x0A, 0x0D}


def _files() -> list[Path]:
    found = [ROOT / name for name in ("README.md", "pyproject.toml", "package.json")]
    for directory in SCANNED_DIRS:
        found.extend(p for p in (ROOT / directory).rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    return [p for p in found if p.exists() and "__pycache__" not in p.parts]


def _control_bytes(data: bytes) -> list[int]:
    return [i for i, b in enumerate(data) if (b < 0x20 and b not in ALLOWED) or b == 0x7F]


def test_scanner_sees_a_raw_nul() -> None:
    assert _control_bytes(b"ok\x00no") == [2]
    assert _control_bytes(b"tab\tnewline\n") == []


def test_no_raw_control_bytes_in_sources() -> None:
    files = _files()
    assert len(files) > 10
    offenders = {str(p.relative_to(ROOT)): _control_bytes(p.read_bytes())[:3] for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}
