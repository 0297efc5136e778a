"""The MCP Registry's REST API (v0.1) over HTTP: a page of servers (`GET /v0.1/servers`, with
`search`, `version=latest`, `limit` and the `cursor` the last page returned), and one server
version (`GET /v0.1/servers/{name}/versions/{version}`; `latest` for the newest).

The one module of mcp/registry that does I/O. Every failure — unreachable, slow, a redirect, an
HTTP error, an answer too large or not JSON, a page whose cursor goes round in a circle — is one
line (`RegistryError`) naming the registry; httpx2's exceptions never leave this module. Bounded:
a timeout on every request, a cap on each answer's size and on the pages one search reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar
from urllib.parse import quote

import httpx2

from levelcode.core.errors import RegistryError
from levelcode.mcp.registry.documents import ServerPage, ServerRecord, parse_page, parse_record

API = "/v0.1"
TIMEOUT_SECONDS = 15.0
MAX_ANSWER_BYTES = 8 * 1024 * 1024
MAX_PAGES = 200  # one search; the official registry's whole list is a few dozen pages of 100
PAGE_SIZE = 100
_Parsed = TypeVar("_Parsed")


@dataclass(frozen=True)
class Found:
    records: tuple[ServerRecord, ...]
    more: bool  # the registry has more that match than were read
    unreadable: tuple[str, ...] = ()


class RegistryClient:
    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx2.BaseTransport | None = None,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx2.Client(
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            headers={"Accept": "application/json", "User-Agent": "levelcode"},
        )
        self._timeout = timeout

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._http.close()

    def page(
        self, *, search: str | None = None, cursor: str | None = None, limit: int = PAGE_SIZE
    ) -> ServerPage:
        params = {"version": "latest", "limit": str(limit)}
        if search:
            params["search"] = search
        if cursor:
            params["cursor"] = cursor
        return self._parsed(parse_page, self._get(f"{API}/servers", params))

    def version(self, name: str, version: str = "latest") -> ServerRecord:
        """One version of one server; RegistryError naming the server when the registry has no such
        version (or no such server)."""
        path = f"{API}/servers/{quote(name, safe='')}/versions/{quote(version, safe='')}"
        try:
            return self._parsed(parse_record, self._get(path, {}))
        except _NotFound:
            wanted = "its latest version" if version == "latest" else f"version {version}"
            latest = "" if version == "latest" else f"; its latest: levelcode mcp add {name} --from-registry"
            raise RegistryError(f"{self.base_url} has no {wanted} of {name}{latest}") from None

    def search(
        self, text: str | None, *, want: int | None, keep: Callable[[ServerRecord], bool] | None = None
    ) -> Found:
        """Servers matching `text` (the registry's own search: their names), page after page until
        `want` are found (None: all of them); `keep`, when given, filters each page here."""
        records: list[ServerRecord] = []
        unreadable: list[str] = []
        for page in self._pages(text, page_size=PAGE_SIZE if want is None or keep else min(want, PAGE_SIZE)):
            unreadable += page.unreadable
            records += [r for r in page.records if keep is None or keep(r)]
            if want is not None and len(records) >= want:
                return Found(
                    tuple(records[:want]),
                    len(records) > want or page.next_cursor is not None,
                    tuple(unreadable),
                )
        return Found(tuple(records), False, tuple(unreadable))

    def _pages(self, text: str | None, *, page_size: int) -> Iterator[ServerPage]:
        cursor: str | None = None
        seen: set[str] = set()
        for _count in range(MAX_PAGES):
            page = self.page(search=text, cursor=cursor, limit=page_size)
            yield page
            cursor = page.next_cursor
            if cursor is None:
                return
            if cursor in seen:
                raise RegistryError(f"{self.base_url} returned a page cursor it had returned before; stopped")
            seen.add(cursor)
        raise RegistryError(
            f"{self.base_url} still had more after {MAX_PAGES} pages; stopped (narrow the search)"
        )

    def _parsed(self, parse: Callable[[object], _Parsed], doc: object) -> _Parsed:
        """The answer parsed; what is wrong with it said with the registry's name."""
        try:
            return parse(doc)
        except RegistryError as exc:
            raise RegistryError(f"{self.base_url} answered badly: {exc}") from None

    def _get(self, path: str, params: dict[str, str]) -> object:
        url = self.base_url + path
        try:
            with self._http.stream("GET", url, params=params) as response:
                body = _status_checked(response, self.base_url)
        except httpx2.TimeoutException:
            raise RegistryError(f"{self.base_url} did not answer within {self._timeout:g} s") from None
        except httpx2.HTTPError as exc:
            raise RegistryError(
                f"{self.base_url} could not be reached: {exc or type(exc).__name__}"
            ) from None
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            raise RegistryError(f"{self.base_url} answered with something that is not JSON") from None


class _NotFound(Exception):
    """404: the caller says what was not found."""


def _status_checked(response: httpx2.Response, base: str) -> bytes:
    if response.status_code == 404:
        raise _NotFound
    if 300 <= response.status_code < 400:
        where = response.headers.get("location", "elsewhere")
        raise RegistryError(f"{base} redirects to {where}; set the registry's own address instead")
    if response.status_code != 200:
        raise RegistryError(f"{base} answered HTTP {response.status_code}")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_ANSWER_BYTES:
            raise RegistryError(
                f"{base} answered with more than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB; stopped"
            )
    return bytes(body)
