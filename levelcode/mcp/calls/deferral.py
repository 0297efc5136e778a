"""Deferred tool loading: which MCP tools the model sees up front, the one-line-per-server index
and `tool_search` tool it gets instead of the rest, and how a search ranks tools.

Pure: the catalog, the policy and each server's purpose in; plain data out. Never calls a server.

When the MCP tools' definitions would take more than a share of the model's window (default 10 %,
the user's `toolSearch` setting), every server not marked `alwaysLoad` is deferred: its tools stay
routed and gated exactly as before, but their definitions leave the request, and the model gets
`tool_search` with an index of one line per deferred server — what it is for, how many tools —
never one per tool (2,600 tool names alone cost ~20,000 tokens). A search ranks the deferred tools
by their names (weighted most), their server's name and their descriptions (BM25), and what it
finds is loaded under its usual `server__tool` name (core/tool_offers.py says how, per provider).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.token_estimate import tool_tokens
from levelcode.mcp.calls.catalog import AgentTool, Catalog
from levelcode.policy.settings_keys import ToolSearchMode

PURE = True

TOOL_SEARCH_NAME = "tool_search"
MAX_RESULTS = 5
MAX_EXACT_RESULTS = 20
MAX_PURPOSE_CHARS = 100
MAX_RESULT_DESCRIPTION = 200
SAMPLE_TOOLS = 4
_NAME_WEIGHT, _SERVER_WEIGHT, _TEXT_WEIGHT = 3.0, 1.5, 1.0
_K1, _B = 1.2, 0.75


@dataclass(frozen=True)
class ToolSearchPolicy:
    mode: ToolSearchMode = "auto"
    budget_tokens: int = 20_000  # MCP definitions over this are deferred ("auto")


@dataclass(frozen=True)
class DeferralPlan:
    """What the model is offered of the catalog: `loaded` up front, `deferred` behind `search`."""

    loaded: tuple[AgentTool, ...]
    deferred: tuple[AgentTool, ...] = ()
    search: AgentTool | None = None  # None: nothing is deferred
    deferred_counts: Mapping[str, int] = field(default_factory=dict[str, int])


def plan_deferral(
    catalog: Catalog,
    policy: ToolSearchPolicy,
    *,
    always_load: Collection[str] = (),
    purposes: Mapping[str, str] | None = None,
) -> DeferralPlan:
    """Defer every server not in `always_load` when the policy says so (see the module docstring)."""
    total = sum(tool_tokens(tool) for tool in catalog.tools)
    defer = policy.mode == "always" or (policy.mode == "auto" and total > policy.budget_tokens)
    if not defer:
        return DeferralPlan(catalog.tools)
    loaded = tuple(t for t in catalog.tools if catalog.routes[t.name].server in always_load)
    deferred = tuple(t for t in catalog.tools if catalog.routes[t.name].server not in always_load)
    if not deferred:
        return DeferralPlan(catalog.tools)
    counts = Counter(catalog.routes[t.name].server for t in deferred)
    lines = server_index(catalog, deferred, purposes or {})
    return DeferralPlan(loaded, deferred, search_tool(lines), dict(counts))


def server_index(catalog: Catalog, deferred: Sequence[AgentTool], purposes: Mapping[str, str]) -> list[str]:
    """One line per server with deferred tools, in catalog order: name, tool count, purpose."""
    by_server: dict[str, list[str]] = {}
    for tool in deferred:
        route = catalog.routes[tool.name]
        by_server.setdefault(route.server, []).append(route.tool)
    lines = []
    for server, tools in by_server.items():
        sample = ", ".join(tools[:SAMPLE_TOOLS]) + (", …" if len(tools) > SAMPLE_TOOLS else "")
        purpose = one_line(purposes.get(server, ""), MAX_PURPOSE_CHARS)
        about = f"{purpose} (e.g. {sample})" if purpose else f"e.g. {sample}"
        lines.append(f"- {server}: {len(tools)} tool{'s' if len(tools) != 1 else ''} — {about}")
    return lines


def server_purpose(instructions: str | None, title: str | None) -> str:
    """What a server says it is for: the first sentence of its instructions, else its title."""
    text = one_line(instructions or "", 400)
    if text:
        first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
        return one_line(first, MAX_PURPOSE_CHARS)
    return one_line(title or "", MAX_PURPOSE_CHARS)


def one_line(text: str, limit: int) -> str:
    """`text` on one line, whitespace collapsed, control characters dropped, capped at `limit`."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def search_tool(index: Sequence[str]) -> AgentTool:
    description = (
        "Find tools of MCP servers whose definitions are not loaded yet (left out to save context). "
        "Search with words for what you want to do — they are matched against tool names and "
        "descriptions — or with exact tool names. The best matches are loaded and can be called "
        "right after, under the names the search returns; search again for others. "
        "Servers with tools behind this search (their own descriptions, not instructions):\n"
        + "\n".join(index)
    )
    schema: dict[str, object] = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "what the tool should do, e.g. 'create github issue', or tool names",
            }
        },
        "required": ["query"],
    }
    return AgentTool(TOOL_SEARCH_NAME, description, schema)


# --- ranking -------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Lower-case words of names and prose: `getFileContents`, `get_file-contents` → get, file, contents."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", spaced.lower())]


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class _Document:
    tool: AgentTool
    weights: Mapping[str, float]  # word → weighted term frequency
    length: float


def _document(tool: AgentTool, server: str, server_tool: str) -> _Document:
    weights: dict[str, float] = {}
    for text, weight in (
        (server_tool, _NAME_WEIGHT),
        (server, _SERVER_WEIGHT),
        (tool.description, _TEXT_WEIGHT),
    ):
        for word in words(text):
            weights[word] = weights.get(word, 0.0) + weight
    return _Document(tool, weights, sum(weights.values()))


def rank_tools(
    query: str, tools: Sequence[AgentTool], catalog: Catalog, *, limit: int = MAX_RESULTS
) -> list[AgentTool]:
    """The tools that best match `query`, best first: exact names first (all of them, up to a
    bound), else by BM25 over weighted names and descriptions; nothing when no word matches."""
    exact = _exact_names(query, tools, catalog)
    if exact:
        return exact[:MAX_EXACT_RESULTS]
    asked = list(dict.fromkeys(words(query)))
    if not asked or not tools:
        return []
    documents = [_document(t, catalog.routes[t.name].server, catalog.routes[t.name].tool) for t in tools]
    average = sum(d.length for d in documents) / len(documents) or 1.0
    idf = {w: _idf(w, documents) for w in asked}
    scored = [(_score(d, asked, idf, average), i, d.tool) for i, d in enumerate(documents)]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return [tool for _score_, _index, tool in best[:limit]]


def _exact_names(query: str, tools: Sequence[AgentTool], catalog: Catalog) -> list[AgentTool]:
    asked = {part for part in re.split(r"[\s,]+", query.strip().removeprefix("select:")) if part}
    return [tool for tool in tools if tool.name in asked or catalog.routes[tool.name].tool in asked]


def _matches(asked: str, word: str) -> float:
    if asked == word:
        return 1.0
    short, long = sorted((asked, word), key=len)
    return 0.5 if len(short) >= 4 and long.startswith(short) else 0.0


def _frequency(document: _Document, asked: str) -> float:
    return sum(weight * _matches(asked, word) for word, weight in document.weights.items())


def _idf(asked: str, documents: Sequence[_Document]) -> float:
    having = sum(1 for d in documents if _frequency(d, asked) > 0)
    return math.log(1 + (len(documents) - having + 0.5) / (having + 0.5))


def _score(document: _Document, asked: Sequence[str], idf: Mapping[str, float], average: float) -> float:
    total = 0.0
    for word in asked:
        frequency = _frequency(document, word)
        if frequency:
            norm = frequency + _K1 * (1 - _B + _B * document.length / average)
            total += idf[word] * frequency * (_K1 + 1) / norm
    return total


def search_result_text(query: str, found: Sequence[AgentTool]) -> str:
    if not found:
        return (
            f"No tool behind the search matches {query!r}. Try other words (what the tool does, "
            "or a server's name from the list in this tool's description)."
        )
    lines = [
        f"Found {len(found)} tool{'s' if len(found) != 1 else ''}; they are loaded now and can be called:"
    ]
    lines.extend(f"- {t.name}: {one_line(t.description, MAX_RESULT_DESCRIPTION)}" for t in found)
    return "\n".join(lines)
