"""The prompt of an Anthropic request as the API reads it, for the fake: its blocks in cache order
(tools, system, messages), their tokens, the cache markers and tool references on them, and a
prompt cache that answers like the real one.

Constraints enforced as the API states them (its own error texts): at most 4 blocks with
`cache_control`; no `cache_control` on a tool with `defer_loading` ("Tools defer_loading cannot
use prompt caching") or on an empty text block; `cache_control` is `{"type": "ephemeral"}` with an
optional `ttl` of 5m or 1h. Guards of our own, where the documentation says what happens but not
the words: a `tool_reference` only inside a `tool_result`, naming a tool the request offers with
`defer_loading`; the prompt (deferred tools not counted until referenced) within the model's
window ("prompt is too long: N tokens > M maximum", as the API words it).

The cache: a request's prefix up to each marked block is written (when it reaches the minimum
cacheable length); a later request reads the longest stored prefix that ends at one of its marked
blocks or up to 20 blocks before one (the API's lookback). Markers are not content: the prefix is
the blocks' JSON without them. Usage reports `cache_read_input_tokens`,
`cache_creation_input_tokens` and the uncached rest as `input_tokens`, as the API does.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.fakes.scripted_server import token_estimate

MAX_CACHE_MARKERS = 4
LOOKBACK_BLOCKS = 20
DEFAULT_MIN_CACHEABLE_TOKENS = 1024  # the API's minimum for Sonnet-class models
_TTLS = ("5m", "1h")


@dataclass(frozen=True)
class PromptBlock:
    where: str  # the request path of the block, for error messages
    content: str  # canonical JSON, without cache_control
    tokens: int
    marked: bool


def _canonical(block: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)


def deferred_tools(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {t["name"]: t for t in body.get("tools") or [] if t.get("defer_loading") is True}


def prompt_blocks(body: Mapping[str, Any]) -> list[PromptBlock]:
    """The prompt in cache order. A deferred tool is not part of it; a `tool_reference` adds the
    referenced tool's definition where the reference stands."""
    deferred = deferred_tools(body)
    blocks = [
        PromptBlock(f"tools.{i}", _canonical(t), token_estimate(_canonical(t)), "cache_control" in t)
        for i, t in enumerate(body.get("tools") or [])
        if t.get("defer_loading") is not True
    ]
    system = body.get("system")
    if isinstance(system, str) and system:
        blocks.append(PromptBlock("system", json.dumps(system), token_estimate(system), False))
    elif isinstance(system, list):
        for i, block in enumerate(system):
            blocks.append(_block(f"system.{i}", block, deferred))
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for j, block in enumerate(content if isinstance(content, list) else []):
            blocks.append(
                _block(f"messages.{i}.content.{j}", {**block, "role": message.get("role")}, deferred)
            )
    return blocks


def _block(where: str, block: Mapping[str, Any], deferred: Mapping[str, Mapping[str, Any]]) -> PromptBlock:
    canonical = _canonical(block)
    tokens = token_estimate(canonical)
    for name in references(block):
        if name in deferred:
            tokens += token_estimate(_canonical(deferred[name]))
    return PromptBlock(where, canonical, tokens, "cache_control" in block)


def references(block: Mapping[str, Any]) -> list[str]:
    """The tools a `tool_result` block loads by reference."""
    content = block.get("content")
    if block.get("type") != "tool_result" or not isinstance(content, list):
        return []
    return [
        str(b.get("tool_name")) for b in content if isinstance(b, dict) and b.get("type") == "tool_reference"
    ]


def loaded_tools(body: Mapping[str, Any]) -> list[str]:
    """Every deferred tool some tool result of the request has loaded, in order."""
    loaded: dict[str, None] = {}
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            for name in references(block):
                loaded.setdefault(name, None)
    return list(loaded)


# --- validation: each check returns the API's message, or None ------------------------------------


def check_cache_markers(body: Mapping[str, Any]) -> str | None:
    marked = 0
    for where, block in _all_blocks(body):
        control = block.get("cache_control")
        if control is None:
            continue
        marked += 1
        if not isinstance(control, dict) or control.get("type") != "ephemeral":
            return f"{where}.cache_control.type: Input should be 'ephemeral'"
        if "ttl" in control and control["ttl"] not in _TTLS:
            return f"{where}.cache_control.ttl: Input should be '5m' or '1h'"
        if block.get("defer_loading") is True:
            name = block.get("name")
            return (
                f"Tool '{name}' cannot both defer_loading=true cache_control set. "
                "Tools defer_loading cannot use prompt caching."
            )
        if block.get("type") == "text" and not block.get("text"):
            return f"{where}.text: cache_control cannot be set for empty text blocks"
    if marked > MAX_CACHE_MARKERS:
        return f"A maximum of {MAX_CACHE_MARKERS} blocks with cache_control may be provided. Found {marked}."
    return None


def _all_blocks(body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    found: list[tuple[str, Mapping[str, Any]]] = [
        (f"tools.{i}", t) for i, t in enumerate(body.get("tools") or []) if isinstance(t, dict)
    ]
    system = body.get("system")
    if isinstance(system, list):
        found.extend((f"system.{i}", b) for i, b in enumerate(system) if isinstance(b, dict))
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for j, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            found.append((f"messages.{i}.content.{j}", block))
            inner = block.get("content")
            for k, nested in enumerate(inner if isinstance(inner, list) else []):
                if isinstance(nested, dict):
                    found.append((f"messages.{i}.content.{j}.content.{k}", nested))
    return found


def check_tool_references(body: Mapping[str, Any]) -> str | None:
    deferred = deferred_tools(body)
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for j, block in enumerate(content if isinstance(content, list) else []):
            inner = block.get("content") if isinstance(block, dict) else None
            for k, nested in enumerate(inner if isinstance(inner, list) else []):
                if not isinstance(nested, dict) or nested.get("type") != "tool_reference":
                    continue
                where = f"messages.{i}.content.{j}.content.{k}"
                if block.get("type") != "tool_result":
                    return f"{where}: `tool_reference` blocks can only be in the content of a `tool_result`"
                if nested.get("tool_name") not in deferred:
                    name = nested.get("tool_name")
                    return f"{where}.tool_name: {name!r} is not a tool with defer_loading in this request"
    return None


def check_window(body: Mapping[str, Any], window: int | None) -> str | None:
    if window is None:
        return None
    tokens = sum(block.tokens for block in prompt_blocks(body))
    return f"prompt is too long: {tokens} tokens > {window} maximum" if tokens > window else None


# --- the cache ------------------------------------------------------------------------------------


class PromptCache:
    def __init__(self, min_cacheable_tokens: int = DEFAULT_MIN_CACHEABLE_TOKENS) -> None:
        self.min_cacheable_tokens = min_cacheable_tokens
        self._stored: set[str] = set()
        self._lock = threading.Lock()

    def usage(self, body: Mapping[str, Any]) -> dict[str, int]:
        """Read what is cached, write what is marked: this request's input token counts."""
        blocks = prompt_blocks(body)
        hashes = _prefix_hashes(blocks)
        counts = _running_tokens(blocks)
        marks = [i for i, block in enumerate(blocks) if block.marked]
        with self._lock:
            read = max((self._longest_stored(hashes, mark) for mark in marks), default=0)
            written_to = 0
            for mark in marks:
                if counts[mark + 1] >= self.min_cacheable_tokens:
                    self._stored.add(hashes[mark])
                    written_to = mark + 1
        total = counts[-1]
        read_tokens = counts[read]
        created = max(0, counts[written_to] - read_tokens) if written_to > read else 0
        return {
            "input_tokens": total - read_tokens - created,
            "cache_read_input_tokens": read_tokens,
            "cache_creation_input_tokens": created,
        }

    def _longest_stored(self, hashes: list[str], mark: int) -> int:
        """The end of the longest stored prefix at `mark` or up to the lookback before it (0: none)."""
        for end in range(mark, max(-1, mark - LOOKBACK_BLOCKS - 1), -1):
            if hashes[end] in self._stored:
                return end + 1
        return 0


def _prefix_hashes(blocks: list[PromptBlock]) -> list[str]:
    digest = hashlib.sha256()
    hashes = []
    for block in blocks:
        digest.update(block.content.encode() + b"\n")
        hashes.append(digest.copy().hexdigest())
    return hashes


def _running_tokens(blocks: list[PromptBlock]) -> list[int]:
    counts = [0]
    for block in blocks:
        counts.append(counts[-1] + block.tokens)
    return counts
