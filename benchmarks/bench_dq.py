"""Data-quality runner against baselines of the same run.

Workload: the original library's ``genRules`` shape, rules ``(`c` % m) = 0`` in rule sets of 14,
over ``dataFrameLong`` (BIGINT columns ``"0".."26"``). Rule ``k`` uses column ``k % 27`` and
modulus ``2 + k // 27`` so that every rule is distinct (identical rules would be folded by Spark's
common-subexpression elimination and flatter the numbers).

Per rule count it times, on the same parquet data and with ``noop`` writes:

* ``noop``: no rules (read + write only);
* ``hand``: a hand-written ``select`` of the same rule booleans, one column each;
* ``map`` / ``compact``: ``add_data_quality`` in each layout.

It also reports Python compile time (sqlglot passes + SQL generation) and Spark planning time
(analysis + optimisation + physical planning) for larger suites.

Usage: ``python benchmarks/bench_dq.py [--rows N] [--runs R] [--rules 27,150,1000]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from common import long_data, noop, save, spark_session, timed

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.compile import compile_suite
from quality_py.runners.data_quality import rule_runner_sql

COLS = 27
SET_SIZE = 14


def rule_text(k: int) -> str:
    return f"(`{k % COLS}` % {2 + k // COLS}) = 0"


def gen_suite(n: int) -> RuleSuite:
    sets = []
    for s, start in enumerate(range(0, n, SET_SIZE)):
        rules = [Rule(Id(100 + k, 1), rule_text(k)) for k in range(start, min(n, start + SET_SIZE))]
        sets.append(RuleSet(Id(50 + s, 1), rules))
    return RuleSuite(Id(1, 1), sets)


def hand_written(df: Any, n: int) -> Any:
    return df.selectExpr("*", *[f"{rule_text(k)} AS r{k}" for k in range(n)])


def plan_time(df: Any) -> float:
    start = time.perf_counter()
    df._jdf.queryExecution().executedPlan()  # analysis + optimisation + physical planning
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="27,150,1000")
    ap.add_argument("--plan-rules", default="10,100,1000,5000")
    args = ap.parse_args()
    spark = spark_session()
    df = long_data(spark, args.rows, COLS)
    for _ in range(3):  # warm the JVM before the first baseline
        noop(df)
    results: dict[str, Any] = {"rows": args.rows, "runs": args.runs, "cases": {}, "planning": {}}
    for n in [int(x) for x in args.rules.split(",") if x]:
        suite = gen_suite(n)
        case = {
            "noop": timed(lambda: noop(df), args.runs),
            "hand": timed(lambda n=n: noop(hand_written(df, n)), args.runs),
        }
        for layout in ("compact", "map"):
            case[layout] = timed(
                lambda s=suite, lay=layout: noop(add_data_quality(df, s, layout=lay)), args.runs
            )
        for key in ("hand", "compact", "map"):
            case[f"{key}/noop"] = case[key]["median"] / case["noop"]["median"]
        case["compact/hand"] = case["compact"]["median"] / case["hand"]["median"]
        case["map/hand"] = case["map"]["median"] / case["hand"]["median"]
        results["cases"][n] = case
        print(
            n, {k: (round(v, 3) if isinstance(v, float) else v["median"]) for k, v in case.items()}
        )
    for n in [int(x) for x in args.plan_rules.split(",") if x]:
        suite = gen_suite(n)
        start = time.perf_counter()
        compiled = compile_suite(suite)
        sql = rule_runner_sql(suite, layout="compact", compiled=compiled)
        compile_s = time.perf_counter() - start
        start = time.perf_counter()
        checked = add_data_quality(df, suite, layout="compact")
        build_s = time.perf_counter() - start  # compile again + type analysis + select
        planned = plan_time(checked)
        results["planning"][n] = {
            "python_compile_s": compile_s,
            "add_data_quality_s": build_s,
            "spark_plan_s": planned,
            "sql_chars": len(sql),
        }
        print("plan", n, results["planning"][n])
    print(save("bench_dq", results))


if __name__ == "__main__":
    main()
