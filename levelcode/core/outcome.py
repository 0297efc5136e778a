"""What a tool call ends in — built-in or MCP — from the server to the transcript: one type, and the
one place an `ERROR:` text is formed.

Pure data. The model reads `text`; `is_error` travels as the API's error flag where there is one
(Anthropic's `is_error`) and as the `ERROR: ` prefix where there is not (OpenAI-shaped), so every
failure's text starts with the prefix whoever reports it. `media` holds the pictures and sounds a
server returned, already bounded (mcp/protocol/media.py): the providers' translation attaches them
the way each API accepts; every surface shows only `MediaInfo` (type, size), never the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PURE = True

ERROR_PREFIX = "ERROR: "

MediaKind = Literal["image", "audio"]


@dataclass(frozen=True)
class SavedResult:
    """Where a cut result was saved whole (platform/spill_files.py), and its size in UTF-8 bytes."""

    path: str
    size: int


@dataclass(frozen=True)
class MediaInfo:
    """What a picture or sound is, without its data: for events, `--json` and the terminal."""

    kind: MediaKind
    mime_type: str
    size: int  # decoded bytes


@dataclass(frozen=True)
class Media:
    kind: MediaKind
    mime_type: str
    data: str  # base64, checked to decode

    @property
    def info(self) -> MediaInfo:
        return MediaInfo(self.kind, self.mime_type, decoded_size(self.data))


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    is_error: bool = False
    media: tuple[Media, ...] = ()
    # Tools this result makes available to the model (a tool search's finds, by their model names):
    # Anthropic loads them through `tool_reference` blocks; other providers offer them from the next
    # request on (core/tool_offers.py).
    references: tuple[str, ...] = ()
    saved: SavedResult | None = None  # the text was cut; the whole of it is in this file


def failure(message: str) -> ToolOutcome:
    """A failed call: `ERROR: ` and the message (which must not carry the prefix itself)."""
    return ToolOutcome(ERROR_PREFIX + message, True)


def decoded_size(data: str) -> int:
    """The bytes a base64 text decodes to (padding accounted for)."""
    return len(data) * 3 // 4 - data[-2:].count("=")


def human_bytes(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def media_summary(infos: tuple[MediaInfo, ...]) -> str:
    """`1 image (image/png, 75 bytes)`: one line for every surface; empty when there is none."""
    if not infos:
        return ""
    kinds = [kind for kind in ("image", "audio") if any(i.kind == kind for i in infos)]
    counts = []
    for kind in kinds:
        number = sum(1 for i in infos if i.kind == kind)
        counts.append(f"{number} {kind}{'s' if number > 1 and kind == 'image' else ''}")
    details = ", ".join(f"{i.mime_type} {human_bytes(i.size)}" for i in infos)
    return f"{' and '.join(counts)} ({details})"
