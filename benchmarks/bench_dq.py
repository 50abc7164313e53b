"""Data-quality runner against baselines of the same run.

Workload: the original library's ``genRules`` shape, rules ``(`c` % m) = 0`` in rule sets of 14,
over ``dataFrameLong`` (1M rows, BIGINT columns ``"0".."26"``). Rule ``k`` uses column ``k % 27``
and modulus ``2 + k // 27`` so that every rule is distinct (identical rules would be folded by
Spark's common-subexpression elimination and flatter the numbers).

Per rule count, on the same parquet data, every case ends in a ``noop`` write:

* ``noop``: no rules (read + write only);
* ``hand``: a hand-written ``select`` of the same rule booleans, one column each;
* ``hand_codes``: what a Spark expert writes to get the same answer as the compact layout: the
  per-rule codes (``CASE WHEN rule THEN 100000 ELSE 0 END``, null is Failed), each rule set's and
  the overall result (``least``), in a struct of two int arrays, codes computed once in a first
  projection;
* ``compact`` / ``map``: ``add_data_quality`` in each layout.

DataFrames are built before timing (driver-side compile and analysis are reported separately) and
the cases are interleaved in every round, so machine noise hits them alike. Reported: medians,
and ratios of medians.

Planning: Python compile (parse, passes, SQL generation), ``add_data_quality`` (compile + Spark
analysis of the rules) and Spark planning (optimisation + physical plan) for 10 ... 5000 rules.

``compact_staged`` is ``add_data_quality`` built as before its one projection (issue 59): the
struct over staged code columns, without the marker that keeps it out of whole-stage code
(what a Photon session builds). ``hand_f``, ``compact_f`` and ``compact_staged_f`` keep the rows
passing every rule (a hand-written ``WHERE`` of the booleans, and ``overallResult = 100000``):
the filter downstream consumers write, which Spark moves below the struct. ``w6`` in
``--rules`` is the original's genRules itself (84 rules over 27 predicates, most repeated three
times).

``--cols 10`` reads a narrower table (the rules over its columns alike); ``--method-limit 65535``
runs under Spark's default ``spark.sql.codegen.hugeMethodLimit`` instead of the 8000
``local_session`` sets (a suite of 40 to 90 rules over 10 columns is one generated method past
what HotSpot compiles there: docs/scaling.md).

Usage: ``python benchmarks/bench_dq.py [--rows N] [--runs R] [--rules 27,w6,150,1000] [--cols 10]
[--method-limit 65535]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from common import long_data, noop, save, spark_session

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.sql.codegen_limits import PHOTON
from quality_py.sql.compiler import compile_suite

COLS = 27
SET_SIZE = 14


def rule_text(k: int, cols: int = COLS) -> str:
    return f"(`{k % cols}` % {2 + k // cols}) = 0"


def texts_of(workload: str, cols: int = COLS) -> list[str]:
    """The rules of a workload: ``N`` distinct rules, or ``w6``, the original's genRules itself
    (84 rules in 6 sets of 14, rule j of set s ``(`c` % 2) = 0`` with c = (14 s + j) % 27:
    27 predicates, most of them three times)."""
    if workload == "w6":
        return [f"(`{k % cols}` % 2) = 0" for k in range(84)]
    return [rule_text(k, cols) for k in range(int(workload))]


def suite_of(texts: list[str]) -> RuleSuite:
    sets = []
    for s, start in enumerate(range(0, len(texts), SET_SIZE)):
        chunk = range(start, min(len(texts), start + SET_SIZE))
        sets.append(RuleSet(Id(50 + s, 1), [Rule(Id(100 + k, 1), texts[k]) for k in chunk]))
    return RuleSuite(Id(1, 1), sets)


def gen_suite(n: int, cols: int = COLS) -> RuleSuite:
    return suite_of(texts_of(str(n), cols))


def hand_written(df: Any, texts: list[str]) -> Any:
    return df.selectExpr("*", *[f"{t} AS r{k}" for k, t in enumerate(texts)])


def hand_code_sqls(texts: list[str]) -> list[str]:
    """Each rule's code as a Spark expert writes it (null is Failed)."""
    return [f"CASE WHEN {t} THEN 100000 ELSE 0 END AS __c{k}" for k, t in enumerate(texts)]


def hand_struct_sql(n: int) -> str:
    """The compact layout's struct over the ``__c<k>`` code columns: overall and per-set results
    (``least``) and the per-rule codes."""
    sets = [list(range(start, min(n, start + SET_SIZE))) for start in range(0, n, SET_SIZE)]

    def least(ks: list[int]) -> str:
        return f"least({', '.join(f'__c{k}' for k in ks)})" if len(ks) > 1 else f"__c{ks[0]}"

    return (
        "named_struct('id', CAST(4294967297 AS BIGINT), "
        f"'overallResult', {least(list(range(n)))}, "
        f"'ruleSetResults', array({', '.join(least(ks) for ks in sets)}), "
        f"'ruleResults', array({', '.join(f'__c{k}' for k in range(n))})) AS DataQuality"
    )


def hand_written_codes(df: Any, texts: list[str]) -> Any:
    """The compact layout's content by hand: per-rule codes, per-set and overall results, codes
    computed once in a first projection."""
    staged = df.selectExpr("*", *hand_code_sqls(texts))
    return staged.selectExpr(*[f"`{c}`" for c in df.columns], hand_struct_sql(len(texts)))


def staged_form(df: Any, suite: RuleSuite, layout: str = "compact") -> Any:
    """``add_data_quality`` built as before issue 59's one projection and its marker: the
    struct a projection over staged code columns, as a session where Photon runs builds it
    (``quality_py.runners.one_projection``); it runs in this session like every case."""
    spark = df.sparkSession
    before = spark.conf.get("spark.sql.codegen.hugeMethodLimit")
    spark.conf.set("spark.sql.codegen.hugeMethodLimit", "65535")
    spark.conf.set(PHOTON, "true")
    try:
        return add_data_quality(df, suite, layout=layout)
    finally:
        spark.conf.set("spark.sql.codegen.hugeMethodLimit", before)
        spark.conf.unset(PHOTON)


PASSING = "DataQuality.overallResult = 100000"


def interleaved(cases: dict[str, Any], runs: int) -> dict[str, dict[str, Any]]:
    """Median wall time of a noop write of each DataFrame, cases interleaved per round."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    for df in cases.values():  # warm-up: codegen, JIT
        noop(df)
    for _ in range(runs):
        for name, df in cases.items():
            start = time.perf_counter()
            noop(df)
            times[name].append(time.perf_counter() - start)
    return {
        k: {"median": statistics.median(v), "runs": [round(t, 3) for t in v]}
        for k, v in times.items()
    }


def _jvm_heap_used(spark: Any) -> int:
    """Bytes of driver heap in use after three full collections (classic sessions only)."""
    jvm = spark.sparkContext._jvm
    for _ in range(3):
        jvm.java.lang.System.gc()
        time.sleep(0.5)
    bean = jvm.java.lang.management.ManagementFactory.getMemoryMXBean()
    return int(bean.getHeapMemoryUsage().getUsed())


def planning(df: Any, n: int, repeats: int = 3) -> dict[str, float]:
    """Median compile, build and plan times of ``repeats`` builds, and the driver memory one
    built-and-planned DataFrame holds (JVM heap after GC; Python's peak during compile)."""
    import tracemalloc

    suite = gen_suite(n, len(df.columns))
    compile_suite(suite)  # warm sqlglot's caches
    rows = []
    for _ in range(repeats):
        start = time.perf_counter()
        compile_suite(suite)
        compile_s = time.perf_counter() - start
        start = time.perf_counter()
        checked = add_data_quality(df, suite, layout="compact")
        build_s = time.perf_counter() - start
        start = time.perf_counter()
        checked._jdf.queryExecution().executedPlan()  # optimisation + physical planning
        plan_s = time.perf_counter() - start
        rows.append((compile_s, build_s, plan_s))
        del checked
    # what built and planned DataFrames hold, per DataFrame: three held at once (one alone is
    # within the heap's noise at small sizes)
    before = _jvm_heap_used(df.sparkSession)
    frames = [add_data_quality(df, suite, layout="compact") for _ in range(3)]
    for frame in frames:
        frame._jdf.queryExecution().executedPlan()
    held = (_jvm_heap_used(df.sparkSession) - before) / len(frames)
    del frames
    tracemalloc.start()
    compile_suite(suite)
    python_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    med = [statistics.median(r[i] for r in rows) for i in range(3)]
    return {
        "python_compile_s": round(med[0], 3),
        "add_data_quality_s": round(med[1], 3),
        "spark_plan_s": round(med[2], 3),
        "compile_plus_plan_s": round(med[1] + med[2], 3),
        "jvm_heap_held_mb": round(held / 2**20, 1),
        "python_compile_peak_mb": round(python_peak / 2**20, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="10,27,w6,150,1000", help="rule counts, or w6")
    ap.add_argument("--plan-rules", default="10,100,1000,5000")
    ap.add_argument("--cols", type=int, default=COLS, help="input columns the rules read")
    ap.add_argument("--method-limit", help="spark.sql.codegen.hugeMethodLimit (default: 8000)")
    args = ap.parse_args()
    spark = spark_session()
    if args.method_limit:
        spark.conf.set("spark.sql.codegen.hugeMethodLimit", args.method_limit)
    df = long_data(spark, args.rows, args.cols)
    for _ in range(3):  # warm the JVM before the first baseline
        noop(df)
    results: dict[str, Any] = {
        "rows": args.rows,
        "runs": args.runs,
        "cols": args.cols,
        "method_limit": spark.conf.get("spark.sql.codegen.hugeMethodLimit"),
        "cases": {},
        "planning": {},
    }
    for n in [x.strip() for x in args.rules.split(",") if x.strip()]:
        texts = texts_of(n, args.cols)
        suite = suite_of(texts)
        compact, staged = add_data_quality(df, suite, layout="compact"), staged_form(df, suite)
        cases = {
            "noop": df,
            "hand": hand_written(df, texts),
            "hand_codes": hand_written_codes(df, texts),
            "compact": compact,
            "compact_staged": staged,
            "map": add_data_quality(df, suite, layout="map"),
            "map_staged": staged_form(df, suite, "map"),
            "hand_f": df.where(" AND ".join(f"coalesce({t}, false)" for t in texts)),
            "compact_f": compact.where(PASSING),
            "compact_staged_f": staged.where(PASSING),
        }
        case: dict[str, Any] = interleaved(cases, args.runs)
        med = {k: v["median"] for k, v in case.items()}
        case["ratios"] = {
            "compact/hand": round(med["compact"] / med["hand"], 2),
            "compact/hand_codes": round(med["compact"] / med["hand_codes"], 2),
            "compact_staged/hand": round(med["compact_staged"] / med["hand"], 2),
            "map/hand_codes": round(med["map"] / med["hand_codes"], 2),
            "map/hand": round(med["map"] / med["hand"], 2),
            "map_staged/hand": round(med["map_staged"] / med["hand"], 2),
            "compact_f/hand_f": round(med["compact_f"] / med["hand_f"], 2),
            "compact_staged_f/hand_f": round(med["compact_staged_f"] / med["hand_f"], 2),
            "hand/noop": round(med["hand"] / med["noop"], 2),
            "compact/noop": round(med["compact"] / med["noop"], 2),
            "map/noop": round(med["map"] / med["noop"], 2),
        }
        results["cases"][n] = case
        print(n, {k: round(v, 3) for k, v in med.items()}, case["ratios"], flush=True)
    for n in [int(x) for x in args.plan_rules.split(",") if x]:
        results["planning"][n] = planning(df, n)
        print("plan", n, results["planning"][n], flush=True)
    print(save("bench_dq", results))


if __name__ == "__main__":
    main()
