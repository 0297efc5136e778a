"""The egress proxy's protocol: what it answers on its socket before a connection is handed to
the relay (egress_relay.py).

Speaks HTTP proxy: `CONNECT host:port` (a tunnel, for HTTPS) and requests in absolute form
(`GET http://host/path`, plain HTTP, rewritten to origin form with `Connection: close`). A host
not on the list, or one that resolves only to addresses its entry may not reach
(egress_rules.py), is refused with 403 and one line on stderr — which, for a server, is its
log — naming the host and how to allow it, once per host. The host is resolved here and the
connection goes to the very address checked, so no second lookup can be steered elsewhere.

Imported by egress_proxy.py once its command has started (its imports then cost the command
nothing); standard library, the pure rule modules and the relay only. Never writes to stdout.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterable
from urllib.parse import urlsplit

from levelcode.policy.network_hosts import DEFAULT_PORTS
from levelcode.sandbox.egress_relay import relay
from levelcode.sandbox.egress_rules import (
    NOT_LISTED,
    PRIVATE_ONLY,
    EgressRules,
    refusal_line,
    usable_addresses,
)
from levelcode.sandbox.own_addresses import is_own_address

MAX_HEAD_BYTES = 64 * 1024
HEAD_TIMEOUT_SECONDS = 30.0
CONNECT_TIMEOUT_SECONDS = 15.0
HEAD_CHUNK = 64 * 1024
_HOP_HEADERS = {b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive"}


def serve_in_background(
    listener: socket.socket, listed: Iterable[str], public: Iterable[str], hint: str
) -> None:
    """Answer on `listener` from a daemon thread, each connection in its own."""
    proxy = EgressProxy(EgressRules.from_texts(listed, public), hint)
    threading.Thread(target=proxy.serve, args=(listener,), daemon=True).start()


class Refused(Exception):
    """A request the proxy answers itself, with `status` and `text`; `logged`: the text is also
    a line for the log (a refusal the user can act on), not only the client's answer."""

    def __init__(self, status: str, text: str, *, logged: bool = False) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.logged = logged


class EgressProxy:
    def __init__(self, rules: EgressRules, hint: str) -> None:
        self.rules = rules
        self.hint = hint
        self._noted: set[str] = set()
        self._lock = threading.Lock()

    def serve(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(client,), daemon=True).start()

    def handle(self, client: socket.socket) -> None:
        with contextlib.ExitStack() as stack:
            stack.callback(client.close)
            try:
                client.settimeout(HEAD_TIMEOUT_SECONDS)
                head, rest = read_head(client)
                upstream, to_client, to_server = self.open_upstream(head)
            except Refused as refused:
                if refused.logged:
                    self.note(refused.text)
                with contextlib.suppress(OSError):
                    client.sendall(answer(refused.status, refused.text))
                return
            except OSError:
                return
            stack.callback(upstream.close)
            client.settimeout(None)
            with contextlib.suppress(OSError):
                client.sendall(to_client)
                upstream.sendall(to_server + rest)
                relay(client, upstream)

    def open_upstream(self, head: bytes) -> tuple[socket.socket, bytes, bytes]:
        """The connection the request asks for, and what goes first to the client (a tunnel's
        `200`) and to the server (a plain request, rewritten to origin form)."""
        method, target, version, headers = parse_head(head)
        if method == b"CONNECT":
            host, port = split_authority(target.decode("latin-1"), default=DEFAULT_PORTS["https"])
            upstream = self.connect(host, port)
            return upstream, version + b" 200 Connection established\r\n\r\n", b""
        url = urlsplit(target.decode("latin-1"))
        if url.scheme != "http" or not url.hostname:
            raise Refused("400 Bad Request", "a proxy request names an http:// URL, or is a CONNECT")
        try:
            written = url.port
        except ValueError:  # out of range, or not a number
            raise Refused("400 Bad Request", "not a port") from None
        upstream = self.connect(url.hostname, _port_of(written, DEFAULT_PORTS["http"]))
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        kept = [h for h in headers if h.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS]
        request = b"\r\n".join([b" ".join([method, path.encode("latin-1"), version]), *kept])
        return upstream, b"", request + b"\r\nConnection: close\r\n\r\n"

    def connect(self, host: str, port: int) -> socket.socket:
        """A connection to `host`, if its entry lets it through, at an address its entry may
        reach: resolved here, and connected to that very address (no second lookup to steer)."""
        reach = self.rules.reach(host, port)
        if reach is None:
            raise Refused("403 Forbidden", refusal_line(host, port, NOT_LISTED, self.hint), logged=True)
        addresses = resolve(host, port)
        if not addresses:
            raise Refused("502 Bad Gateway", f"[sandbox] {host} does not resolve")
        usable = usable_addresses(addresses, reach, own=is_own_address)
        if not usable:
            raise Refused("403 Forbidden", refusal_line(host, port, PRIVATE_ONLY, self.hint), logged=True)
        error: OSError | None = None
        for address in usable:
            try:
                upstream = socket.create_connection((address, port), timeout=CONNECT_TIMEOUT_SECONDS)
            except OSError as exc:
                error = exc
                continue
            upstream.settimeout(None)  # the bound was for connecting: a stream may idle for long
            return upstream
        raise Refused("502 Bad Gateway", f"[sandbox] could not connect to {host}:{port}: {error}")

    def note(self, line: str) -> None:
        """The line on stderr (the server's log), once per host and reason."""
        with self._lock:
            if line in self._noted:
                return
            self._noted.add(line)
        with contextlib.suppress(OSError):
            os.write(2, (line + "\n").encode("utf-8", "replace"))


def read_head(client: socket.socket) -> tuple[bytes, bytes]:
    """The request line and headers (without the blank line), and what came after them."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD_BYTES:
            raise Refused("431 Request Header Fields Too Large", "the request's head is too long")
        chunk = client.recv(HEAD_CHUNK)
        if not chunk:
            raise OSError("the client closed the connection")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def parse_head(head: bytes) -> tuple[bytes, bytes, bytes, list[bytes]]:
    line, *headers = head.split(b"\r\n")
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        raise Refused("400 Bad Request", "not an HTTP/1 request")
    return parts[0].upper(), parts[1], parts[2], headers


def split_authority(text: str, *, default: int) -> tuple[str, int]:
    """(host, port) of `host:port`, `[v6]:port` or a host alone."""
    host, colon, port = text.rpartition(":") if not text.endswith("]") else (text, "", "")
    if not colon or (":" in host and not host.startswith("[")):  # a bare IPv6 address
        host, port = text, str(default)
    return host.removeprefix("[").removesuffix("]"), _port_of(int(port) if port.isdigit() else 0, default)


def _port_of(port: int | None, default: int) -> int:
    if port is None:
        return default
    if not 0 < port < 65536:
        raise Refused("400 Bad Request", "not a port")
    return port


def resolve(host: str, port: int) -> list[str]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def answer(status: str, text: str) -> bytes:
    body = (text + "\n").encode("utf-8", "replace")
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}"
    return (head + "\r\nConnection: close\r\n\r\n").encode("ascii") + body
