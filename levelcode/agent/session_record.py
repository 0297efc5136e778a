"""A saved session's content as JSON and back, and the replay of a session file's lines into the
state they describe (agent/session_store.py reads and writes the files).

A session file is JSON lines: a header (`{"levelcode_session": 1, "id", "workspace", "created",
"provider", "first_prompt"}`), then one record per save and a small mark after each:
- a record changes the state: `"at": N, "messages": [...]` keeps the first N messages and puts
  these after them; `"turns_at"`/`"turns"` does the same for the finished turns' spend; `"between"`
  and `"session"` are the spend outside turns and in all; `"model"` is the model in use;
- a mark (`{"mark": {"model", "turns", "time"}}`) says where the session stands, so a list of
  sessions reads only the file's head and tail.
The messages are exactly what the provider is sent (text, tool uses with their arguments, tool
results with their pictures and the tools they made available), so a resumed session's requests
repeat the old ones byte for byte. Pure: JSON-able data in and out; never opens a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from levelcode.agent.spend import Spend
from levelcode.agent.transcript import INTERRUPTED_NOTE, TURN_END_NOTES, Transcript
from levelcode.core.messages import (
    Block,
    Message,
    TextBlock,
    ToolResult,
    ToolUse,
    Usage,
    unanswered_tool_uses,
)
from levelcode.core.outcome import Media, ToolOutcome

PURE = True

FORMAT = 1
HEADER_KEY = "levelcode_session"
MAX_FIRST_PROMPT = 300  # characters of the first prompt kept in the header, for the list


class BadRecord(ValueError):
    """A line that is not what LevelCode writes; the message says what is wrong."""


@dataclass
class SessionState:
    """Where a session stands after the lines read so far."""

    messages: list[Message] = field(default_factory=list[Message])
    turns: list[Spend] = field(default_factory=list[Spend])
    between: Spend = field(default_factory=Spend)
    session: Spend = field(default_factory=Spend)
    model: str = ""


def header_json(
    session_id: str, workspace: str, created: str, provider: str, first_prompt: str
) -> dict[str, object]:
    return {
        HEADER_KEY: FORMAT,
        "id": session_id,
        "workspace": workspace,
        "created": created,
        "provider": provider,
        "first_prompt": first_prompt[:MAX_FIRST_PROMPT],
    }


def check_header(raw: object) -> Mapping[str, str]:
    """The header's fields; raises BadRecord when it is not a header LevelCode wrote."""
    if not isinstance(raw, Mapping) or raw.get(HEADER_KEY) != FORMAT:
        raise BadRecord("not a LevelCode session (or a newer format)")
    header = cast(Mapping[str, object], raw)
    for key in ("id", "workspace", "created", "provider", "first_prompt"):
        if not isinstance(header.get(key), str):
            raise BadRecord(f"the header has no {key!r}")
    return cast(Mapping[str, str], header)


def first_prompt(messages: Sequence[Message]) -> str:
    """The text of the first prompt (what a list of sessions shows)."""
    for message in messages:
        if message.role == "user":
            texts = [block.text for block in message.content if isinstance(block, TextBlock)]
            if texts:
                return texts[0]
    return ""


# --- messages ---------------------------------------------------------------------------------


def message_json(message: Message) -> dict[str, object]:
    return {"role": message.role, "content": [_block_json(block) for block in message.content]}


def _block_json(block: Block) -> dict[str, object]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUse):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    outcome = block.outcome
    shown: dict[str, object] = {"type": "tool_result", "tool_use_id": block.tool_use_id, "text": outcome.text}
    if outcome.is_error:
        shown["is_error"] = True
    if outcome.media:
        shown["media"] = [{"kind": m.kind, "mime_type": m.mime_type, "data": m.data} for m in outcome.media]
    if outcome.references:
        shown["references"] = list(outcome.references)
    return shown


def message_from_json(raw: object) -> Message:
    data = _object(raw, "a message")
    role = data.get("role")
    if role not in ("user", "assistant"):
        raise BadRecord(f"a message's role is {role!r}")
    content = data.get("content")
    if not isinstance(content, list) or not content:
        raise BadRecord("a message has no content")
    return Message(cast(Any, role), tuple(_block_from_json(item) for item in cast(list[object], content)))


def _block_from_json(raw: object) -> Block:
    data = _object(raw, "a content block")
    kind = data.get("type")
    if kind == "text":
        return TextBlock(_text(data, "text"))
    if kind == "tool_use":
        tool_input = _object(data.get("input"), "a tool use's input")
        return ToolUse(_text(data, "id"), _text(data, "name"), tool_input)
    if kind == "tool_result":
        return ToolResult(_text(data, "tool_use_id"), _outcome_from_json(data))
    raise BadRecord(f"unknown content block {kind!r}")


def _outcome_from_json(data: Mapping[str, object]) -> ToolOutcome:
    media = tuple(_media_from_json(item) for item in _list(data, "media"))
    references = tuple(_string(item, "a reference") for item in _list(data, "references"))
    return ToolOutcome(_text(data, "text"), data.get("is_error") is True, media, references)


def _media_from_json(raw: object) -> Media:
    data = _object(raw, "a picture or sound")
    kind = data.get("kind")
    if kind not in ("image", "audio"):
        raise BadRecord(f"unknown media kind {kind!r}")
    return Media(cast(Any, kind), _text(data, "mime_type"), _text(data, "data"))


# --- spend ------------------------------------------------------------------------------------


def spend_json(spend: Spend) -> dict[str, object]:
    usage = spend.usage
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cost_usd": spend.cost,
        "requests": spend.requests,
    }


def spend_from_json(raw: object) -> Spend:
    data = _object(raw, "a spend")
    counts = [
        _count(data, key)
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    ]
    cost = data.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float) or cost < 0):
        raise BadRecord("a spend's cost is not a number")
    return Spend(Usage(*counts), None if cost is None else float(cost), _count(data, "requests"))


# --- records ----------------------------------------------------------------------------------


def record_json(state: SessionState, messages_at: int | None, turns_at: int | None) -> dict[str, object]:
    """A record bringing a reader from the state saved before to `state`: the messages from index
    `messages_at` on, the turns from `turns_at` on (None: unchanged)."""
    record: dict[str, object] = {}
    if messages_at is not None:
        record["at"] = messages_at
        record["messages"] = [message_json(message) for message in state.messages[messages_at:]]
    if turns_at is not None:
        record["turns_at"] = turns_at
        record["turns"] = [spend_json(turn) for turn in state.turns[turns_at:]]
    record["between"] = spend_json(state.between)
    record["session"] = spend_json(state.session)
    record["model"] = state.model
    return record


def apply_record(state: SessionState, raw: object) -> None:
    """Bring `state` forward by one record; raises BadRecord (and leaves `state` as it was)."""
    data = _object(raw, "a record")
    messages = state.messages
    if "at" in data:
        at = _index(data, "at", len(messages))
        messages = [*messages[:at], *(message_from_json(item) for item in _list(data, "messages"))]
    turns = state.turns
    if "turns_at" in data:
        at = _index(data, "turns_at", len(turns))
        turns = [*turns[:at], *(spend_from_json(item) for item in _list(data, "turns"))]
    between, session = spend_from_json(data.get("between")), spend_from_json(data.get("session"))
    model = _text(data, "model")
    state.messages, state.turns, state.between, state.session, state.model = (
        messages,
        turns,
        between,
        session,
        model,
    )


def closed_transcript(messages: Sequence[Message]) -> list[Message]:
    """The messages as a conversation the provider accepts, its last turn closed: a turn that was
    under way when the session was last saved (LevelCode ended mid-turn: killed, crashed, a
    closed terminal) ends with the interrupted note, as a Ctrl-C would have left it. Raises
    BadRecord when a tool use has no result (LevelCode never saves one so)."""
    if unanswered_tool_uses(messages):
        raise BadRecord("a tool use has no result")
    transcript = Transcript()
    transcript.messages = list(messages)
    last = messages[-1] if messages else None
    if last is not None and last.role == "user" and not _ends_with_note(last):
        transcript.end_unanswered(INTERRUPTED_NOTE)
    return transcript.messages


def _ends_with_note(message: Message) -> bool:
    last = message.content[-1]
    return isinstance(last, TextBlock) and last.text in TURN_END_NOTES


# --- checked reading --------------------------------------------------------------------------


def _object(raw: object, what: str) -> dict[str, object]:
    if not isinstance(raw, dict):
        raise BadRecord(f"{what} is not a JSON object")
    return cast(dict[str, object], raw)


def _text(data: Mapping[str, object], key: str) -> str:
    return _string(data.get(key), repr(key))


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise BadRecord(f"{what} is not a string")
    return value


def _list(data: Mapping[str, object], key: str) -> list[object]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise BadRecord(f"{key!r} is not a list")
    return cast(list[object], value)


def _count(data: Mapping[str, object], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRecord(f"{key!r} is not a count")
    return value


def _index(data: Mapping[str, object], key: str, length: int) -> int:
    value = _count(data, key)
    if value > length:
        raise BadRecord(f"{key!r} points past the end ({value} > {length})")
    return value
