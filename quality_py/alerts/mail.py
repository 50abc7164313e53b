"""E-mail: a plain-text and an HTML part through an SMTP server, each text escaped for where it
lands (the HTML part, the headers, the text part)."""

from __future__ import annotations

import os
import smtplib
from collections.abc import Mapping, Sequence
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from quality_py.alerts.delivery import Connections, checked_address, secret
from quality_py.alerts.escaping import HEADER, HTML, PLAIN, Escaped
from quality_py.alerts.senders import Sender
from quality_py.errors import ModelError
from quality_py.gate.numbers import number
from quality_py.model.glossary import percent


def email_parts(views: Mapping[str, Escaped]) -> tuple[str, str, str]:
    """An email's subject (a header: one line), plain text and HTML (every value escaped).

    >>> from quality_py.alerts.escaping import views
    >>> from quality_py.alerts.message import alert_of
    >>> v = views(alert_of({"event": "failure", "run_id": "<r1>"}), (HEADER, PLAIN, HTML))
    >>> subject, text, page = email_parts(v)
    >>> subject, "&lt;r1&gt;" in page
    ('Quality run <r1> of suite ?: failure, nothing published', True)
    """
    subject = views["header"].alert.title[:250]
    text = "\n".join(views["plain"].alert.lines) + "\n"
    alert = views["html"].alert
    rows = "".join(f"<tr><th align='left'>{k}</th><td>{v}</td></tr>" for k, v in alert.facts)
    rules = ""
    for r in alert.rules:
        share = "" if r.share is None else f" ({percent(r.share)})"
        values = "".join(f"<li>{v}: {n:,} rows</li>" for v, n in r.top_values)
        rules += f"<li><b>{r.label}</b> <code>{r.rule}</code>: {r.rows:,} rows{share}"
        rules += f"<ul>{values}</ul></li>" if values else "</li>"
    if alert.more_rules:
        rules += f"<li>and {alert.more_rules} more rules</li>"
    notes = "".join(f"<p>{p}</p>" for p in alert.problems)
    if alert.error:
        notes += f"<p><b>Error:</b> {alert.error}</p>"
    link = f'<p><a href="{alert.link}">Open the report</a></p>' if alert.link else ""
    page = (
        f"<html><body><h2>{alert.title}</h2><table>{rows}</table>"
        + (f"<h3>Failing rules</h3><ul>{rules}</ul>" if rules else "")
        + f"{notes}{link}</body></html>"
    )
    return subject, text, page


class EmailAlert(Sender):
    """An email (plain text and HTML) through an SMTP server; its settings come from the
    environment: ``QP_SMTP_HOST``, ``QP_SMTP_PORT`` (587), ``QP_SMTP_FROM``, ``QP_SMTP_USER``
    and ``QP_SMTP_PASSWORD`` (both or neither), ``QP_SMTP_SECURITY`` (``starttls``, ``ssl`` or
    ``none``; ``starttls`` by default). Every recipient and the sender are one plain address
    each, checked here.

    >>> env = {"QP_SMTP_HOST": "smtp.example.com", "QP_SMTP_FROM": "dq@example.com"}
    >>> EmailAlert(["ops@example.com"], environ=env)
    EmailAlert(to=['ops@example.com'], host='smtp.example.com')
    """

    service = "email"
    escapers = (HEADER, PLAIN, HTML)

    def __init__(
        self,
        to: Sequence[str],
        *,
        report_url: str | None = None,
        when: str = "problems",
        timeout: float = 30.0,
        attempts: int = 3,
        backoff: float = 1.0,
        environ: Mapping[str, str] | None = None,
        every: str | timedelta | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        if isinstance(to, str):
            to = to.split(",")
        recipients = [str(t) for t in to if str(t).strip()]
        if not recipients:
            raise ModelError(
                f"email alert: give recipients as addresses, not {list(to)!r}", code="ALERT"
            )
        self._settings(report_url, when, timeout, attempts, backoff, every)
        self.to = [checked_address(t, what="email alert recipient") for t in recipients]
        self.host = secret("QP_SMTP_HOST", env, who="email alert")
        if any(c.isspace() or not c.isprintable() for c in self.host):
            raise ModelError("email alert: QP_SMTP_HOST is not a host name", code="ALERT")
        self.sender = checked_address(
            secret("QP_SMTP_FROM", env, who="email alert"), what="email alert QP_SMTP_FROM"
        )
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
        subject, text, page = email_parts(self.views(event))
        msg = EmailMessage()
        msg["Subject"], msg["From"], msg["To"] = subject, self.sender, ", ".join(self.to)
        msg.set_content(text)
        msg.add_alternative(page, subtype="html")
        return msg

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's email when :func:`wanted`; a failure raises once the retries or
        the deadline are spent.

        >>> env = {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_FROM": "dq@example.com"}
        >>> EmailAlert(["ops@example.com"], environ=env).notify({"event": "start"})  # not sent
        """
        if not self.wants(event):
            return
        msg = self.message(event)

        def attempt(conns: Connections, left: float) -> None:
            kind = smtplib.SMTP_SSL if self.security == "ssl" else smtplib.SMTP
            smtp = kind(timeout=left)  # connected below, once the deadline can shut it
            conns.add(smtp)
            try:
                smtp.connect(self.host, self.port)
                smtp.ehlo_or_helo_if_needed()
                if self.security == "starttls":
                    smtp.starttls()
                if self.user is not None and self._password is not None:
                    smtp.login(self.user, self._password)
                smtp.send_message(msg)
                smtp.quit()
            finally:
                smtp.close()

        self.delivery.deliver(attempt, "email alert")


__all__ = ["EmailAlert", "email_parts"]
