"""Where a run's OpenLineage events go, and their delivery (docs/lineage.md).

:class:`OpenLineage` is the setting a run, a job (``openlineage:``) and the command line
(``--openlineage``) take. By default the OpenLineage Python client's own configuration decides
the transport (``OPENLINEAGE_URL`` and ``OPENLINEAGE_API_KEY``, ``OPENLINEAGE_CONFIG`` or an
``openlineage.yml``: HTTP, Kafka, files, any transport the client has), so secrets stay where
the client reads them. ``url_env`` and ``api_key_env`` name environment variables holding an
HTTP endpoint and its key instead, as alerts take theirs: never written in a job file or on the
command line, and the URL checked (``https``, or ``http`` on a loopback host).

Delivering an event never changes a run: each waits at most ``timeout`` seconds, and one that
cannot be delivered is a line of the run's summary (``undelivered``) naming the event, never
the endpoint.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quality_py.alerts.delivery import checked_url, secret
from quality_py.errors import ModelError
from quality_py.gate.numbers import check_fields, numeric

if TYPE_CHECKING:
    from quality_py.lineage.events import Outcome, RunIdentity

#: the install hint for a run asked to emit lineage without the client
INSTALL = "pip install 'quality_py[lineage]' (openlineage-python)"


def lineage_installed() -> bool:
    """Whether the OpenLineage Python client can be imported here.

    >>> isinstance(lineage_installed(), bool)
    True
    """
    try:
        return importlib.util.find_spec("openlineage.client") is not None
    except ModuleNotFoundError:  # no openlineage package at all
        return False


@dataclass(frozen=True)
class OpenLineage:
    """Emit a quality run's OpenLineage events (START, then COMPLETE or FAIL): give it among the
    run's ``notifiers`` (``run_quality(df, suite, notifiers=[OpenLineage(...)])``).

    ``namespace`` and ``job`` name the job (the job defaults to the suite's name, else its
    id); ``input`` names the input dataset (a path, a URI or a table; by default the
    folder of the input's files, or none when Spark knows no files); ``table_namespace`` is the
    namespace of catalog tables (for example ``databricks://<workspace host>``).

    >>> OpenLineage(namespace="sales", job="orders_daily").job
    'orders_daily'
    >>> OpenLineage(url_env="DQ_LINEAGE_URL").transport({"DQ_LINEAGE_URL": "http://127.0.0.1:5000"})
    {'type': 'http', 'url': 'http://127.0.0.1:5000'}
    """

    namespace: str = "quality_py"
    job: str | None = None
    input: str | None = None
    url_env: str | None = None
    api_key_env: str | None = None
    table_namespace: str = "spark_catalog"
    #: seconds a run waits for one event's delivery
    timeout: float = field(default=10.0, metadata=numeric(0, 300, low_open=True))

    def __post_init__(self) -> None:
        check_fields(self)
        for name in ("namespace", "job", "input", "table_namespace", "url_env", "api_key_env"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ModelError(f"openlineage {name} must be a non-empty text", code="LINEAGE")
        if self.api_key_env is not None and self.url_env is None:
            raise ModelError(
                "openlineage api_key_env is the key of the endpoint url_env names: give "
                "url_env too (or leave both to the client's own configuration)",
                code="LINEAGE",
            )

    def notify(self, event: dict[str, Any]) -> None:
        """Nothing: given among a run's notifiers, the run sends its OpenLineage events itself
        (START when it writes, COMPLETE or FAIL with what it found), not these notifications.

        >>> OpenLineage().notify({"event": "start"}) is None
        True
        """

    def transport(self, environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
        """The client's transport configuration for ``url_env`` (None: the client's own),
        from ``environ`` (default: this process's environment).

        >>> OpenLineage().transport() is None
        True
        >>> OpenLineage(url_env="U").transport({"U": "https://ol.example.com"})["url"]
        'https://ol.example.com'
        """
        if self.url_env is None:
            return None
        who = f"openlineage url_env {self.url_env}"
        url = checked_url(secret(self.url_env, environ, who="openlineage"), what=who,
                          secret_value=True)  # fmt: skip
        config: dict[str, Any] = {"type": "http", "url": url}
        if self.api_key_env is not None:
            key = secret(self.api_key_env, environ, who="openlineage")
            config["auth"] = {"type": "api_key", "apiKey": key}
        return config

    def emitter(self) -> Emitter:
        """An emitter with the client (refused, with the install hint, when it is missing).

        >>> OpenLineage().emitter().kind in ("http", "console", "noop", "file", "kafka")
        True
        """
        if not lineage_installed():
            raise ModelError(
                f"OpenLineage events were asked for, but the OpenLineage Python client is not "
                f"installed here: {INSTALL}",
                code="LINEAGE",
            )
        from openlineage.client import OpenLineageClient

        transport = self.transport()
        if transport is None:
            return Emitter(self, OpenLineageClient())
        return Emitter(self, OpenLineageClient(config={"transport": transport}))


class Emitter:
    """Sends one run's events through a client, each within the setting's timeout."""

    def __init__(self, setting: OpenLineage, client: Any) -> None:
        self.setting = setting
        self.client = client

    @property
    def kind(self) -> str:
        """The client's transport (``http``, ``kafka``, ``console``, ...)."""
        return str(getattr(self.client.transport, "kind", "unknown"))

    def send(self, state: str, identity: RunIdentity, outcome: Outcome | None = None) -> str | None:
        """Send the ``state`` event; None when delivered, else one line saying which event was
        not (never the endpoint or the client's message, which may hold it)."""
        from quality_py.lineage.events import run_event

        try:
            event = run_event(state, identity, outcome)
        except Exception as err:  # a value the client's classes refuse: say so, run on
            return f"OpenLineage {state} event not built: {type(err).__name__}"
        failure: list[BaseException] = []

        def deliver() -> None:
            try:
                self.client.emit(event)
            except BaseException as err:  # reported below, never raised into the run
                failure.append(err)

        worker = threading.Thread(target=deliver, name="quality_py-openlineage", daemon=True)
        worker.start()
        worker.join(self.setting.timeout)
        if worker.is_alive():
            return f"OpenLineage {state} event not delivered within {self.setting.timeout:g} s"
        if failure:
            return f"OpenLineage {state} event not delivered: {type(failure[0]).__name__}"
        return None


__all__ = ["INSTALL", "Emitter", "OpenLineage", "lineage_installed"]
