"""A `tools/call` result → the outcome the model gets.

Pure. Text blocks are joined; `structuredContent` is shown when there is no text; images and
audio become the outcome's media, bounded (mcp/protocol/media.py), with a note in the text where
each was, never base64; binary resources are summarised (type, mime, size); `isError` becomes
an `ERROR: …` outcome. The cap on the whole text is applied by `cap_text`, which leaves the full
text to the caller to spill into a file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

from levelcode.core.outcome import SavedResult, ToolOutcome, decoded_size, failure, human_bytes
from levelcode.mcp.protocol.media import MediaCollector, MediaLimits, media_kind

PURE = True

DEFAULT_RESULT_CHARS = 40_000

__all__ = ["DEFAULT_RESULT_CHARS", "cap_text", "human_bytes", "render_block", "render_call_result"]


def render_call_result(result: Mapping[str, object], limits: MediaLimits | None = None) -> ToolOutcome:
    content = result.get("content")
    blocks = content if isinstance(content, list) else []
    collector = MediaCollector(limits or MediaLimits())
    parts = [render_block(block, collector) for block in blocks]
    text = "\n".join(part for part in parts if part)
    has_text = any(isinstance(b, Mapping) and b.get("type") == "text" for b in blocks)
    structured = result.get("structuredContent")
    if not has_text and structured is not None:
        rendered = json.dumps(structured, indent=2, ensure_ascii=False, default=str)
        text = f"{text}\n{rendered}" if text else rendered
    is_error = result.get("isError") is True
    if is_error:
        return failure(text or "the tool reported an error without a message")
    outcome = ToolOutcome(text or "(the tool returned no content)")
    return dataclasses.replace(outcome, media=tuple(collector.kept))


def render_block(block: object, collector: MediaCollector | None = None) -> str:
    if not isinstance(block, Mapping):
        return "[malformed content block]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else "[malformed text block]"
    media = media_kind(block)
    if media is not None:
        if collector is None:
            return f"[{media}: {_mime(block)}, {_base64_size(block.get('data'))}]"
        return collector.add(media, block.get("mimeType"), block.get("data"))
    if kind == "resource_link":
        return _resource_link(block)
    if kind == "resource":
        return _embedded_resource(block.get("resource"))
    return f"[unsupported content block: {str(kind)[:40]}]"


def cap_text(text: str, limit: int = DEFAULT_RESULT_CHARS, *, saved: SavedResult | None = None) -> str:
    """The text cut to `limit` characters with a note saying where the whole of it was saved, and
    how the model reads it there."""
    if len(text) <= limit:
        return text
    where = ""
    if saved is not None:
        where = (
            f"; the whole result ({human_bytes(saved.size)}) is saved in {saved.path}: "
            "read it with read_file, start_line/end_line"
        )
    note = f"\n\n[result cut: showing {limit:,} of {len(text):,} characters{where}]"
    return text[:limit] + note


def _mime(block: Mapping[str, object]) -> str:
    mime = block.get("mimeType")
    return mime if isinstance(mime, str) and mime else "unknown type"


def _base64_size(data: object) -> str:
    if not isinstance(data, str):
        return "no data"
    return human_bytes(decoded_size(data)) if data else human_bytes(0)


def _resource_link(block: Mapping[str, object]) -> str:
    name = block.get("name") or block.get("title") or "resource"
    details = [_mime(block)] if isinstance(block.get("mimeType"), str) else []
    size = block.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        details.append(human_bytes(size))
    suffix = f" ({', '.join(details)})" if details else ""
    return f"[resource link: {name} <{block.get('uri')}>{suffix}]"


def _embedded_resource(resource: object) -> str:
    if not isinstance(resource, Mapping):
        return "[malformed resource block]"
    uri = resource.get("uri")
    text = resource.get("text")
    if isinstance(text, str):
        return f"[resource {uri} ({_mime(resource)})]\n{text}"
    return f"[resource {uri}: {_mime(resource)}, {_base64_size(resource.get('blob'))}]"
