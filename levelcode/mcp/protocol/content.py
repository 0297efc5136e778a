"""Resources and prompts as the model, the REPL and `levelcode mcp …` get them.

Pure. A resource's contents become one outcome — text as it is, images and audio as media
(bounded like a tool's, mcp/protocol/media.py), other binary data summarised, never base64. A
prompt's messages become (role, text) pairs the same way. A listing of resources becomes lines
for the model and for people. Every piece is the server's text: callers cap it and make it safe
for a terminal; nothing here trusts it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from levelcode.core.outcome import Media, MediaKind, ToolOutcome, decoded_size, human_bytes
from levelcode.mcp.protocol.media import MediaCollector, MediaLimits, media_kind
from levelcode.mcp.protocol.results import render_block

PURE = True

MAX_DESCRIPTION_CHARS = 300


def render_resource_contents(result: Mapping[str, object], limits: MediaLimits | None = None) -> ToolOutcome:
    contents = result.get("contents")
    items = [item for item in contents if isinstance(item, Mapping)] if isinstance(contents, list) else []
    collector = MediaCollector(limits or MediaLimits())
    parts = [_content_part(item, collector) for item in items]
    text = "\n".join(parts) if parts else "(the resource has no contents)"
    return dataclasses.replace(ToolOutcome(text), media=tuple(collector.kept))


def _content_part(item: Mapping[str, object], collector: MediaCollector) -> str:
    uri, mime = item.get("uri"), item.get("mimeType")
    text = item.get("text")
    if isinstance(text, str):
        return text
    blob = item.get("blob")
    kind: MediaKind | None = None
    if isinstance(mime, str) and mime.startswith(("image/", "audio/")):
        kind = "image" if mime.startswith("image/") else "audio"
    if kind is not None:
        return f"{uri}: " + collector.add(kind, mime, blob)
    size = human_bytes(decoded_size(blob)) if isinstance(blob, str) else "no data"
    return f"[{uri}: {mime if isinstance(mime, str) else 'unknown type'}, {size} of binary data]"


def resource_lines(
    resources: Sequence[Mapping[str, object]], templates: Sequence[Mapping[str, object]]
) -> list[str]:
    """One line per resource (`uri — name (mime): description`) and per template."""
    lines = [_resource_line(r, "uri") for r in resources if isinstance(r.get("uri"), str)]
    lines += [
        "template: " + _resource_line(t, "uriTemplate")
        for t in templates
        if isinstance(t.get("uriTemplate"), str)
    ]
    return lines


def _resource_line(item: Mapping[str, object], key: str) -> str:
    line = str(item[key])
    name = item.get("title") or item.get("name")
    if isinstance(name, str) and name:
        line += f" — {name}"
    if isinstance(item.get("mimeType"), str):
        line += f" ({item['mimeType']})"
    description = item.get("description")
    if isinstance(description, str) and description.strip():
        line += ": " + " ".join(description.split())[:MAX_DESCRIPTION_CHARS]
    return line


@dataclass(frozen=True)
class PromptText:
    description: str | None
    messages: tuple[tuple[str, str], ...]  # (role, text), in order
    media: tuple[Media, ...] = ()  # the pictures and sounds its messages carried, bounded

    def joined(self) -> str:
        return "\n\n".join(text if role == "user" else f"[{role}]\n{text}" for role, text in self.messages)


def render_prompt(result: Mapping[str, object], limits: MediaLimits | None = None) -> PromptText:
    raw = result.get("messages")
    messages = [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []
    collector = MediaCollector(limits or MediaLimits())
    pairs: list[tuple[str, str]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        text = "\n".join(_prompt_block(block, collector) for block in blocks)
        pairs.append((role if role in ("user", "assistant") else "user", text))
    description = result.get("description")
    return PromptText(
        description[:MAX_DESCRIPTION_CHARS] if isinstance(description, str) else None,
        tuple(pairs),
        tuple(collector.kept),
    )


def _prompt_block(block: object, collector: MediaCollector) -> str:
    if isinstance(block, Mapping) and media_kind(block) is not None:
        return render_block(block, collector)
    return render_block(block)


def prompt_arguments(prompt: Mapping[str, object]) -> list[tuple[str, bool, str]]:
    """(name, required, description) of each argument a `prompts/list` entry declares."""
    raw = prompt.get("arguments")
    arguments = [a for a in raw if isinstance(a, Mapping)] if isinstance(raw, list) else []
    found = []
    for argument in arguments:
        name = argument.get("name")
        if isinstance(name, str) and name:
            description = argument.get("description")
            text = (
                " ".join(description.split())[:MAX_DESCRIPTION_CHARS] if isinstance(description, str) else ""
            )
            found.append((name, argument.get("required") is True, text))
    return found
