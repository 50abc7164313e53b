"""Validation of dataset checks: what would fail when a run evaluates them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.checks import Check, as_predicate
from quality_py.errors import QualityError, column_hint
from quality_py.gate.names import reference_name
from quality_py.model.policy import RulePolicy
from quality_py.model.types import DataFrame
from quality_py.validation.report import Finding

_COLUMN_FIELDS = ("column", "first", "second")


def _columns(analyzer: Any) -> list[str]:
    names = [
        getattr(analyzer, f) for f in _COLUMN_FIELDS if isinstance(getattr(analyzer, f, None), str)
    ]
    return names + [c for c in getattr(analyzer, "columns", ()) or () if isinstance(c, str)]


def _reference_columns(
    analyzer: Any, views: Mapping[str, Mapping[str, bool] | None] | None
) -> list[str]:
    """A reference's columns (``[dest] in airports[faa]``) its view lacks, where known."""
    reference = getattr(analyzer, "reference", None)
    if not views or not isinstance(reference, str):
        return []
    known = views.get(reference.lower())
    out = []
    for name in getattr(analyzer, "reference_columns", ()) or ():
        if known is not None and name.lower() not in known:
            hint = column_hint(name, [c for c in known if "." not in c])
            out.append(f"column {name} is missing from view {reference}{hint}")
    return out


def check_findings(
    checks: Sequence[Check],
    paths: dict[str, bool] | None,
    frame: DataFrame | None,
    policy: RulePolicy,
    *,
    from_data: bool = True,
    views: Mapping[str, Mapping[str, bool] | None] | None = None,
) -> list[Finding]:
    """Every constraint whose assertion cannot be read, whose columns the schema lacks, or whose
    predicate or aggregate the policy or Spark's analysis refuses (``frame``: an empty frame of
    the data's schema, or None without one; ``from_data=False``: a frame made from a schema
    alone, which has no files, so what only the data as read has, such as a last write, is not
    asked of it; ``views``: the columns of views known without Spark, so a reference's columns
    are checked). Findings name the check and the constraint.

    >>> from quality_py.dataset.checks import Check
    >>> check = Check("error", "fit").has_size("about 5").is_complete("nope")
    >>> for f in check_findings([check], {"a": False}, None, RulePolicy()):
    ...     print(f.kind, "|", f.message.split(";")[0])
    CheckError | check 'fit', size about 5: cannot read the assertion 'about 5'
    NameError | check 'fit', nope is complete: column nope is missing (the columns are a)
    """
    findings: list[Finding] = []

    def add(kind: str, label: str, message: str) -> None:
        findings.append(Finding(kind, "check", None, f"{label}: {message}", None, None))

    for check in checks:
        for constraint in check.constraints:
            label = f"check {check.description!r}, {constraint.description}"
            if isinstance(constraint.assertion, str):
                try:
                    as_predicate(constraint.assertion)
                except QualityError as err:
                    add("CheckError", label, err.message)
                    continue
            analyzer = constraint.analyzer
            for name in getattr(analyzer, "references", lambda: ())():
                try:  # the gate a run reads it through, asked now
                    reference_name(name, policy, what=label)
                except QualityError as err:
                    add("PolicyError", label, err.message.removeprefix(f"{label} "))
            for message in _reference_columns(analyzer, views):
                add("NameError", label, message)
            missing = [
                c for c in _columns(analyzer) if paths is not None and c.lower() not in paths
            ]
            for name in missing:
                hint = column_hint(name, [c for c in paths or () if "." not in c])
                add("NameError", label, f"column {name} is missing{hint}")
            if missing or not isinstance(analyzer, Analyzer):
                continue
            try:
                sqls = analyzer.aggregations(policy)
            except QualityError as err:
                add("CheckError", label, err.message)
                continue
            if frame is None or (analyzer.own_scan and not from_data):
                continue
            problem = getattr(analyzer, "problem", None)
            if problem is not None and (found := problem(frame)) is not None:
                add("AnalysisError", label, found)
                continue
            try:
                frame.selectExpr(*sqls).schema  # noqa: B018 - analysis only, no job
            except Exception as err:  # Spark's analysis error, one line of it
                add("AnalysisError", label, str(err).split("\n")[0])
    return findings
