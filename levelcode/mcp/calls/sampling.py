"""A server's `sampling/createMessage` request: what the card shows, what the model is given, and
the answer's shape.

Pure. Sampling lets a server put text before the user's model and spend their tokens, so each
request is shown whole (capped): the server, every message it wants answered, its system
prompt, the model it will run on and the token limit — the server's own request, or LevelCode's
limit when that is lower. Images in the messages are named, not sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from levelcode.core.approvals import ApprovalRequest

PURE = True

MAX_MESSAGES = 50
MAX_MESSAGE_CHARS = 8_000
MAX_SYSTEM_CHARS = 4_000
DEFAULT_MAX_TOKENS = 1_000


@dataclass(frozen=True)
class SamplingRequest:
    messages: tuple[tuple[str, str], ...]  # (role, text)
    system: str
    max_tokens: int  # as the server asked


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [cut at {limit:,} characters]"


def parse_sampling(params: Mapping[str, object]) -> SamplingRequest | None:
    raw = params.get("messages")
    if not isinstance(raw, list) or not raw or len(raw) > MAX_MESSAGES:
        return None
    messages = []
    for message in raw:
        if not isinstance(message, Mapping):
            return None
        role = "assistant" if message.get("role") == "assistant" else "user"
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        text = "\n".join(_block_text(block) for block in blocks)
        messages.append((role, _cap(text, MAX_MESSAGE_CHARS)))
    system = params.get("systemPrompt")
    limit = params.get("maxTokens")
    tokens = (
        limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else DEFAULT_MAX_TOKENS
    )
    return SamplingRequest(
        tuple(messages), _cap(system, MAX_SYSTEM_CHARS) if isinstance(system, str) else "", tokens
    )


def _block_text(block: object) -> str:
    if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    kind = block.get("type") if isinstance(block, Mapping) else None
    return f"[{str(kind)[:20]} content, not sent]"


def sampling_card(server: str, request: SamplingRequest, model: str, max_tokens: int) -> ApprovalRequest:
    body = [f"server:      {server}", f"model:       {model}", f"token limit: {max_tokens:,}"]
    if max_tokens < request.max_tokens:
        body[-1] += f" (the server asked for {request.max_tokens:,}; your limit is lower)"
    if request.system:
        body += ["", "system prompt (the server's):", *request.system.splitlines()]
    for role, text in request.messages:
        body += ["", f"{role} (the server's):", *text.splitlines()]
    return ApprovalRequest(
        "mcp_sampling",
        f"MCP server {server!r} asks your model to answer",
        tuple(body),
        warning="the server's text goes to your model and spends your tokens; its answer goes to the server",
    )


def sampling_result(text: str, model: str, stop_reason: str) -> dict[str, object]:
    stop = {"end_turn": "endTurn", "max_tokens": "maxTokens", "stop_sequence": "stopSequence"}
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
        "stopReason": stop.get(stop_reason, stop_reason),
    }
