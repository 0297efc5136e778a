"""Pictures and sounds in a server's result → `Media` the model can be given, bounded per result.

Pure. A block is kept only when its type is one the model APIs accept (PNG, JPEG, GIF, WebP
images; WAV and MP3 audio), its data is valid base64 under the size cap, and the result has not
already given its share; every block kept or dropped leaves a one-line note in the text, so the
model knows what it sees and what it was not shown. The data itself never enters the text.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field

from levelcode.core.outcome import Media, MediaKind, decoded_size, human_bytes

PURE = True

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
AUDIO_TYPES = frozenset({"audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3"})
DEFAULT_MAX_MEDIA_BYTES = 5 * 1024 * 1024  # Anthropic's limit for one image
DEFAULT_MAX_MEDIA_PER_RESULT = 4


@dataclass(frozen=True)
class MediaLimits:
    max_bytes: int = DEFAULT_MAX_MEDIA_BYTES
    max_count: int = DEFAULT_MAX_MEDIA_PER_RESULT


@dataclass
class MediaCollector:
    """Collects one result's media in order; `note` is what the text says in the block's place."""

    limits: MediaLimits = field(default_factory=MediaLimits)
    kept: list[Media] = field(default_factory=list[Media])

    def add(self, kind: MediaKind, mime: object, data: object) -> str:
        mime_type = mime.lower() if isinstance(mime, str) and mime else "unknown type"
        if not isinstance(data, str) or not data:
            return f"[{kind}: {mime_type}, no data]"
        size = decoded_size(data)
        shown = f"{mime_type}, {human_bytes(size)}"
        accepted = IMAGE_TYPES if kind == "image" else AUDIO_TYPES
        if mime_type not in accepted:
            return f"[{kind} not shown to the model: {shown} is not a type it accepts]"
        if size > self.limits.max_bytes:
            limit = human_bytes(self.limits.max_bytes)
            return f"[{kind} not shown to the model: {shown}, over the {limit} limit]"
        if len(self.kept) >= self.limits.max_count:
            return f"[{kind} not shown to the model: {shown}; at most {self.limits.max_count} per result]"
        if not _decodes(data):
            return f"[{kind} not shown to the model: {mime_type}, its data is not valid base64]"
        self.kept.append(Media(kind, mime_type, data))
        return f"[{kind} {len(self.kept)}: {shown}, attached]"


def _decodes(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def media_kind(block: Mapping[str, object]) -> MediaKind | None:
    kind = block.get("type")
    return "image" if kind == "image" else "audio" if kind == "audio" else None
