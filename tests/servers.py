"""Real servers on loopback that record what they are sent: an HTTP server answering with
scripted status codes, and an SMTP server speaking the protocol's minimal command set (RFC 5321:
EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT). Each runs in a thread of the test process and is
stopped by the context manager that started it."""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    """What a server received; ``statuses`` are the HTTP answers still to give, in order
    (200 once they run out)."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    mails: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    #: SMTP replies to DATA still to give before a 250 (e.g. 451: try again later)
    data_replies: list[str] = field(default_factory=list)


@contextmanager
def http_server(statuses: list[int] | None = None) -> Iterator[tuple[str, Recorded]]:
    """A recording HTTP server: yields its URL (``http://127.0.0.1:<port>/hook/SECRET``) and
    what it records."""
    record = Recorded(statuses=list(statuses or []))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            record.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            status = record.statuses.pop(0) if record.statuses else 200
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "0")
            if 300 <= status < 400:  # to another host: a client that follows loses the body
                self.send_header("Location", "http://127.0.0.2:9/elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook/T0KEN-s3cret", record
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def smtp_server(data_replies: list[str] | None = None) -> Iterator[tuple[int, Recorded]]:
    """A recording SMTP server on loopback: yields its port and what it records."""
    record = Recorded(data_replies=list(data_replies or []))

    class Handler(socketserver.StreamRequestHandler):
        def reply(self, line: str) -> None:
            self.wfile.write(line.encode("ascii") + b"\r\n")

        def handle(self) -> None:
            self.reply("220 localhost test SMTP")
            sender, recipients = "", []
            while True:
                raw = self.rfile.readline()
                if not raw:
                    return
                verb = raw.decode("ascii", "replace").strip()
                upper = verb.upper()
                if upper.startswith("EHLO"):
                    self.reply("250-localhost")
                    self.reply("250 8BITMIME")
                elif upper.startswith("HELO"):
                    self.reply("250 localhost")
                elif upper.startswith("MAIL FROM:"):
                    sender, recipients = verb[10:].strip().strip("<>").split(">")[0], []
                    self.reply("250 OK")
                elif upper.startswith("RCPT TO:"):
                    recipients.append(verb[8:].strip().strip("<>"))
                    self.reply("250 OK")
                elif upper == "DATA":
                    self.reply("354 end with <CRLF>.<CRLF>")
                    lines = []
                    while (line := self.rfile.readline()) not in (b".\r\n", b""):
                        lines.append(line[1:] if line.startswith(b"..") else line)
                    if record.data_replies:
                        self.reply(record.data_replies.pop(0))
                        continue
                    record.mails.append(message_from_bytes(b"".join(lines), policy=policy.default))  # type: ignore[arg-type]
                    record.envelopes.append((sender, recipients))
                    self.reply("250 OK queued")
                elif upper == "QUIT":
                    self.reply("221 bye")
                    return
                elif upper in ("RSET", "NOOP"):
                    self.reply("250 OK")
                else:
                    self.reply("502 not implemented")

    with _serving(Handler) as port:
        yield port, record


@contextmanager
def _serving(
    handler: type[socketserver.BaseRequestHandler], stop: threading.Event | None = None
) -> Iterator[int]:
    """A threaded TCP server of ``handler`` on a loopback port, stopped (``stop`` set first, for
    handlers that wait on it) when the block ends."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        if stop is not None:
            stop.set()
        server.shutdown()
        server.server_close()


@contextmanager
def dripping_server(
    kind: str, every: float = 0.3, limit: int = 400
) -> Iterator[tuple[int, Recorded]]:
    """A server that never finishes: ``http`` reads the request, then sends its answer one
    byte every ``every`` seconds; ``smtp`` sends its greeting one byte at a time and never
    ends the line. Each connection stops after ``limit`` bytes (bounded by count, not time) or
    when the client goes away; yields the port and the connections it saw."""
    record = Recorded()
    stop = threading.Event()

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            record.requests.append({"kind": kind})
            if kind == "http":
                self.request.settimeout(5)
                with contextlib.suppress(OSError):
                    self.request.recv(65536)
            answer = (b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" if kind == "http"
                      else b"220 ") + b"x" * limit  # fmt: skip
            for byte in answer[:limit]:
                if stop.wait(every):
                    return
                try:
                    self.request.sendall(bytes([byte]))
                except OSError:
                    return

    with _serving(Handler, stop) as port:
        yield port, record
