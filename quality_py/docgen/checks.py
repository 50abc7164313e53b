"""The checks a ruleset file holds besides its rules, as the generated documentation shows them:
dataset checks (one entry per constraint), SQL checks, anomaly checks and error rates, each with
its level or action and, given the report site's address, a link to its page there.

Read by attribute (the ruleset's :class:`~quality_py.dataset.Check`,
:class:`~quality_py.actions.sql_checks.SqlCheck`, anomaly checks and error rates), so the
documentation needs none of the units that run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quality_py.report.site_model import check_path, dataset_slug, rule_path


@dataclass(frozen=True)
class DocCheck:
    """One documented check."""

    kind: str  # "dataset check", "SQL check", "anomaly check", "error rate"
    name: str
    detail: str
    level: str
    #: the key of its page in the report site (None: it has none, e.g. error rates)
    key: str | None = None


@dataclass(frozen=True)
class SiteLinks:
    """Where the report site of the suite's runs is published: its address and the dataset
    (the suite id and the tags that tell its datasets apart, as ``report --dataset-tag`` has
    them).

    >>> SiteLinks("https://dq.example.com/orders", "1").rule("101")
    'https://dq.example.com/orders/rules/rule.dataset~2e1.101.html'
    """

    base: str
    suite_id: str
    tags: tuple[tuple[str, str], ...] = ()

    def _url(self, path: str) -> str:
        return f"{self.base.rstrip('/')}/{path}"

    def rule(self, rule_id: str) -> str:
        """The address of a rule's page (``rule_id`` without version)."""
        return self._url(rule_path(dataset_slug(self.suite_id, self.tags), rule_id))

    def check(self, key: str) -> str:
        """The address of a check's page."""
        return self._url(check_path(dataset_slug(self.suite_id, self.tags), key))


def doc_checks(
    checks: Sequence[Any] = (),
    sql_checks: Sequence[Any] = (),
    anomaly_checks: Sequence[Any] = (),
    error_rates: Any = None,
) -> list[DocCheck]:
    """Every check of a ruleset file, in file order by kind.

    >>> from quality_py.dataset import Check
    >>> basic = Check("error", "basic").has_size(">= 1")
    >>> [(c.name, c.detail, c.level) for c in doc_checks([basic])]
    [('basic', 'size >= 1', 'error, fail')]
    """
    out = []
    for check in checks:
        level = f"{check.level}, {check.action}"
        for constraint in check.constraints:
            key = f"check|{check.description}|{constraint.description}"
            out.append(DocCheck("dataset check", check.description, constraint.description,
                                level, key))  # fmt: skip
    for sql in sql_checks:
        detail = f"on {sql.on}: {sql.sql}" + (f" ({sql.assertion})" if sql.assertion else "")
        out.append(DocCheck("SQL check", sql.name, detail, str(sql.level), f"sql|{sql.name}"))
    for anomaly in anomaly_checks:
        detail = f"{'.'.join(anomaly.key)} by {anomaly.strategy!r}"
        out.append(DocCheck("anomaly check", anomaly.description, detail, str(anomaly.level),
                            f"anomaly|{anomaly.description}"))  # fmt: skip
    if error_rates is not None:
        above = "alert at or above" if error_rates.inclusive else "alert above"
        if error_rates.run is not None:
            out.append(DocCheck("error rate", "run", f"{above} {error_rates.run}", "alert"))
        for rule, rate in error_rates.rules.items():
            out.append(DocCheck("error rate", f"rule {rule}", f"{above} {rate}", "alert"))
    return out


__all__ = ["DocCheck", "SiteLinks", "doc_checks"]
