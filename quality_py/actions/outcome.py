"""What a quality run reports: its summary (counts, failing rules, checks, timings) and the
error a ``fail`` rule or check raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quality_py.actions.flags import RuleRef
from quality_py.actions.tolerances import RuleTolerance
from quality_py.actions.top_values import TopValue
from quality_py.dataset.checks import VerificationResult
from quality_py.errors import QualityError, item_text
from quality_py.model.enums import RunStatus
from quality_py.model.glossary import percent, run_numbers
from quality_py.runners.summary import SuiteStats


@dataclass(frozen=True)
class RunSummary:
    """What happened in a run (also the payload of notifications and of the failure error)."""

    run_id: str
    run_time: datetime
    suite: str
    status: RunStatus
    input_rows: int | None = None
    valid_rows: int | None = None
    quarantined_rows: int | None = None
    dropped_rows: int | None = None
    failing_rules: tuple[tuple[RuleRef, int], ...] = ()
    failed_checks: tuple[str, ...] = ()
    sample_keys: tuple[dict[str, Any], ...] = ()
    rules: SuiteStats | None = None
    checks: VerificationResult | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: the suite's name, when it has one (shown before ``suite``, its ``id.version``)
    suite_name: str | None = None
    #: each rule's most frequent failing values (entity ``id.version`` -> the top ones)
    top_values: dict[str, tuple[TopValue, ...]] = field(default_factory=dict)
    #: the alerts and notifications that could not be delivered, one line each
    undelivered: tuple[str, ...] = ()
    #: each rule's tolerances (``warn_if``, ``fail_if``) as this run judged them
    tolerances: tuple[RuleTolerance, ...] = ()
    #: anomaly checks the history could not judge yet (too few earlier runs): not a failure
    not_judged: tuple[str, ...] = ()

    def describe(self) -> str:
        """A few lines for people: status, counts, what failed.

        >>> from datetime import datetime
        >>> s = RunSummary("r1", datetime(2026, 1, 2), "suite 1.1", RunStatus.SUCCESS, 10, 9, 2, 1)
        >>> print(s.describe())
        quality run r1 of suite suite 1.1: success
          rows: 10 in, 9 valid, 2 quarantined, 1 dropped; pass rate 80.00 %
        """
        suite = f"{self.suite_name!r} ({self.suite})" if self.suite_name else self.suite
        failed = self.status == RunStatus.FAILED
        head = f"quality run {self.run_id} of suite {suite}: {self.status}"
        lines = [f"{head}, nothing published" if failed else head]
        if self.input_rows is not None:
            rate = self.numbers().get("pass_rate")
            lines.append(
                f"  rows{' it would have written' if failed else ''}: {self.input_rows} in, "
                f"{self.valid_rows} valid, "
                f"{self.quarantined_rows} quarantined, {self.dropped_rows} dropped"
                + ("" if rate is None else f"; pass rate {percent(rate)}")
            )
        for ref, count in self.failing_rules:
            what = f" ({ref.description})" if ref.description else ""
            rule = item_text("fail rule", ref.rule, ref.name)
            lines.append(f"  {rule}{what}: {count} rows")
        for message in self.failed_checks:
            lines.append(f"  failed check: {message}")
        for message in self.not_judged:
            lines.append(f"  not judged yet: {message}")
        if self.sample_keys:
            lines.append(f"  sample failing rows: {list(self.sample_keys)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (for notifiers).

        >>> from datetime import datetime
        >>> s = RunSummary("r1", datetime(2026, 1, 2), "suite 1.1", RunStatus.SUCCESS, 10, 9, 2, 1)
        >>> d = s.to_dict()
        >>> d["status"], d["run_time"], d["dropped_rows"]
        ('success', '2026-01-02T00:00:00', 1)
        """
        return {
            "run_id": self.run_id,
            "run_time": self.run_time.isoformat(),
            "suite": self.suite,
            "suite_name": self.suite_name,
            "status": str(self.status),
            "published": self.status == RunStatus.SUCCESS,
            "input_rows": self.input_rows,
            "valid_rows": self.valid_rows,
            "quarantined_rows": self.quarantined_rows,
            "dropped_rows": self.dropped_rows,
            "failing_rules": self._failing_rules(),
            **self.numbers(),
            "failed_checks": list(self.failed_checks),
            "tolerances": [t.to_dict() for t in self.tolerances],
            "not_judged": list(self.not_judged),
            "sample_keys": [{k: str(v) for k, v in row.items()} for row in self.sample_keys],
            "timings": self.timings,
        }

    def numbers(self) -> dict[str, Any]:
        """The run-level numbers of docs/glossary.md that the counts do not hold as they are
        (``passing_rows``, ``pass_rate``, ``valid_share``, ``failing_rule_results``).

        >>> from datetime import datetime
        >>> s = RunSummary("r1", datetime(2026, 1, 2), "1.1", RunStatus.SUCCESS, 10, 9, 2, 1)
        >>> s.numbers()["pass_rate"], s.numbers()["valid_share"]
        (0.8, 0.9)
        """
        if None in (self.input_rows, self.valid_rows, self.quarantined_rows):
            return {}
        failing = {r["rule"]: r["rows"] for r in self._failing_rules()}
        numbers = run_numbers(self.input_rows, self.valid_rows, self.quarantined_rows, failing)  # type: ignore[arg-type]
        return {k: numbers[k] for k in ("passing_rows", "pass_rate", "valid_share",
                                        "failing_rule_results")}  # fmt: skip

    def _failing_rules(self) -> list[dict[str, Any]]:
        """The rules with failing rows: a failed run knows its failing ``fail`` rules, a
        finished one every rule's count (in rule order)."""
        found: list[dict[str, Any]]
        if self.failing_rules:
            found = [
                {"rule": f"{r.rule.id}.{r.rule.version}", "name": r.name, "rows": n}
                for r, n in self.failing_rules
            ]
        else:
            found = [
                {"rule": f"{r.rule_id.id}.{r.rule_id.version}", "name": r.name, "rows": rows}
                for r in (self.rules.rules if self.rules is not None else ())
                if (rows := r.failed if r.failing is None else r.failing) > 0
            ]
        for entry in found:
            if entry["rule"] in self.top_values:
                entry["top_values"] = [v.to_dict() for v in self.top_values[entry["rule"]]]
        return found


class QualityRunFailed(QualityError):
    """A ``fail`` rule or check failed: nothing was written. ``summary`` says what failed."""

    code = "QUALITY_RUN_FAILED"

    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary
        super().__init__(summary.describe(), item_kind="suite")


__all__ = ["QualityRunFailed", "RunSummary"]
