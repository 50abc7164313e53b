"""What a quality run costs over writing the data-quality column once.

Data: ``dataFrameLong`` (1,000,000 rows, 27 BIGINT columns, parquet). Rules: rule ``k`` is
``(`c` % (1000 + k)) <> 7`` on column ``k % 27``, so each fails ~0.1% of rows and about 2.7% of
rows fail something (a realistic quarantine). Half the rules drop, half are ignored. Every case
writes parquet to a scratch directory (overwrite), cases interleaved, medians after a warm-up:

* ``plain``: the input written as is (baseline);
* ``dq``: ``add_data_quality`` (compact) written once;
* ``run``: ``run_quality(...).write(valid, quarantine)``: two writes, counts observed;
* ``run + fail``: the same plus one ``fail`` rule that never fails: one aggregation first;
* ``hand``: what a Spark expert writes for the same outputs: the rule codes computed once, one
  aggregation of the per-rule failures and nulls, then quarantine (input columns, the codes and
  overall result in a struct, run id and time, kept flag, the failed rules' ids) and valid.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time

from common import long_data, save, spark_session

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality, run_quality

COLS = 27


def suite_of(n: int, with_fail: bool) -> RuleSuite:
    rules = [
        Rule(
            Id(100 + k, 1),
            f"(`{k % COLS}` % {1000 + k}) <> 7",
            action_if_failed="drop" if k % 2 else "ignore",
        )
        for k in range(n)
    ]
    if with_fail:
        rules.append(Rule(Id(99, 1), "`0` >= 0", action_if_failed="fail"))
    return RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), rules)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rules", type=int, default=27)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    spark = spark_session("quality_py-bench-actions")
    df = long_data(spark, args.rows, COLS)
    scratch = tempfile.mkdtemp(prefix="qp-actions-")
    plain_suite, fail_suite = suite_of(args.rules, False), suite_of(args.rules, True)

    def plain() -> None:
        df.write.mode("overwrite").parquet(f"{scratch}/plain")

    def dq() -> None:
        checked = add_data_quality(df, plain_suite, layout="compact")
        checked.write.mode("overwrite").parquet(f"{scratch}/dq")

    def run() -> None:
        run_quality(df, plain_suite, run_id="b").write(f"{scratch}/v", f"{scratch}/q")

    def run_fail() -> None:
        run_quality(df, fail_suite, run_id="b").write(f"{scratch}/vf", f"{scratch}/qf")

    def hand() -> None:
        n = args.rules
        conds = [f"(`{k % COLS}` % {1000 + k}) <> 7" for k in range(n)]
        flagged = df.selectExpr(
            "*",
            *[f"({c}) AS __v{k}" for k, c in enumerate(conds)],
        ).selectExpr(
            "*",
            *[f"CASE WHEN __v{k} THEN 100000 ELSE 0 END AS __c{k}" for k in range(n)],
        )
        drops = " OR ".join(f"__c{k} = 0" for k in range(n) if k % 2) or "false"
        flagged = flagged.selectExpr(
            "*",
            f"({drops}) AS __drop",
            f"least({', '.join(f'__c{k}' for k in range(n))}) = 0 AS __any",
        )
        counts = [f"count_if(__c{k} = 0)" for k in range(n)]
        counts += [f"count_if(__v{k} IS NULL)" for k in range(n)]
        flagged.selectExpr("count(1)", "count_if(__drop)", "count_if(__any)", *counts).collect()
        ids = ", ".join(f"IF(__c{k} = 0, {100 + k}, NULL)" for k in range(n))
        flagged.where("__any").selectExpr(
            *[f"`{c}`" for c in df.columns],
            "named_struct('overallResult', 0, 'ruleResults', array("
            + ", ".join(f"__c{k}" for k in range(n))
            + ")) AS DataQuality",
            "'b' AS qp_run_id",
            "current_timestamp() AS qp_run_time",
            "NOT __drop AS qp_kept_in_valid",
            f"filter(array({ids}), x -> x IS NOT NULL) AS qp_failed_rules",
        ).write.mode("overwrite").partitionBy("qp_run_id").parquet(f"{scratch}/hq")
        flagged.where("NOT __drop").select(*[f"`{c}`" for c in df.columns]).write.mode(
            "overwrite"
        ).parquet(f"{scratch}/hv")

    cases = {"plain": plain, "dq": dq, "run": run, "run + fail": run_fail, "hand": hand}
    for fn in cases.values():
        fn()  # warm-up
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    medians = {k: statistics.median(v) for k, v in times.items()}
    summary = run_quality(df, plain_suite, run_id="b").write(f"{scratch}/v", f"{scratch}/q")
    print(
        f"{args.rows} rows, {args.rules} rules; quarantined {summary.quarantined_rows}, "
        f"dropped {summary.dropped_rows}; medians of {args.runs}"
    )
    for name, m in medians.items():
        print(
            f"  {name:12s} {m:7.3f} s   {m / medians['dq']:.2f} x dq   "
            f"{m / medians['plain']:.2f} x plain   {m / medians['hand']:.2f} x hand"
        )
    save("bench_actions", {"runs": times, "medians": medians})
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
