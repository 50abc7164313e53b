"""Alerts to the places teams read: Slack, Microsoft Teams, email, and any webhook.

Each sender is a notifier (``notify(event)``) that renders the event with
:mod:`quality_py.actions.alert_text` and delivers it with retries: a connection error, a
timeout, HTTP 429 or 5xx (SMTP: a 4xx reply or a dropped connection) is tried again after
``backoff`` seconds, doubled each time, up to ``attempts`` tries; anything else is not retried.
A delivery that still fails raises to :func:`~quality_py.actions.notify.notify_all`, which logs
it and lets the run go on: an alert never fails a run or hides its result.

Secrets come from the environment: a sender is given the *name* of the variable that holds a
webhook URL or an SMTP password, and neither its ``repr``, its log lines nor any output holds
the value.
"""

from __future__ import annotations

import json
import logging
import os
import smtplib
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from email.message import EmailMessage
from typing import Any

from quality_py.actions.alert_text import (
    alert_of,
    email_parts,
    slack_payload,
    teams_payload,
    webhook_body,
)
from quality_py.errors import ModelError
from quality_py.gate.numbers import number

log = logging.getLogger("quality_py.actions")
#: When an alert is sent: ``problems`` (a failed run, or one with failing rules, failed checks
#: or alerts), ``failure`` (failed runs only) or ``always`` (every finished run)
WHEN = ("problems", "failure", "always")


def wanted(event: Mapping[str, Any], when: str) -> bool:
    """Whether an alert sender sends ``event`` (``start`` and the separate ``alert`` event are
    never sent: the finished run's event holds its alerts).

    >>> wanted({"event": "success", "failing_rules": []}, "problems")
    False
    >>> wanted({"event": "success", "failing_rules": [{"rule": "1.1", "rows": 2}]}, "problems")
    True
    """
    kind = event.get("event")
    if kind == "failure":
        return True
    if kind != "success" or when == "failure":
        return False
    return when == "always" or bool(
        event.get("failing_rules") or event.get("failed_checks") or event.get("alerts")
    )


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


def with_retries(send: Callable[[], None], attempts: int, backoff: float, what: str) -> None:
    """Call ``send`` until it succeeds; a retryable failure waits ``backoff`` seconds, doubled
    after each try. The last failure is raised.

    >>> calls = []
    >>> def flaky():
    ...     calls.append(1)
    ...     if len(calls) < 2:
    ...         raise ConnectionResetError("reset")
    >>> with_retries(flaky, 3, 0.0, "doc"); len(calls)
    2
    """
    for attempt in range(1, attempts + 1):
        try:
            send()
            return
        except Exception as err:
            if attempt == attempts or not _retryable(err):
                tries = f"{attempt} tr{'y' if attempt == 1 else 'ies'}"
                raise AlertNotDelivered(
                    f"{what} not delivered after {tries}: {_why(err)}"
                ) from None
            wait = backoff * 2 ** (attempt - 1)
            if isinstance(err, urllib.error.HTTPError) and err.code == 429:
                wait = max(wait, min(_retry_after(err), 60.0))
            log.warning("%s: try %d of %d failed (%s); again in %.1f s", what, attempt,
                        attempts, _why(err), wait)  # fmt: skip
            time.sleep(wait)


class AlertNotDelivered(Exception):
    """An alert that could not be delivered (the run logs it and goes on); its message never
    holds the webhook URL."""


def _retryable(err: Exception) -> bool:
    if isinstance(err, urllib.error.HTTPError):
        return err.code == 429 or err.code >= 500
    if isinstance(err, smtplib.SMTPResponseException):
        return 400 <= err.smtp_code < 500
    return isinstance(err, urllib.error.URLError | smtplib.SMTPServerDisconnected | OSError)


def _retry_after(err: urllib.error.HTTPError) -> float:
    try:
        return float(err.headers.get("Retry-After", "0"))
    except (TypeError, ValueError):
        return 0.0


def _why(err: Exception) -> str:
    """An error in words that never holds the URL (a webhook's URL is its secret)."""
    if isinstance(err, urllib.error.HTTPError):
        return f"HTTP {err.code}"
    if isinstance(err, urllib.error.URLError):
        return f"cannot connect: {type(err.reason).__name__}"
    return type(err).__name__


class _Delivery:
    """What every alert sender is given: the report's URL, when it sends, and how it retries."""

    service = "webhook"
    report_url: str | None
    when: str
    timeout: float
    attempts: int
    backoff: float

    def _delivery(
        self, report_url: str | None, when: str, timeout: float, attempts: int, backoff: float
    ) -> None:
        who = f"{self.service} alert"
        if when not in WHEN:
            raise ModelError(f"{who}: when is one of {', '.join(WHEN)}, not {when!r}", code="ALERT")
        self.report_url, self.when = report_url, when
        self.timeout = number(timeout, name=f"{who} timeout", low=0, low_open=True, high=600)
        self.attempts = number(attempts, name=f"{who} attempts", low=1, high=10, integer=True)
        self.backoff = number(backoff, name=f"{who} backoff", low=0, high=60)


class HttpAlert(_Delivery):
    """Posts an alert as JSON to a webhook URL taken from the environment; the base of
    :class:`SlackAlert`, :class:`TeamsAlert` and :class:`WebhookAlert`."""

    def __init__(
        self,
        url_env: str,
        *,
        report_url: str | None = None,
        when: str = "problems",
        timeout: float = 10.0,
        attempts: int = 3,
        backoff: float = 1.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._delivery(report_url, when, timeout, attempts, backoff)
        self._url = secret(url_env, environ, who=f"{self.service} alert")
        if not self._url.startswith(("http://", "https://")):
            raise ModelError(
                f"{self.service} alert: {url_env} does not hold an http(s) URL", code="ALERT"
            )
        self.url_env = url_env

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url_env={self.url_env!r})"

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """The JSON this service takes (the generic webhook's: the event with its title).

        >>> env = {"QP_DOC_HOOK": "https://example.com/hook"}
        >>> WebhookAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"})["format"]
        'quality_py.alert/1'
        """
        return webhook_body(event, alert_of(event, self.report_url))

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's alert when :func:`wanted`; failures raise after the retries.

        >>> env = {"QP_DOC_HOOK": "http://127.0.0.1:9/never"}
        >>> SlackAlert("QP_DOC_HOOK", environ=env).notify({"event": "start"})  # not sent
        """
        if not wanted(event, self.when):
            return
        data = json.dumps(self.body(event), default=str).encode("utf-8")
        headers = {"Content-Type": "application/json"}

        def send() -> None:
            request = urllib.request.Request(self._url, data, headers, method="POST")
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()

        with_retries(send, self.attempts, self.backoff, f"{self.service} alert")


class SlackAlert(HttpAlert):
    """A Slack incoming webhook: Block Kit blocks with the failing rules and a report button.

    >>> SlackAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://hooks.slack.com/services/x"})
    SlackAlert(url_env='QP_DOC_HOOK')
    """

    service = "slack"

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """Slack's message JSON (``text`` and ``blocks``).

        >>> env = {"QP_DOC_HOOK": "https://hooks.slack.com/services/x"}
        >>> sorted(SlackAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"}))
        ['blocks', 'text']
        """
        return slack_payload(alert_of(event, self.report_url))


class TeamsAlert(HttpAlert):
    """A Microsoft Teams webhook (a Workflows or incoming webhook URL): one Adaptive Card.

    >>> TeamsAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://example.com/teams"})
    TeamsAlert(url_env='QP_DOC_HOOK')
    """

    service = "teams"

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """Teams' message JSON (an Adaptive Card attachment).

        >>> env = {"QP_DOC_HOOK": "https://example.com/teams"}
        >>> TeamsAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"})["type"]
        'message'
        """
        return teams_payload(alert_of(event, self.report_url))


class WebhookAlert(HttpAlert):
    """Any webhook: the run event with ``format``, ``title`` and ``link`` (docs/alerts.md).

    >>> WebhookAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://example.com/hook"})
    WebhookAlert(url_env='QP_DOC_HOOK')
    """


class EmailAlert(_Delivery):
    """An email (plain text and HTML) through an SMTP server; its settings come from the
    environment: ``QP_SMTP_HOST``, ``QP_SMTP_PORT`` (587), ``QP_SMTP_FROM``, ``QP_SMTP_USER``
    and ``QP_SMTP_PASSWORD`` (both or neither), ``QP_SMTP_SECURITY`` (``starttls``, ``ssl`` or
    ``none``; ``starttls`` by default).

    >>> env = {"QP_SMTP_HOST": "smtp.example.com", "QP_SMTP_FROM": "dq@example.com"}
    >>> EmailAlert(["ops@example.com"], environ=env)
    EmailAlert(to=['ops@example.com'], host='smtp.example.com')
    """

    service = "email"

    def __init__(
        self,
        to: Sequence[str],
        *,
        report_url: str | None = None,
        when: str = "problems",
        timeout: float = 10.0,
        attempts: int = 3,
        backoff: float = 1.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        recipients = [t.strip() for t in to if t.strip()]
        if not recipients or any("@" not in t for t in recipients):
            raise ModelError(
                f"email alert: give recipients as addresses, not {list(to)!r}", code="ALERT"
            )
        self._delivery(report_url, when, timeout, attempts, backoff)
        self.to = recipients
        self.host = secret("QP_SMTP_HOST", env, who="email alert")
        self.sender = secret("QP_SMTP_FROM", env, who="email alert")
        port = env.get("QP_SMTP_PORT", "587")
        self.port = number(port, name="QP_SMTP_PORT", low=1, high=65535, integer=True)
        self.security = env.get("QP_SMTP_SECURITY", "starttls")
        if self.security not in ("starttls", "ssl", "none"):
            raise ModelError("email alert: QP_SMTP_SECURITY is starttls, ssl or none", code="ALERT")
        self.user = env.get("QP_SMTP_USER") or None
        self._password = env.get("QP_SMTP_PASSWORD") or None
        if (self.user is None) != (self._password is None):
            raise ModelError(
                "email alert: set both QP_SMTP_USER and QP_SMTP_PASSWORD, or neither", code="ALERT"
            )

    def __repr__(self) -> str:
        return f"EmailAlert(to={self.to!r}, host={self.host!r})"

    def message(self, event: dict[str, Any]) -> EmailMessage:
        """The email of ``event``: a plain-text part and an HTML alternative.

        >>> env = {"QP_SMTP_HOST": "smtp.example.com", "QP_SMTP_FROM": "dq@example.com"}
        >>> msg = EmailAlert(["ops@example.com"], environ=env).message({"event": "failure"})
        >>> msg["To"], msg.get_content_type()
        ('ops@example.com', 'multipart/alternative')
        """
        subject, text, page = email_parts(alert_of(event, self.report_url))
        msg = EmailMessage()
        msg["Subject"], msg["From"], msg["To"] = subject, self.sender, ", ".join(self.to)
        msg.set_content(text)
        msg.add_alternative(page, subtype="html")
        return msg

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's email when :func:`wanted`; failures raise after the retries.

        >>> env = {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_FROM": "dq@example.com"}
        >>> EmailAlert(["ops@example.com"], environ=env).notify({"event": "start"})  # not sent
        """
        if not wanted(event, self.when):
            return
        msg = self.message(event)

        def send() -> None:
            kind = smtplib.SMTP_SSL if self.security == "ssl" else smtplib.SMTP
            with kind(self.host, self.port, timeout=self.timeout) as smtp:
                if self.security == "starttls":
                    smtp.starttls()
                if self.user is not None and self._password is not None:
                    smtp.login(self.user, self._password)
                smtp.send_message(msg)

        with_retries(send, self.attempts, self.backoff, "email alert")


#: ``--alert`` kinds and what their target is
ALERT_KINDS = {
    "slack": "the environment variable holding the Slack webhook URL",
    "teams": "the environment variable holding the Teams webhook URL",
    "webhook": "the environment variable holding the webhook URL",
    "email": "the recipients, comma-separated (SMTP settings: QP_SMTP_* variables)",
}


def alert_kind(spec: str) -> tuple[str, str]:
    """The kind and target of a ``KIND=TARGET`` alert setting, checked without reading the
    environment (a job file is checked where its secrets are not set).

    >>> alert_kind("email=ops@example.com,dq@example.com")
    ('email', 'ops@example.com,dq@example.com')
    """
    kind, sep, target = spec.partition("=")
    kind, target = kind.strip().lower(), target.strip()
    if not sep or kind not in ALERT_KINDS or not target:
        choices = "; ".join(f"{k}=<{v}>" for k, v in ALERT_KINDS.items())
        raise ModelError(f"alert {spec!r} is not KIND=TARGET: {choices}", code="ALERT")
    return kind, target


def alert_sender(
    spec: str, report_url: str | None = None, environ: Mapping[str, str] | None = None
) -> HttpAlert | EmailAlert:
    """The sender of one ``KIND=TARGET`` alert setting (the CLI's ``--alert``, a job file's
    ``alerts``).

    >>> alert_sender("slack=QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://hooks.example.com/x"})
    SlackAlert(url_env='QP_DOC_HOOK')
    """
    kind, target = alert_kind(spec)
    if kind == "email":
        return EmailAlert(target.split(","), report_url=report_url, environ=environ)
    sender = {"slack": SlackAlert, "teams": TeamsAlert, "webhook": WebhookAlert}[kind]
    return sender(target, report_url=report_url, environ=environ)


__all__ = [
    "ALERT_KINDS",
    "WHEN",
    "AlertNotDelivered",
    "EmailAlert",
    "HttpAlert",
    "SlackAlert",
    "TeamsAlert",
    "WebhookAlert",
    "alert_kind",
    "alert_sender",
    "wanted",
    "with_retries",
]
