"""Any webhook: the run event as it is, with ``format``, ``title`` and ``link`` (the body's keys
are listed in docs/alerts.md). JSON is its own escaping: the texts are carried as they are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality_py.alerts.escaping import JSON, Escaped
from quality_py.alerts.message import WEBHOOK_FORMAT
from quality_py.alerts.senders import HttpAlert


def webhook_body(event: dict[str, Any], views: Mapping[str, Escaped]) -> dict[str, Any]:
    """The generic webhook's JSON body: the run event as it is, with ``format``, ``title``
    and ``link``.

    >>> from quality_py.alerts.escaping import views
    >>> from quality_py.alerts.message import alert_of
    >>> body = webhook_body({"event": "failure", "run_id": "r1"},
    ...                     views(alert_of({"event": "failure"}), (JSON,)))
    >>> body["format"], body["event"]
    ('quality_py.alert/1', 'failure')
    """
    alert = views["json"].alert
    return {**event, "format": WEBHOOK_FORMAT, "title": alert.title, "link": alert.link}


class WebhookAlert(HttpAlert):
    """Any webhook: the run event with ``format``, ``title`` and ``link`` (docs/alerts.md).

    >>> WebhookAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://example.com/hook"})
    WebhookAlert(url_env='QP_DOC_HOOK')
    """

    service = "webhook"
    escapers = (JSON,)

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """The JSON body (the event with its title and link).

        >>> env = {"QP_DOC_HOOK": "https://example.com/hook"}
        >>> WebhookAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"})["format"]
        'quality_py.alert/1'
        """
        return webhook_body(event, self.views(event))


__all__ = ["WebhookAlert", "webhook_body"]
