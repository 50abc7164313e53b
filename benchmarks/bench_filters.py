"""Per-rule filters against a hand-written baseline of the same run (issue 29).

Workload: ``bench_dq``'s rules over ``dataFrameLong`` (1M rows), each with a filter
``(`c'` % 3) <> 0`` on another column (a third of the rows disabled per rule). Cases, each ending
in a ``noop`` write, interleaved per round:

* ``hand``: what a Spark expert writes for the same answer as the compact layout: per rule
  ``CASE WHEN filter THEN (CASE WHEN rule THEN 100000 ELSE 0 END) ELSE -2 END`` computed once,
  then each rule set's and the overall result (a least over the codes with -2 read as passed)
  in a struct of two int arrays;
* ``ours``: ``add_data_quality`` (compact) of the suite with ``filter`` on every rule;
* ``ours_unfiltered`` and ``hand_unfiltered``: the same rules without filters (bench_dq's pair),
  for the cost a filter adds on each side.

Usage: ``python benchmarks/bench_filters.py [--rows N] [--runs R] [--rules 27,150]``
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from bench_dq import COLS, SET_SIZE, gen_suite, hand_written_codes, interleaved, rule_text
from common import long_data, save, spark_session

from quality_py import RuleSuite, add_data_quality


def filter_text(k: int) -> str:
    return f"(`{(k + 1) % COLS}` % 3) <> 0"


def filtered_suite(n: int) -> RuleSuite:
    suite = gen_suite(n)
    k = iter(range(n))
    sets = [
        replace(rs, rules=[replace(r, filter=filter_text(next(k))) for r in rs.rules])
        for rs in suite.rule_sets
    ]
    return replace(suite, rule_sets=sets)


def hand_filtered(df: Any, n: int) -> Any:
    codes = [
        f"CASE WHEN {filter_text(k)} THEN (CASE WHEN {rule_text(k)} THEN 100000 ELSE 0 END) "
        f"ELSE -2 END AS __c{k}"
        for k in range(n)
    ]
    sets = [list(range(s, min(n, s + SET_SIZE))) for s in range(0, n, SET_SIZE)]

    def least(ks: list[int]) -> str:
        parts = [f"IF(__c{k} = -2, 100000, __c{k})" for k in ks]
        return f"least({', '.join(parts)})" if len(parts) > 1 else parts[0]

    struct = (
        "named_struct('id', CAST(4294967297 AS BIGINT), "
        f"'overallResult', {least(list(range(n)))}, "
        f"'ruleSetResults', array({', '.join(least(ks) for ks in sets)}), "
        f"'ruleResults', array({', '.join(f'__c{k}' for k in range(n))})) AS DataQuality"
    )
    staged = df.selectExpr("*", *codes)
    return staged.selectExpr(*[f"`{c}`" for c in df.columns], struct)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="27,150")
    args = ap.parse_args()
    spark = spark_session("quality_py-bench-filters")
    df = long_data(spark, args.rows, COLS)
    out: dict[str, Any] = {"rows": args.rows, "runs": args.runs, "by_rules": {}}
    for n in (int(x) for x in args.rules.split(",")):
        ours = add_data_quality(df, filtered_suite(n), layout="compact")
        hand = hand_filtered(df, n)
        # the same answer before any timing: every row's codes and results
        diff = ours.select("DataQuality").exceptAll(hand.select("DataQuality")).limit(1).count()
        assert diff == 0, "the filtered column and the hand-written one disagree"
        cases = {
            "hand": hand,
            "ours": ours,
            "hand_unfiltered": hand_written_codes(df, n),
            "ours_unfiltered": add_data_quality(df, gen_suite(n), layout="compact"),
        }
        times = interleaved(cases, args.runs)
        med = {k: v["median"] for k, v in times.items()}
        out["by_rules"][n] = {
            "times": times,
            "ours_over_hand": round(med["ours"] / med["hand"], 3),
            "unfiltered_ours_over_hand": round(med["ours_unfiltered"] / med["hand_unfiltered"], 3),
        }
        print(n, {k: round(v, 3) for k, v in med.items()}, out["by_rules"][n]["ours_over_hand"])
    print(save("filters", out))


if __name__ == "__main__":
    main()
