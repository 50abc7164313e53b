"""A quality run against what a Spark expert writes by hand, at every failure rate.

The main job: valid rows, quarantine with the reasons, per-rule counts. Both sides read the same
parquet (``dataFrameLong``: 27 BIGINT columns, column ``j`` holds ``row + j``) and write the same
outputs to scratch paths, cases interleaved in every round, medians after a warm-up:

* ``ours``: ``run_quality(df, suite, run_id="b").write(valid, quarantine)``, the default: the
  quarantine holds the failed rules' names, as the hand-written one does;
* ``ours_ids``: the same written with ``quarantine_detail="ids"`` (the failed rules' packed ids);
* ``ours_full``: written with ``quarantine_detail="full"`` (the data-quality column with every
  rule's code and each failed rule's four ids: the default before 0.2.0);
* ``ours_notop``: the default without the top failing values (``OverTime(sample_rows=0)``);
* ``ours_table``: the default with the quarantine written to a table (``table:``, the session's
  catalog) instead of a folder;
* ``hand``: the rules' booleans computed once (null fails), the per-rule failure counts, rows,
  quarantined and dropped rows observed on the valid write, quarantine = the failing rows with
  an array of the failed rules' names, the run id and time and the kept flag; valid = the rows
  no ``drop`` rule failed, input columns only.

Workloads (odd rules ``drop``, even rules ``ignore``):

* ``gen<N>``: the original's ``genRules`` shape, ``(`c` % m) = 0`` in sets of 14 (rule ``k``:
  column ``k % 27``, modulus ``2 + k // 27``): nearly every row fails something;
* ``band<N>@<P>``: rule ``k`` fails a row when ``row % 100 < P`` and ``(row + j + k) % 7 = 0``
  (``j = k % 27``): exactly P % of rows fail something (about a seventh of the rules each),
  the others none.

Every leg's per-rule failure counts are compared with the hand-written ones before timing. The
machine's one-minute load average is recorded beside each workload's figures (before and after).

``--method-limit 65535`` runs every case under Spark's default
``spark.sql.codegen.hugeMethodLimit`` instead of the 8000 ``local_session`` sets (what a session
that does not set it gives a run's own jobs is 8000 too: ``wide_plan_settings``).

Usage: ``python benchmarks/bench_run.py [--rows N] [--runs R] [--workloads gen84,band500@100]
[--legs ours,ours_ids] [--method-limit 65535]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from typing import Any

from common import long_data, save, spark_session

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality

COLS = 27
SET_SIZE = 14
DEFAULT = "band10@5,gen84,band500@0,band500@33,band500@100,band1000@0,band1000@33,band1000@100"


def rule_texts(workload: str) -> list[str]:
    """The rules of ``workload`` as SQL text."""
    if workload.startswith("gen"):
        n = int(workload[3:])
        return [f"(`{k % COLS}` % {2 + k // COLS}) = 0" for k in range(n)]
    size, share = workload[4:].split("@")
    return [
        f"((`{k % COLS}` - {k % COLS}) % 100 >= {int(share)} OR (`{k % COLS}` + {k}) % 7 <> 0)"
        for k in range(int(size))
    ]


def suite_of(texts: list[str]) -> RuleSuite:
    sets = []
    for s, start in enumerate(range(0, len(texts), SET_SIZE)):
        rules = [
            Rule(Id(100 + k, 1), texts[k], action_if_failed="drop" if k % 2 else "ignore")
            for k in range(start, min(len(texts), start + SET_SIZE))
        ]
        sets.append(RuleSet(Id(50 + s, 1), rules))
    return RuleSuite(Id(1, 1), sets)


def hand_run(df: Any, texts: list[str], scratch: str) -> dict[str, int]:
    """The same outputs and counts as a quality run, written as a Spark expert would."""
    n = len(texts)
    flagged = df.selectExpr("*", *[f"coalesce({t}, false) AS __r{k}" for k, t in enumerate(texts)])
    every = ", ".join(f"__r{k}" for k in range(n))
    drops = ", ".join(f"__r{k}" for k in range(n) if k % 2)
    flagged = flagged.selectExpr(
        "*",
        f"NOT least({every}) AS __any" if n > 1 else "NOT __r0 AS __any",
        f"NOT least({drops})  AS __drop" if n > 2 else "NOT __r1 AS __drop",
    )
    return hand_outputs(flagged, [f"`{c}`" for c in df.columns], n, scratch)


def hand_outputs(flagged: Any, columns: list[str], n: int, scratch: str) -> dict[str, int]:
    """Write ``flagged`` (the input's ``columns``, each rule's boolean ``__r<k>`` and the
    ``__any`` / ``__drop`` flags) as a quality run's quarantine and valid outputs, observing the
    same counts; the counts."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    names = ", ".join(f"IF(__r{k}, NULL, 'rule_{k}')" for k in range(n))
    flagged.where("__any").selectExpr(
        *columns,
        f"filter(array({names}), x -> x IS NOT NULL) AS failed_rules",
        "'b' AS qp_run_id",
        "current_timestamp() AS qp_run_time",
        "NOT __drop AS qp_kept_in_valid",
    ).write.mode("overwrite").partitionBy("qp_run_id").parquet(f"{scratch}/hq")
    counts = Observation("hand")
    observed = flagged.observe(
        counts,
        *[
            F.expr(sql).alias(key)
            for key, sql in [
                ("rows", "count(1)"),
                ("quarantined", "count_if(__any)"),
                ("dropped", "count_if(__drop)"),
                *[(f"r{k}", f"count_if(NOT __r{k})") for k in range(n)],
            ]
        ],
    )
    observed.where("NOT __drop").selectExpr(*columns).write.mode("overwrite").parquet(
        f"{scratch}/hv"
    )
    return {k: int(v) for k, v in counts.get.items()}


def our_run(
    df: Any, suite: RuleSuite, scratch: str, detail: str | None = None, stats: bool = False
) -> Any:
    """A quality run's default outputs (``detail``: the quarantine's form, None the default,
    ``notop`` the default without top failing values; ``stats``: the stats written too); each
    form has a quarantine of its own (one quarantine holds one form)."""
    from quality_py.history import OverTime

    over_time = OverTime(sample_rows=0) if detail == "notop" else None
    run = run_quality(df, suite, run_id="b", over_time=over_time)
    out = f"{scratch}/{detail or 'default'}"
    quarantine = "table:qp_bench_quarantine" if detail == "table" else f"{out}/q"
    detail = None if detail in ("notop", "table") else detail
    where = f"{out}/s" if stats else None
    return run.write(f"{out}/v", quarantine, where, quarantine_detail=detail)


def check_equal(summary: Any, hand: dict[str, int], workload: str) -> None:
    """Our counts must equal the hand-written ones (rows, quarantined, dropped, each rule)."""
    ours = {
        "rows": summary.input_rows,
        "quarantined": summary.quarantined_rows,
        "dropped": summary.dropped_rows,
        **{f"r{k}": s.failed for k, s in enumerate(summary.rules.rules)},
    }
    if ours != hand:
        diff = {k: (ours.get(k), hand.get(k)) for k in hand if ours.get(k) != hand.get(k)}
        raise SystemExit(f"{workload}: counts differ (ours, hand): {diff}")


def measure(df: Any, workload: str, runs: int, scratch: str, legs: list[str]) -> dict[str, Any]:
    texts = rule_texts(workload)
    suite = suite_of(texts)
    hand_counts = hand_run(df, texts, scratch)  # also the warm-up
    details = {
        "ours": None, "ours_ids": "ids", "ours_full": "full", "ours_notop": "notop",
        "ours_table": "table",
    }  # fmt: skip
    load_before = os.getloadavg()[0]
    for leg in legs:
        check_equal(our_run(df, suite, scratch, details[leg]), hand_counts, workload)
    cases = {"hand": lambda: hand_run(df, texts, scratch)}
    for leg in legs:
        cases[leg] = lambda d=details[leg]: our_run(df, suite, scratch, d)
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(round(time.perf_counter() - start, 3))
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "rules": len(texts),
        "failing_rows": hand_counts["quarantined"],
        "dropped_rows": hand_counts["dropped"],
        "runs": times,
        "medians": med,
        "ratio": round(med[legs[0]] / med["hand"], 2),
        "ratios": {leg: round(med[leg] / med["hand"], 2) for leg in legs},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workloads", default=DEFAULT)
    parser.add_argument(
        "--legs", default="ours", help="ours, ours_ids, ours_full, ours_notop, ours_table"
    )
    parser.add_argument("--method-limit", help="spark.sql.codegen.hugeMethodLimit for the runs")
    args = parser.parse_args()
    spark = spark_session("quality_py-bench-run")
    if args.method_limit:
        spark.conf.set("spark.sql.codegen.hugeMethodLimit", args.method_limit)
    df = long_data(spark, args.rows, COLS)
    scratch = tempfile.mkdtemp(prefix="qp-run-")
    results: dict[str, Any] = {
        "rows": args.rows,
        "runs": args.runs,
        "method_limit": spark.conf.get("spark.sql.codegen.hugeMethodLimit"),
        "workloads": {},
    }
    try:
        for workload in args.workloads.split(","):
            legs = args.legs.split(",")
            result = measure(df, workload, args.runs, scratch, legs)
            results["workloads"][workload] = result
            med = result["medians"]
            ours = "  ".join(f"{leg} {med[leg]:7.2f} s" for leg in legs)
            print(
                f"{workload:14s} rules {result['rules']:5d}  failing {result['failing_rows']:8d}"
                f"  hand {med['hand']:7.2f} s  {ours}  ratios {result['ratios']}  "
                f"load {result['load']}  runs {result['runs']}",
                flush=True,
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.sql("DROP TABLE IF EXISTS qp_bench_quarantine")
    print(save("bench_run", results))


if __name__ == "__main__":
    main()
