"""What ``agg_expr`` costs in the expression runner against the same aggregation written by hand.

Data: 1M rows of ``k`` (a string key, 1k or 100k distinct) and ``v`` (0..6), cached. Every case
writes its one-row result to ``noop``; cases interleaved, medians:

* ``hand_sum`` / ``agg_expr_sum``: ``sum(v) WHERE v > 0`` by hand, and
  ``agg_expr(v > 0, inc(v), return_sum())`` in ``typed_expression_runner``;
* ``hand_map_<keys>`` / ``map_with_<keys>``: per-key sums into a map, by hand
  (``groupBy(k).agg(sum(v))`` then ``map_from_entries(collect_list(...))``) and as
  ``agg_expr('MAP<STRING, BIGINT>', v > 0, map_with(k, e -> e + v), return_sum())`` in
  ``typed_expression_runner`` (the map itself) and ``expression_runner`` (the map as JSON text).

Usage: ``python benchmarks/bench_aggregates.py [--rows N] [--runs R]``
"""

from __future__ import annotations

import argparse
from typing import Any

from bench_dq import interleaved
from common import save, spark_session

from quality_py import Id, Rule, RuleSet, RuleSuite, expression_runner, typed_expression_runner


def _suite(text: str) -> RuleSuite:
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), text)])])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    spark = spark_session("quality_py-bench-aggregates")
    from pyspark.sql import functions as F

    cases: dict[str, Any] = {}
    frames = []
    for keys in (1_000, 100_000):
        df = spark.range(args.rows).select(
            (F.col("id") % keys).cast("string").alias("k"), (F.col("id") % 7).alias("v")
        )
        df = df.cache()
        df.count()
        frames.append(df)
        if keys == 1_000:
            cases["hand_sum"] = df.where("v > 0").agg(F.sum("v"))
            sum_suite = _suite("agg_expr(v > 0, inc(v), return_sum())")
            cases["agg_expr_sum"] = df.select(typed_expression_runner(df, sum_suite, "bigint"))
        hand = df.where("v > 0").groupBy("k").agg(F.sum("v").alias("s"))
        cases[f"hand_map_{keys}"] = hand.select(
            F.map_from_entries(F.collect_list(F.struct("k", "s")))
        )
        map_suite = _suite(
            "agg_expr('MAP<STRING, BIGINT>', v > 0, map_with(k, e -> e + v), return_sum())"
        )
        cases[f"map_with_{keys}"] = df.select(
            typed_expression_runner(df, map_suite, "map<string,bigint>")
        )
        cases[f"map_with_json_{keys}"] = df.select(expression_runner(df, map_suite))
    times = interleaved(cases, args.runs)
    med = {k: v["median"] for k, v in times.items()}
    ratios = {
        "agg_expr_sum": med["agg_expr_sum"] / med["hand_sum"],
        **{
            f"{kind}_{keys}": med[f"{kind}_{keys}"] / med[f"hand_map_{keys}"]
            for keys in (1_000, 100_000)
            for kind in ("map_with", "map_with_json")
        },
    }
    results: dict[str, Any] = {"rows": args.rows, "runs": args.runs, **times, "ratios": ratios}
    print({k: round(v, 3) for k, v in med.items()}, flush=True)
    print("ratios to hand:", {k: round(v, 2) for k, v in ratios.items()}, flush=True)
    print(save("bench_aggregates", results))


if __name__ == "__main__":
    main()
