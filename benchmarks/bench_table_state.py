"""A daily batch appended to a growing table (issue 55): the run with a table state against
re-running over the whole table.

The table: ``--partitions`` partitions of ``--batch`` rows each, every key distinct (the worst
case for a key index: one entry per row). Their states and key indexes are prepared by this
script (written as each partition's published run would keep them, without a run over their
rows); the table's rows are written once too, for the baseline. Cases, interleaved in every
round, medians after a warm-up:

* ``table``: the quality run over the whole table and the batch, without a table state (what
  answering for the table costs without one: the baseline);
* ``batch``: the run over the batch with the table state (the checks and ``is_unique(k)``
  answer for the table, the batch's state and key index are kept);
* ``batch_alone``: the run over the batch without a table state (what the batch costs alone).

The suite: ``is_unique(k)`` (drop), ``v > 0`` and one range rule per ``--columns`` extra column
(a table's other columns: the key index holds the key alone); with ``--keep-one``, keep-one
(``row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1``, drop) instead of ``is_unique(k)``,
whose partitions keep a first-row index (each key's first row's order values). The checks:
size, completeness of ``v``, uniqueness of ``k``. Reported: medians, ratios to ``table``, and
the indexes' size on disk per million keys.

    .venv/bin/python benchmarks/bench_table_state.py --batch 1000000 --partitions 10 --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from common import DATA, save, spark_session, timed

from quality_py import Check, Id, OverTime, Rule, RuleSet, RuleSuite, TableState, run_quality
from quality_py.dataset import AnalysisResult, Completeness, Size
from quality_py.dataset.grouping import COUNT, FrequencyState
from quality_py.dataset.states import RatioState, SizeState

KEEP_ONE = "row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1"


def suite(columns: int, keep_one: bool = False) -> RuleSuite:
    """``is_unique(k)`` (or keep-one) and ``v > 0`` (drop), and one range rule per extra column."""
    rules = [
        Rule(Id(3, 1), KEEP_ONE if keep_one else "is_unique(k)", action_if_failed="drop"),
        Rule(Id(4, 1), "v > 0", action_if_failed="drop"),
        *[Rule(Id(10 + i, 1), f"c{i} >= 0") for i in range(columns)],
    ]
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])


CHECKS = [
    Check("warning", "table")
    .has_size(">= 0")
    .has_completeness("v", ">= 0")
    .has_uniqueness("k", ">= 0")
]


def rows(spark: Any, start: int, count: int, columns: int = 0) -> Any:
    extra = [f"CAST(id % 1000 AS DOUBLE) * {i + 1} AS c{i}" for i in range(columns)]
    return spark.range(start, start + count, 1, 2).selectExpr("id AS k", "1.0D AS v", *extra)


def first_rows(spark: Any, rules: RuleSuite, start: int, count: int, columns: int) -> Any:
    """A partition's first-row index of the keep-one rule, as a run keeps it: every key is
    distinct, so every row is its key's first (its order values named as the run names them)."""
    from pyspark.sql import functions as F

    from quality_py.actions.table_rows import indexes
    from quality_py.runners.staging import ordered_totally
    from quality_py.sql.compiler import compile_suite

    frame = rows(spark, start, count, columns)
    _, (index,) = indexes(ordered_totally(compile_suite(rules), frame.schema), frame.columns)
    values = [
        F.expr(sql).alias(c) for (sql, _, _), c in zip(index.order, index.columns, strict=True)
    ]
    kept = frame.select(*[F.col(k) for k in index.keys], *values).withColumn(COUNT, F.lit(1))
    return (index.keys + index.columns, index.marker), FrequencyState(
        index.keys + index.columns, kept
    )


def prepare(
    spark: Any, batch: int, partitions: int, columns: int, states: Path, rules: RuleSuite | None
) -> tuple[str, str]:
    """The other partitions' states and key indexes (with ``rules``, keep-one's first-row
    index too), the table's rows and the batch's."""
    table = DATA / f"table_{partitions}x{batch}x{columns}.parquet"
    if not table.exists():
        rows(spark, 0, partitions * batch, columns).write.parquet(str(table))
    fresh = DATA / f"batch_{partitions}x{batch}x{columns}.parquet"
    if not fresh.exists():
        rows(spark, partitions * batch, batch, columns).write.parquet(str(fresh))
    for p in range(partitions):
        index = rows(spark, p * batch, batch).selectExpr("k", f"1L AS {COUNT}")
        kept: dict[Any, FrequencyState] = {(("k",), None): FrequencyState(("k",), index)}
        if rules is not None:
            name, first = first_rows(spark, rules, p * batch, batch, columns)
            kept[name] = first
        state = AnalysisResult(
            {Size(): SizeState(batch), Completeness("v"): RatioState(batch, batch)}, kept
        )
        TableState(states, f"day={p}").publish(state, rows=None)
    return str(table), str(fresh)


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--columns", type=int, default=0, help="extra columns, a rule each")
    parser.add_argument("--keep-one", action="store_true", help="keep-one instead of is_unique")
    args = parser.parse_args()
    spark = spark_session("quality_py-bench-table-state")
    states = Path(tempfile.mkdtemp(prefix="qp-table-state-"))
    out = Path(tempfile.mkdtemp(prefix="qp-table-out-"))
    started = time.perf_counter()
    rules = suite(args.columns, args.keep_one)
    table_path, batch_path = prepare(
        spark, args.batch, args.partitions, args.columns, states, rules if args.keep_one else None
    )
    prepared = time.perf_counter() - started
    index_bytes = size_of(states)
    keys = args.batch * args.partitions
    whole = spark.read.parquet(table_path).unionByName(spark.read.parquet(batch_path))
    batch = spark.read.parquet(batch_path)
    new_day = OverTime(table_state=TableState(states, f"day={args.partitions}"))

    def run(df: Any, over: OverTime | None, name: str) -> Any:
        return run_quality(df, rules, CHECKS, over_time=over).write(str(out / name))

    cases = {
        "table": lambda: run(whole, None, "table"),
        "batch": lambda: run(batch, new_day, "batch"),
        "batch_alone": lambda: run(batch, None, "alone"),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for name, fn in cases.items():  # warm-up, and the answers checked once
        summary = fn()
        assert summary.dropped_rows == 0, (name, summary.dropped_rows)
        assert summary.checks is not None
        size = summary.checks.results[0].metric
        expected = keys + args.batch if name in ("table", "batch") else args.batch
        assert size == expected, (name, size, expected)
    for _ in range(args.runs):
        for name, fn in cases.items():
            times[name].append(timed(fn, runs=1, warmup=0)["median"])
    import statistics

    medians = {n: statistics.median(t) for n, t in times.items()}
    result = {
        "batch_rows": args.batch,
        "keep_one": args.keep_one,
        "extra_columns": args.columns,
        "table_rows": keys + args.batch,
        "index_bytes": index_bytes,
        "index_mb_per_million_keys": round(index_bytes / 1e6 / (keys / 1e6), 2),
        "prepare_seconds": round(prepared, 1),
        "medians": {n: round(m, 2) for n, m in medians.items()},
        "runs": times,
        "ratio_to_table": {n: round(m / medians["table"], 3) for n, m in medians.items()},
    }
    print(result)
    save("bench_table_state_keep_one" if args.keep_one else "bench_table_state", result)
    shutil.rmtree(states, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
