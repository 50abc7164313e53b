"""Many cases of one shape in one Spark job (issue 54, point 2).

A semantics test of the shape "these rows, this rule text, these results by hand" pays Spark's
fixed cost (a frame, an analysis, a job, a collect) once per case when each case runs alone.
:func:`evaluate_cases` runs every case of a table in **one** job: one frame holds every case's
rows, tagged with the case, and one projection computes each case's expression on its own rows
only (``CASE WHEN case = name THEN expression END``: Spark evaluates a branch only for the rows
that take it, so a case never sees another's rows). Each test still reads and asserts its own
case, so a failure names it. When the batch job fails (a case that aborts it), every case is
run alone, and the one that fails raises its own error in its own test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: A case: its SQL expression over the columns of the schema, and its rows
Case = tuple[str, Sequence[tuple[Any, ...]]]


def evaluate_cases(
    spark: Any, schema: str, cases: Mapping[str, Case]
) -> dict[str, list[Any] | BaseException]:
    """Each case's expression on each of its rows, in order (or the error it raised alone)."""
    names = sorted(cases)
    rows = [(name, i, *row) for name in names for i, row in enumerate(cases[name][1])]
    frame = spark.createDataFrame(rows, f"qp_case string, qp_row int, {schema}")
    columns = [
        f"CASE WHEN qp_case = '{name}' THEN ({cases[name][0]}) END AS qp_{j}"
        for j, name in enumerate(names)
    ]
    try:
        found = frame.selectExpr("qp_case", "qp_row", *columns).collect()
    except Exception:  # one case aborts the job: each alone, so the failing one is named
        return {name: _alone(spark, schema, *cases[name]) for name in names}
    out: dict[str, list[Any] | BaseException] = {
        name: [None] * len(cases[name][1]) for name in names
    }
    for row in found:
        j = names.index(row.qp_case)
        values = out[row.qp_case]
        assert isinstance(values, list)
        values[row.qp_row] = row[f"qp_{j}"]
    return out


def _alone(spark: Any, schema: str, sql: str, rows: Sequence[tuple[Any, ...]]) -> Any:
    try:
        return [r[0] for r in spark.createDataFrame(list(rows), schema).selectExpr(sql).collect()]
    except Exception as err:
        return err


def result_of(results: Mapping[str, list[Any] | BaseException], name: str) -> list[Any]:
    """A case's values, or its own error raised in its own test."""
    found = results[name]
    if isinstance(found, BaseException):
        raise found
    return found
