"""Paginated lists (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`):
every page, following `nextCursor`, bounded in pages and refusing a repeated cursor."""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import ProtocolError
from levelcode.mcp.protocol.session import McpSession

MAX_LIST_PAGES = 100


async def list_all(
    session: McpSession, method: str, key: str, *, timeout: float | None, max_pages: int = MAX_LIST_PAGES
) -> list[Mapping[str, object]]:
    """Every item of every page; items that are not objects are skipped (the caller validates)."""
    items: list[Mapping[str, object]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _page in range(max_pages):
        params = {"cursor": cursor} if cursor else {}
        result = await session.request(method, params, timeout=timeout)
        page = result.get(key)
        if not isinstance(page, list):
            raise ProtocolError(f"{method} answered without a list of {key}", server=session.server)
        items.extend(item for item in page if isinstance(item, Mapping))
        next_cursor = result.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor:
            return items
        if next_cursor in seen:
            raise ProtocolError(f"{method} repeated a page cursor", server=session.server)
        seen.add(cursor := next_cursor)
    raise ProtocolError(f"{method} went on for more than {max_pages} pages", server=session.server)
