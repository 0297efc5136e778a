"""What every request to one remote server carries: the configured headers (and any a sign-in
added), the session id and negotiated version once known, and the per-request `Mcp-*` headers.

Pure state, no I/O. Holds credentials: never put its values in a message or a log line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from levelcode.mcp.http.request_headers import param_headers, standard_headers

PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
# (method, url, the Authorization sent) → headers that one request needs of its own (a DPoP proof)
Proof = Callable[[str, str, str | None], Mapping[str, str]]


class SessionHeaders:
    def __init__(self, configured: Mapping[str, str], url: str = "", proof: Proof | None = None) -> None:
        self.configured = dict(configured)
        self.url = url
        self.proof = proof
        self.auth: dict[str, str] = {}
        self.session_id: str | None = None
        self.version: str | None = None  # negotiated by `initialize` (2025-11-25 and earlier)
        self.modern = False  # requests carry their version in `_meta` (2026-07-28)
        self.mirrored: dict[str, dict[str, str]] = {}  # tool → {argument: Mcp-Param suffix}

    def credentials(self) -> dict[str, str]:
        return {**self.configured, **self.auth}

    def adopt_session(self, value: str | None) -> None:
        if value and all(0x21 <= ord(c) <= 0x7E for c in value):
            self.session_id = value

    def forget_session(self) -> None:
        self.session_id = None

    def for_post(self, message: Mapping[str, object]) -> dict[str, str]:
        headers = {
            **self.credentials(),
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self._session_and_version(headers, protocol_of(message), message.get("method") == "initialize")
        headers.update(standard_headers(message))
        params = message.get("params")
        if self.modern and message.get("method") == "tools/call" and isinstance(params, Mapping):
            mirrored = self.mirrored.get(str(params.get("name")), {})
            headers.update(param_headers(mirrored, params.get("arguments")))
        return self._proved("POST", headers)

    def for_stream(self, last_event_id: str | None) -> dict[str, str]:
        headers = {**self.credentials(), "Accept": "text/event-stream"}
        self._session_and_version(headers, None, False)
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return self._proved("GET", headers)

    def for_delete(self) -> dict[str, str]:
        headers = self.credentials()
        self._session_and_version(headers, None, False)
        return self._proved("DELETE", headers)

    def _proved(self, method: str, headers: dict[str, str]) -> dict[str, str]:
        """Each request's own proof, made now: a retried request gets a fresh one."""
        if self.proof is not None:
            headers.update(self.proof(method, self.url, headers.get("Authorization")))
        return headers

    def _session_and_version(self, headers: dict[str, str], version: str | None, initialize: bool) -> None:
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if version is None and not initialize:
            version = self.version
        if version is not None:
            headers["MCP-Protocol-Version"] = version


def protocol_of(message: Mapping[str, object] | None) -> str | None:
    """The version a 2026-07-28 request names in its `_meta`, if it does."""
    params = message.get("params") if message is not None else None
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    version = meta.get(PROTOCOL_META) if isinstance(meta, Mapping) else None
    return version if isinstance(version, str) else None
