"""Alerts to the places teams read: Slack, Microsoft Teams, e-mail, PagerDuty and any webhook.

One :class:`~quality_py.alerts.message.Alert` per run event, rendered by each channel only
through its escapers (:mod:`quality_py.alerts.escaping`), delivered within one deadline
(:mod:`quality_py.alerts.delivery`); the channels are one table
(:data:`~quality_py.alerts.channels.CHANNELS`). See docs/alerts.md.
"""

from __future__ import annotations

from quality_py.alerts.channels import ALERT_KINDS, CHANNELS, alert_kind, alert_sender
from quality_py.alerts.delivery import WHEN, AlertNotDelivered
from quality_py.alerts.mail import EmailAlert
from quality_py.alerts.message import Alert, alert_of
from quality_py.alerts.pagerduty import PagerDutyAlert
from quality_py.alerts.senders import HttpAlert, wanted
from quality_py.alerts.slack import SlackAlert
from quality_py.alerts.teams import TeamsAlert
from quality_py.alerts.webhook import WebhookAlert

__all__ = [
    "ALERT_KINDS",
    "CHANNELS",
    "WHEN",
    "Alert",
    "AlertNotDelivered",
    "EmailAlert",
    "HttpAlert",
    "PagerDutyAlert",
    "SlackAlert",
    "TeamsAlert",
    "WebhookAlert",
    "alert_kind",
    "alert_of",
    "alert_sender",
    "wanted",
]
