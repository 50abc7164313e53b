"""The table of alert channels: a kind, what its target is, and its sender (which names its
escapers and renderer). A new channel is one module and one row here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from quality_py.alerts.mail import EmailAlert
from quality_py.alerts.pagerduty import PagerDutyAlert
from quality_py.alerts.senders import Sender
from quality_py.alerts.slack import SlackAlert
from quality_py.alerts.teams import TeamsAlert
from quality_py.alerts.webhook import WebhookAlert
from quality_py.errors import ModelError


@dataclass(frozen=True)
class Channel:
    """One kind of alert: its ``KIND=TARGET`` kind, what the target is, and how a sender is
    made of the target."""

    kind: str
    target: str
    sender: Callable[..., Sender]


CHANNELS: tuple[Channel, ...] = (
    Channel("slack", "the environment variable holding the Slack webhook URL", SlackAlert),
    Channel("teams", "the environment variable holding the Teams webhook URL", TeamsAlert),
    Channel("webhook", "the environment variable holding the webhook URL", WebhookAlert),
    Channel(
        "pagerduty",
        "the environment variable holding the PagerDuty Events v2 routing (integration) key",
        PagerDutyAlert,
    ),
    Channel(
        "email",
        "the recipients, comma-separated (SMTP settings: QP_SMTP_* variables)",
        lambda target, **kw: EmailAlert(target.split(","), **kw),
    ),
)
#: ``--alert`` kinds and what their target is
ALERT_KINDS = {c.kind: c.target for c in CHANNELS}
_BY_KIND = {c.kind: c for c in CHANNELS}


def alert_kind(spec: str) -> tuple[str, str]:
    """The kind and target of a ``KIND=TARGET`` alert setting, checked without reading the
    environment (a job file is checked where its secrets are not set); e-mail recipients are
    checked here, each one address.

    >>> alert_kind("email=ops@example.com,dq@example.com")
    ('email', 'ops@example.com,dq@example.com')
    """
    from quality_py.alerts.delivery import checked_address

    if not isinstance(spec, str):
        raise ModelError(f"an alert is KIND=TARGET text, not a {type(spec).__name__}", code="ALERT")
    kind, sep, target = spec.partition("=")
    kind, target = kind.strip().lower(), target.strip()
    if not sep or kind not in _BY_KIND or not target:
        choices = "; ".join(f"{k}=<{v}>" for k, v in ALERT_KINDS.items())
        raise ModelError(f"alert {spec!r} is not KIND=TARGET: {choices}", code="ALERT")
    if kind == "email":
        for address in target.split(","):
            checked_address(address, what="email alert recipient")
    return kind, target


def alert_sender(
    spec: str, report_url: str | None = None, environ: Mapping[str, str] | None = None,
    **settings: Any,
) -> Sender:  # fmt: skip
    """The sender of one ``KIND=TARGET`` alert setting (the CLI's ``--alert``, a job file's
    ``alerts``).

    >>> alert_sender("slack=QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://hooks.example.com/x"})
    SlackAlert(url_env='QP_DOC_HOOK')
    """
    kind, target = alert_kind(spec)
    return _BY_KIND[kind].sender(target, report_url=report_url, environ=environ, **settings)


__all__ = ["ALERT_KINDS", "CHANNELS", "Channel", "alert_kind", "alert_sender"]
