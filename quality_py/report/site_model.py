"""What the report site shows, read from a metrics history: the watched datasets (a suite and
its tags), their runs in time order, each run's metrics indexed once, and what changed from
one run to the next. Pure data: :mod:`quality_py.report.pages` renders it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from quality_py.history.records import Metric, RunRecord, run_page
from quality_py.model.file_names import file_name
from quality_py.model.times import parse_datetime

#: record sources with a dataset's runs (profiles are shown on the dataset page)
RUN_SOURCES = ("quality_run", "verify")
#: metric kinds that are checks of a dataset: constraints, SQL checks, anomaly checks
CHECK_KINDS = ("check", "sql", "anomaly", "tolerance")


def rule_key(entity: str) -> str:
    """A rule's id without its version (``101.2`` -> ``101``): a rule's page follows it across
    versions."""
    return entity.split(".")[0]


@dataclass(frozen=True)
class Run:
    """A record with its metrics indexed by key, and its page's file name."""

    record: RunRecord
    metrics: dict[tuple[str, str, str], Metric]
    page: str
    #: rule id (no version) -> the rule's entity (``id.version``) in this run
    rule_entities: dict[str, str]

    @classmethod
    def of(cls, record: RunRecord) -> Run:
        index = {m.key: m for m in record.metrics}
        entities: dict[str, str] = {}
        for m in record.metrics:
            if m.kind == "rule":
                entities.setdefault(rule_key(m.entity), m.entity)
        return cls(record, index, run_page(record.source, record.run_id, record.run_time), entities)

    @property
    def when(self) -> datetime:
        """Where the run stands on a time axis: the time of the data it checked (its
        ``data_time`` tag) when it declared one, else when it ran.

        >>> from datetime import timezone
        >>> r = RunRecord("r1", datetime(2026, 11, 28, 9, tzinfo=timezone.utc), "quality_run",
        ...               "1.1", "success", {"data_time": "2026-04-01"})
        >>> Run.of(r).when
        datetime.datetime(2026, 4, 1, 0, 0, tzinfo=datetime.timezone.utc)
        """
        text = self.record.tags.get("data_time")
        if text:
            try:
                when = parse_datetime(text)
            except Exception:
                return self.record.run_time
            return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
        return self.record.run_time

    @property
    def ran(self) -> datetime | None:
        """When the run ran, if :attr:`when` is its data's time (None otherwise)."""
        return self.record.run_time if self.record.tags.get("data_time") else None

    def value(self, kind: str, entity: str, name: str) -> float | None:
        """One metric's value (None when the run has none)."""
        metric = self.metrics.get((kind, entity, name))
        return None if metric is None else metric.value

    def failing(self, entity: str) -> float | None:
        """Rows rule ``entity`` failed (made the row's overall result Failed, probabilities
        below the suite's threshold included); records without that count: its Failed rows."""
        found = self.value("rule", entity, "failing")
        return self.value("rule", entity, "failed") if found is None else found

    def rules(self) -> list[str]:
        """The rule entities (``id.version``) of this run, in rule-id order."""
        return sorted(self.rule_entities.values(), key=_numeric)

    def checks(self) -> list[Metric]:
        """Its check outcomes (constraints, SQL checks, anomaly checks, rules' tolerances)."""
        return [m for m in self.record.metrics if m.kind in CHECK_KINDS]

    def samples(self) -> list[dict[str, Any]]:
        """Its sample failing rows as ``{"keys", "values", "failed"}`` (older records kept the
        keys alone: no values, no rules)."""
        out = []
        for m in self.record.metrics:
            if m.kind != "sample":
                continue
            data = json.loads(m.message or "{}")
            if m.name == "row":
                out.append(data)
            else:
                out.append({"keys": data, "values": {}, "failed": []})
        return out

    def top_values(self) -> dict[str, list[tuple[str, str | None, float]]]:
        """Each rule's top failing values, most frequent first: entity -> ``(column, value,
        rows)`` (a null value is None)."""
        out: dict[str, list[tuple[int, str, str | None, float]]] = {}
        for m in self.record.metrics:
            if m.kind != "top" or m.value is None:
                continue
            data = json.loads(m.message or "{}")
            rank = int(m.name) if m.name.isdigit() else 0
            out.setdefault(m.entity, []).append(
                (rank, str(data.get("column")), data.get("value"), m.value)
            )
        return {e: [(c, v, n) for _, c, v, n in sorted(vs)] for e, vs in out.items()}

    @property
    def failing_rules(self) -> set[str]:
        """Rule ids (no version) that failed at least one row."""
        return {rule_key(e) for e in self.rule_entities.values() if (self.failing(e) or 0) > 0}

    @property
    def failing_checks(self) -> set[str]:
        """Check pages' keys of the checks that failed."""
        return {check_key(m) for m in self.checks() if m.status == "failed"}


def _numeric(entity: str) -> list[int | str]:
    return [int(p) if p.isdigit() else p for p in entity.split(".")]


def check_key(metric: Metric) -> str:
    """What a check's page is about: its kind and entity (and constraint)."""
    if metric.kind in ("check", "tolerance"):  # a rule has two tolerances
        return f"{metric.kind}|{metric.entity}|{metric.name}"
    return f"{metric.kind}|{metric.entity}"


@dataclass(frozen=True)
class Dataset:
    """A watched dataset: a suite id and tags, with its runs oldest first."""

    suite: str
    tags: tuple[tuple[str, str], ...]
    runs: tuple[Run, ...]
    profiles: tuple[RunRecord, ...] = ()
    slug: str = field(default="")
    #: judged metric (``kind.entity.name``) -> the runs an anomaly check found it anomalous in
    anomalies: dict[str, set[str]] = field(default_factory=dict)
    #: (run id, judged metric) -> the band of values its anomaly check expected
    bands: dict[tuple[str, str], tuple[float | None, float | None]] = field(default_factory=dict)
    #: the suite's name in its newest run that recorded one (a named suite), read once
    suite_name: str | None = None

    @property
    def label(self) -> str:
        """The suite (its name when it has one, else its id) and its tags, as people read them.

        >>> from datetime import datetime
        >>> from quality_py.history.records import Metric
        >>> named = RunRecord("a", datetime(2026, 1, 2), "quality_run", "1.1", "success",
        ...     {"table": "flights"}, (Metric("suite", "suite", "name", None, None, "flights"),))
        >>> datasets([named], by=["table"])[0].label
        'flights (table=flights)'
        """
        tags = ", ".join(f"{k}={v}" for k, v in self.tags)
        return f"{self.suite_name or self.suite}" + (f" ({tags})" if tags else "")

    @property
    def latest(self) -> Run:
        """The newest run."""
        return self.runs[-1]

    def rule_page(self, key: str) -> str:
        """The file of the page of rule ``key`` (an id without version)."""
        return rule_path(self.slug, key)

    def check_page(self, key: str) -> str:
        """The file of the page of check ``key`` (:func:`check_key`)."""
        return check_path(self.slug, key)


def dataset_slug(suite_id: str, tags: Sequence[tuple[str, str]] = ()) -> str:
    """The file-name part of a dataset: its suite id and the tags that tell it apart, one-to-one
    (:func:`~quality_py.model.file_names.file_name`: two datasets never share a page).

    >>> dataset_slug("1", [("table", "flights")])
    'dataset.1.table.flights'
    """
    return file_name("dataset", suite_id, *(text for tag in tags for text in tag))


def rule_path(dataset: str, key: str) -> str:
    """The site's file of rule ``key`` (an id without version) of dataset ``dataset`` (slug)."""
    return f"rules/{file_name('rule', dataset, key)}.html"


def check_path(dataset: str, key: str) -> str:
    """The site's file of check ``key`` (:func:`check_key`) of dataset ``dataset`` (slug)."""
    return f"checks/{file_name('check', dataset, key)}.html"


def _suite_name(runs: Sequence[RunRecord]) -> str | None:
    """The suite's name in the newest of ``runs`` that recorded one."""
    for run in reversed(runs):
        for m in run.metrics:
            if m.kind == "suite" and m.name == "name" and m.message:
                return m.message
    return None


def datasets(records: Sequence[RunRecord], by: Sequence[str] = ()) -> list[Dataset]:
    """The datasets of ``records``: runs of one suite id (any version) with the same values
    of the tags ``by`` (e.g. ``table``; other tags, such as a month or a partition, label runs),
    oldest first (by time, then run id); datasets by label. An anomaly check's baseline is the
    same: the suite id, across versions, and the tags the check names.

    >>> from datetime import datetime
    >>> a = RunRecord("a", datetime(2026, 1, 2), "quality_run", "1.1", "success", {"t": "x"})
    >>> b = RunRecord("b", datetime(2026, 1, 1), "quality_run", "1.2", "success", {"t": "x"})
    >>> [[r.record.run_id for r in d.runs] for d in datasets([a, b])]
    [['b', 'a']]
    """
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[RunRecord]] = {}
    profiles: dict[tuple[str, tuple[tuple[str, str], ...]], list[RunRecord]] = {}
    for r in sorted(records, key=lambda r: (r.run_time, r.run_id)):
        key = ((r.suite or "-").split(".")[0], tuple((k, r.tags[k]) for k in by if k in r.tags))
        if r.source in RUN_SOURCES:
            groups.setdefault(key, []).append(r)
        elif r.source == "profile":
            profiles.setdefault(key, []).append(r)
    out = []
    for (suite, tags), runs in groups.items():
        name = dataset_slug(suite, tags)
        anomalies: dict[str, set[str]] = {}
        bands: dict[tuple[str, str], tuple[float | None, float | None]] = {}
        for r in runs:
            for m in r.metrics:
                if m.kind == "anomaly" and m.status == "failed":
                    anomalies.setdefault(m.name, set()).add(r.run_id)
                elif m.kind == "bound":
                    lower, upper = bands.get((r.run_id, m.entity), (None, None))
                    is_lower = m.name == "lower"
                    bands[(r.run_id, m.entity)] = (
                        m.value if is_lower else lower,
                        upper if is_lower else m.value,
                    )
        ordered = tuple(Run.of(r) for r in runs)
        kept = tuple(profiles.get((suite, tags), ()))
        named = _suite_name(runs)
        out.append(Dataset(suite, tags, ordered, kept, name, anomalies, bands, named))
    return sorted(out, key=lambda d: d.label)


@dataclass(frozen=True)
class Changes:
    """What changed from one run of a dataset to the next."""

    newly_failing_rules: tuple[str, ...] = ()
    newly_passing_rules: tuple[str, ...] = ()
    newly_failing_checks: tuple[str, ...] = ()
    version: tuple[str, str] | None = None
    #: rules whose version changed: (rule id, entity before, entity after)
    rule_versions: tuple[tuple[str, str, str], ...] = ()

    @property
    def any(self) -> bool:
        """Whether anything changed."""
        return bool(
            self.newly_failing_rules
            or self.newly_passing_rules
            or self.newly_failing_checks
            or self.version
            or self.rule_versions
        )


def changes(before: Run | None, after: Run) -> Changes:
    """Rules failing rows in ``after`` but none in ``before``, the reverse, checks failing
    newly, a suite version change and rules whose version changed.

    >>> from datetime import datetime
    >>> def run(suite, failed):
    ...     m = (Metric("rule", "7.1", "failed", failed),)
    ...     return Run.of(RunRecord("r", datetime(2026, 1, 1), "quality_run", suite, "x", {}, m))
    >>> c = changes(run("1.1", 0.0), run("1.2", 4.0))
    >>> c.newly_failing_rules, c.version
    (('7',), ('1.1', '1.2'))
    >>> changes(run("1.1", 0.0), Run.of(RunRecord("r", datetime(2026, 1, 2), "quality_run",
    ...     "1.2", "x", {}, (Metric("rule", "7.2", "failed", 0.0),)))).rule_versions
    (('7', '7.1', '7.2'),)
    """
    if before is None:
        return Changes()
    version = None
    old, new = before.record.suite, after.record.suite
    if old and new and old != new:
        version = (old, new)
    edited = tuple(
        (key, before.rule_entities[key], entity)
        for key, entity in sorted(after.rule_entities.items(), key=lambda kv: _numeric(kv[0]))
        if key in before.rule_entities and before.rule_entities[key] != entity
    )
    return Changes(
        tuple(sorted(after.failing_rules - before.failing_rules, key=_numeric)),
        tuple(sorted(before.failing_rules - after.failing_rules, key=_numeric)),
        tuple(sorted(after.failing_checks - before.failing_checks)),
        version,
        edited,
    )


def valid_share(run: Run) -> float | None:
    """A quality run's valid rows over its input rows (docs/glossary.md).

    >>> from datetime import datetime
    >>> m = (Metric("rows", "run", "input_rows", 8.0), Metric("rows", "run", "valid_rows", 7.0))
    >>> valid_share(Run.of(RunRecord("r", datetime(2026, 1, 1), "quality_run", "1.1", "x", {}, m)))
    0.875
    """
    rows, valid = run.value("rows", "run", "input_rows"), run.value("rows", "run", "valid_rows")
    return None if not rows or valid is None else valid / rows


def pass_rate(run: Run) -> float | None:
    """A quality run's pass rate (docs/glossary.md: passing rows, those no rule failed, over
    input rows); a verification's share of its constraints that held (None when there is
    nothing to divide).

    >>> from datetime import datetime
    >>> m = (Metric("rows", "run", "input_rows", 8.0), Metric("rows", "run", "valid_rows", 7.0),
    ...      Metric("rows", "run", "quarantined_rows", 2.0))
    >>> pass_rate(Run.of(RunRecord("r", datetime(2026, 1, 1), "quality_run", "1.1", "x", {}, m)))
    0.75
    """
    rows = run.value("rows", "run", "input_rows")
    if rows is not None:
        quarantined = run.value("rows", "run", "quarantined_rows")
        return None if not rows or quarantined is None else (rows - quarantined) / rows
    checks = [m for m in run.checks() if m.status in ("passed", "failed")]
    return sum(m.status == "passed" for m in checks) / len(checks) if checks else None


__all__ = [
    "CHECK_KINDS",
    "Changes",
    "Dataset",
    "Run",
    "changes",
    "check_key",
    "check_path",
    "dataset_slug",
    "datasets",
    "pass_rate",
    "rule_key",
    "rule_path",
]
