"""A made-up metrics history for the report site's tests and benchmark: ``rules`` rules over
``runs`` daily runs of one dataset (plus a verification dataset), with numbers from a seeded
generator that the tests recompute by hand from the same formulas (not from our code)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from quality_py.history import Metric, RunRecord

T0 = datetime(2026, 1, 1, 6, 0, tzinfo=timezone.utc)


def failed(rule: int, day: int, last: int) -> int:
    """Rows rule ``rule`` fails on day ``day``: rule 3 breaks on the ``last`` day, every fifth
    rule fails a few rows each day, the rest none."""
    if rule == 3:
        return 250 if day == last else 0
    return (rule * 7 + day * 3) % 11 if rule % 5 == 0 else 0


def input_rows(day: int) -> int:
    """Rows in on day ``day``."""
    return 1000 + (day * 37) % 101


def quality_run(day: int, rules: int, last: int) -> RunRecord:
    """Day ``day``'s quality run."""
    rows = input_rows(day)
    metrics = [Metric("rows", "run", "input_rows", float(rows))]
    dropped = 0
    version = 2 if day == last else 1  # the last day's suite is a new version
    for k in range(rules):
        entity = f"{100 + k}.1"
        n = failed(k, day, last)
        if k % 2 and n:
            dropped = max(dropped, n)  # drop rules fail overlapping rows (the first n)
        metrics += [
            Metric("rule", entity, "failed", float(n), group="10.1"),
            Metric("rule", entity, "passed", float(rows - n), group="10.1"),
            Metric("rule", entity, "failed_share", n / rows, group="10.1"),
            Metric("rule", entity, "action", None, "drop" if k % 2 else "ignore",
                   f"rule {k} holds", group="10.1"),
        ]  # fmt: skip
    quarantined = max([failed(k, day, last) for k in range(rules)] + [0])
    metrics += [
        Metric("rows", "run", "valid_rows", float(rows - dropped)),
        Metric("rows", "run", "quarantined_rows", float(quarantined)),
        Metric("rows", "run", "dropped_rows", float(dropped)),
        Metric("timing", "run", "write_seconds", 1.5),
        Metric("output", "valid", "target", None, None, "main.orders_valid"),
    ]
    if day == last:
        sample = {
            "keys": {"id": 7},
            "values": {"amount": -5, "ssn_hash": "ab"},
            "failed": ["103.1"],
        }
        metrics.append(Metric("sample", "row 1", "row", None, None, json.dumps(sample)))
        metrics.append(
            Metric("anomaly", "volume", "rule.103.1.failed_share", 250 / rows, "failed",
                   "volume: anomaly: 0.2 is outside [0, 0.01]", group="error")
        )  # fmt: skip
        metrics += [
            Metric("bound", "rule.103.1.failed_share", "lower", 0.0),
            Metric("bound", "rule.103.1.failed_share", "upper", 0.01),
        ]
    status = "failed" if day == last else "success"
    return RunRecord(f"day-{day:03d}", T0 + timedelta(days=day), "quality_run", f"1.{version}",
                     status, {"table": "orders"}, tuple(metrics))  # fmt: skip


def completeness(day: int) -> float:
    """The verification's completeness on day ``day`` (below 0.9 on day 2)."""
    return 0.8 if day == 2 else 0.95 + (day % 3) / 100


def verification(day: int) -> RunRecord:
    """Day ``day``'s verification of another dataset."""
    value = completeness(day)
    ok = "passed" if value >= 0.9 else "failed"
    metrics = (
        Metric("check", "basic", "Completeness(amount) >= 0.9", value, ok, f"{value}", "error"),
        Metric("metric", "Completeness(amount)", "value", value),
    )
    return RunRecord(f"v-{day:03d}", T0 + timedelta(days=day, hours=1), "verify", "payments",
                     "success" if ok == "passed" else "error", {}, metrics)  # fmt: skip


def history(rules: int = 12, runs: int = 6) -> list[RunRecord]:
    """Every record: ``runs`` quality runs of ``rules`` rules and as many verifications."""
    last = runs - 1
    return [quality_run(d, rules, last) for d in range(runs)] + [
        verification(d) for d in range(runs)
    ]
