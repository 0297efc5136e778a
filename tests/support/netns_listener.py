"""`python netns_listener.py RECORD ADDRESS…`: a stand-in for a service of this machine, run inside
a test's network namespace (tests/support/netns.py). Listens on ports 80 and 443 of each
ADDRESS, says `listening` on stdout once it does, and for each connection appends its first
bytes to the file RECORD — before answering `HTTP/1.0 200 OK … reached`, so whoever got the
answer finds the record written. Standard library only; runs until killed.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Sequence

PORTS = (80, 443)
ANSWER = b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nreached"


def serve(server: socket.socket, record: str, lock: threading.Lock) -> None:
    while True:
        connection, _ = server.accept()
        with connection:
            connection.settimeout(10)
            try:
                data = connection.recv(65536)
            except OSError:
                data = b""
            with lock, open(record, "ab") as kept:
                kept.write(b"<connection>" + data)
            try:
                connection.sendall(ANSWER)
            except OSError:
                continue


def main(argv: Sequence[str]) -> None:
    record, addresses = argv[0], argv[1:]
    lock = threading.Lock()
    servers = [
        socket.create_server((address, port), family=socket.AF_INET6 if ":" in address else socket.AF_INET)
        for address in addresses
        for port in PORTS
    ]
    for server in servers:
        threading.Thread(target=serve, args=(server, record, lock), daemon=True).start()
    sys.stdout.write("listening\n")
    sys.stdout.flush()
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1:])
