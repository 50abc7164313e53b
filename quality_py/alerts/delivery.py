"""How an alert is delivered: one bounded operation with retries, and the settings it is given.

A delivery has **one wall-clock deadline** (``timeout`` seconds) over everything it does:
connecting, every read and write, every attempt and every wait between attempts. The sender
enforces it itself: each attempt runs in a worker thread that registers its connection, and
when the deadline passes the connection is shut down from the caller's thread, so a server that
sends one byte every few seconds, or never finishes its greeting, cannot hold the run. A
retryable failure (a connection error, a timeout, HTTP 429 or 5xx, an SMTP 4xx reply or a
dropped connection) is tried again after ``backoff`` seconds, doubled each time, while the wait
fits before the deadline; anything else is final. A redirect (3xx) is not followed: the body
would be re-sent elsewhere, or lost, so it is "not delivered".

Every setting is checked once, where it is read: the URL's scheme (``https``; ``http`` only on
a loopback host), e-mail addresses (one address each, no line break), the numbers through
:mod:`quality_py.gate.numbers`. Secrets come from the environment by the *name* of their
variable and appear in no message, log line or ``repr``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from quality_py.errors import ModelError
from quality_py.gate.numbers import number

#: When an alert is sent: ``problems`` (a failed run, or one with failing rules, failed checks
#: or alerts), ``failure`` (failed runs only) or ``always`` (every finished run)
WHEN = ("problems", "failure", "always", "change")
#: The most of a server's answer that is read (an answer is only looked at for its status)
MAX_ANSWER_BYTES = 64 * 1024


class AlertNotDelivered(Exception):
    """An alert that could not be delivered (the run keeps going and reports it); its message
    never holds the webhook URL."""


class DeadlinePassed(Exception):
    """A delivery's deadline passed while it was still under way."""


def secret(name: str, environ: Mapping[str, str] | None = None, *, who: str) -> str:
    """The value of environment variable ``name`` (refused, naming it, when unset or empty).

    >>> secret("QP_DOC_HOOK", {"QP_DOC_HOOK": "https://hooks.example.com/x"}, who="slack")
    'https://hooks.example.com/x'
    """
    value = (os.environ if environ is None else environ).get(name, "")
    if not value:
        raise ModelError(
            f"{who}: environment variable {name} is not set (it holds the secret, so it is "
            "never written in a job file or on the command line)",
            code="ALERT",
        )
    return value


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine (``localhost`` or a loopback address).

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("example.com")
    (True, True, False)
    """
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: Characters a URL we send to or show may not hold: spaces, controls, quotes and the
#: characters markup gives a meaning (so a checked URL is safe verbatim in HTML, JSON and chat)
_URL_BAD = re.compile(r"[\s\x00-\x1f\x7f<>\"'`\\|{}^&]")


def checked_url(url: str, *, what: str, secret_value: bool = False) -> str:
    """``url`` when it is an ``https`` URL (``http`` on a loopback host) with a host and no
    character that markup or a header would read; refused in one sentence otherwise (a secret
    URL is never quoted).

    >>> checked_url("https://dq.example.com/site/", what="report_url")
    'https://dq.example.com/site/'
    >>> checked_url("javascript:alert(1)", what="report_url")
    Traceback (most recent call last):
    ...
    quality_py.errors.ModelError: [ALERT] report_url 'javascript:alert(1)' is not usable: ...
    """
    shown = "" if secret_value else f" {url!r}"
    why = None
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 -- a port that is not a number raises here
    except ValueError as err:
        why = f"it is not a URL ({err})"
    else:
        if _URL_BAD.search(url):
            bad = _URL_BAD.search(url).group()  # type: ignore[union-attr]
            why = f"it holds {bad!r} (spaces, controls, quotes, '&' and markup are not taken)"
        elif parts.scheme == "http" and not is_loopback(host):
            why = "plain http is taken on a loopback host only; use https"
        elif parts.scheme not in ("http", "https"):
            why = f"its scheme is {parts.scheme or 'missing'!r}; an alert takes https only"
        elif not host:
            why = "it names no host"
        elif parts.username is not None or parts.password is not None:
            why = "it holds a user name or password"
    if why is None:
        return url
    raise ModelError(f"{what}{shown} is not usable: {why}", code="ALERT")


#: One e-mail address: a local part and a domain, no spaces, brackets, commas or line breaks
_ADDRESS = re.compile(r"[^\s@<>,;:\"()\[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


def checked_address(address: str, *, what: str) -> str:
    """One e-mail address, or refused naming it (a line break, a second address, a display
    name: an alert sends to plain addresses only).

    >>> checked_address(" ops@example.com ", what="email alert")
    'ops@example.com'
    """
    text = address.strip()
    if len(text) > 254 or not _ADDRESS.fullmatch(text):
        raise ModelError(
            f"{what}: {address!r} is not one e-mail address (name@domain, with no space, line "
            "break, comma or display name)",
            code="ALERT",
        )
    return text


def _every(who: str, when: str, every: object) -> timedelta | None:
    """``every`` as a duration; only ``when="change"`` takes one."""
    if every is None:
        return None
    if when != "change":
        raise ModelError(f"{who}: every applies to when='change', not {when!r}", code="ALERT")
    from quality_py.errors import QualityError
    from quality_py.model.times import parse_duration

    try:
        return parse_duration(every)
    except QualityError as err:
        raise ModelError(f"{who}: every: {err.message}", code="ALERT") from None


@dataclass(frozen=True)
class Delivery:
    """When an alert is sent and how its delivery is bounded: ``timeout`` is the deadline of the
    whole delivery, every attempt and wait included; ``attempts`` and ``backoff`` the retries.

    >>> Delivery.checked("slack", "problems", 30, 3, 1).timeout
    30.0
    """

    when: str = "problems"
    timeout: float = 30.0
    attempts: int = 3
    backoff: float = 1.0
    #: with ``when="change"``: a lasting problem is alerted again once this has passed
    every: timedelta | None = None

    @classmethod
    def checked(
        cls, service: str, when: str, timeout: object, attempts: object, backoff: object,
        every: object = None,
    ) -> Delivery:  # fmt: skip
        """The settings, each checked where it is read (named in the error).

        >>> Delivery.checked("slack", "change", 30, 3, 1, "1 day").every
        datetime.timedelta(days=1)
        """
        who = f"{service} alert"
        if when not in WHEN:
            raise ModelError(f"{who}: when is one of {', '.join(WHEN)}, not {when!r}", code="ALERT")
        return cls(
            when,
            float(number(timeout, name=f"{who} timeout", low=0, low_open=True, high=600)),
            int(number(attempts, name=f"{who} attempts", low=1, high=10, integer=True)),
            float(number(backoff, name=f"{who} backoff", low=0, high=60)),
            _every(who, when, every),
        )

    def deliver(self, attempt: Callable[[Connections, float], None], what: str) -> None:
        """Run ``attempt`` until it succeeds, within the deadline; the last failure raises
        :class:`AlertNotDelivered` (``attempt`` gets the connections to register and the
        seconds it has left).

        >>> Delivery(timeout=1.0).deliver(lambda conns, left: None, "doc alert")
        """
        deadline = time.monotonic() + self.timeout
        tries = 0
        while True:
            tries += 1
            err = _bounded(attempt, deadline)
            if err is None:
                return
            left = deadline - time.monotonic()
            wait = self.backoff * 2 ** (tries - 1)
            hint = getattr(err, "retry_after", None)
            if hint is not None:
                wait = max(wait, min(float(hint), 60.0))
            if tries >= self.attempts or not retryable(err) or wait >= left:
                times = f"{tries} tr{'y' if tries == 1 else 'ies'}"
                limit = f" (its deadline is {self.timeout:g} s)"
                raise AlertNotDelivered(
                    f"{what} not delivered after {times}: {why(err)}"
                    + (limit if isinstance(err, DeadlinePassed) or wait >= left else "")
                ) from None
            time.sleep(wait)


class Connections:
    """The sockets an attempt has open, so the caller can shut them when the deadline passes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socks: list[object] = []
        self.closed = False

    def add(self, holder: object) -> None:
        """Register an object with a ``sock`` attribute (an HTTP or SMTP connection)."""
        with self._lock:
            self._socks.append(holder)
            if self.closed:
                _shut(holder)

    def close_all(self) -> None:
        """Shut every registered connection (a blocked read or write then fails at once)."""
        with self._lock:
            self.closed = True
            for holder in self._socks:
                _shut(holder)


def _shut(holder: object) -> None:
    sock = getattr(holder, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()


def _bounded(
    attempt: Callable[[Connections, float], None], deadline: float
) -> BaseException | None:
    """One attempt in a worker thread, given until ``deadline``: None when it succeeded, else
    its error (:class:`DeadlinePassed` when the deadline cut it)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return DeadlinePassed()
    conns = Connections()
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            attempt(conns, left)
            outcome.append(None)
        except BaseException as err:  # handed to the caller's thread
            outcome.append(err)

    worker = threading.Thread(target=work, name="quality_py-alert", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        conns.close_all()
        worker.join(1.0)  # the shut socket ends the worker; it is a daemon if it does not
        return DeadlinePassed()
    return outcome[0] if outcome else DeadlinePassed()


class HttpStatus(Exception):
    """A server's HTTP answer other than 2xx."""

    def __init__(self, status: int, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def retryable(err: BaseException) -> bool:
    """Whether a failed attempt is worth another (a passing fault, not a wrong request).

    >>> retryable(HttpStatus(503)), retryable(HttpStatus(400)), retryable(HttpStatus(302))
    (True, False, False)
    """
    import smtplib

    if isinstance(err, HttpStatus):
        return err.status == 429 or err.status >= 500
    if isinstance(err, smtplib.SMTPResponseException):
        return 400 <= err.smtp_code < 500
    if isinstance(err, DeadlinePassed):
        return False
    return isinstance(err, smtplib.SMTPServerDisconnected | OSError)


def why(err: BaseException) -> str:
    """A failure in words that never holds the URL (a webhook's URL is its secret).

    >>> why(HttpStatus(302)), why(DeadlinePassed())
    ('HTTP 302 (a redirect is not followed)', 'no answer before the deadline')
    """
    if isinstance(err, HttpStatus):
        return f"HTTP {err.status}" + (
            " (a redirect is not followed)" if 300 <= err.status < 400 else ""
        )
    if isinstance(err, DeadlinePassed | TimeoutError | socket.timeout):
        return "no answer before the deadline"
    import smtplib

    if isinstance(err, smtplib.SMTPResponseException):
        return f"SMTP {err.smtp_code}"
    if isinstance(err, ConnectionRefusedError):
        return "cannot connect: connection refused"
    if isinstance(err, OSError):
        return f"cannot connect: {type(err).__name__}"
    return type(err).__name__


def post_json(
    url: str, body: bytes, conns: Connections, left: float,
    headers: Mapping[str, str] | None = None,
) -> None:  # fmt: skip
    """POST ``body`` to ``url`` as JSON over one connection (redirects not followed); a
    non-2xx answer raises :class:`HttpStatus`."""
    import http.client

    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = kind(parts.hostname or "", parts.port, timeout=left)
    conns.add(_Later(conn))
    try:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {**(headers or {}), "Content-Type": "application/json"}
        sent["Content-Length"] = str(len(body))
        conn.request("POST", target, body, sent)
        answer = conn.getresponse()
        answer.read(MAX_ANSWER_BYTES)
        if not 200 <= answer.status < 300:
            hint = answer.getheader("Retry-After") if answer.status == 429 else None
            raise HttpStatus(answer.status, _seconds(hint))
    finally:
        conn.close()


class _Later:
    """A connection whose socket exists only once it connects: shut whatever it has then."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    @property
    def sock(self) -> Any:
        return getattr(self._conn, "sock", None)


def _seconds(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value < 1e6 else None


__all__ = [
    "WHEN",
    "AlertNotDelivered",
    "Connections",
    "DeadlinePassed",
    "Delivery",
    "HttpStatus",
    "checked_address",
    "checked_url",
    "is_loopback",
    "post_json",
    "retryable",
    "secret",
    "why",
]
