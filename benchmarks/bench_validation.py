"""Validate a 1000-rule suite read from a rule table: wall time and Spark jobs.

The suite is ``bench_dq.gen_suite(n)`` plus two lambdas used by every tenth rule, written to a
rules table (a DataFrame) and read back with ``read_rule_tables`` (one collect per table), then
validated against the schema of the benchmark data. Validation must run no Spark job: the
script counts jobs with the status tracker around each call. Target: under 10 s for 1000 rules.

Usage: ``python benchmarks/bench_validation.py [--rules 1000] [--runs 3]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from typing import Any

from bench_dq import COLS, gen_suite
from common import long_data, save, spark_session

from quality_py import Id, LambdaFunction, Rule, RuleSet
from quality_py.io.tables import lambdas_dataframe, read_rule_tables, rules_dataframe
from quality_py.validation import validate


def table_suite(n: int) -> Any:
    suite = gen_suite(n)
    lambdas = [
        LambdaFunction("isEven", "x -> x % 2 = 0", Id(9000, 1)),
        LambdaFunction("inRange", "(x, lo, hi) -> x BETWEEN lo AND hi", Id(9001, 1)),
    ]
    sets = []
    for rs in suite.rule_sets:
        rules = [
            Rule(r.id, f"isEven(`{k % COLS}`) OR inRange(`{k % COLS}`, 0, 10)")
            if k % 10 == 0
            else r
            for k, r in enumerate(rs.rules)
        ]
        sets.append(RuleSet(rs.id, rules))
    return replace(suite, rule_sets=sets, lambdas=lambdas)


def jobs(spark: Any) -> int:
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    spark = spark_session()
    data = long_data(spark, 1000, COLS)
    suite = table_suite(args.rules)
    rules_df = rules_dataframe(spark, suite).cache()
    lambdas_df = lambdas_dataframe(spark, suite).cache()
    rules_df.count()
    lambdas_df.count()
    read_s, validate_s, validate_jobs, read_jobs = [], [], [], []
    for _ in range(args.runs):
        before = jobs(spark)
        start = time.perf_counter()
        loaded = read_rule_tables(rules_df, lambdas_df).latest(suite.id.id)
        read_s.append(time.perf_counter() - start)
        read_jobs.append(jobs(spark) - before)
        before = jobs(spark)
        start = time.perf_counter()
        report = validate(loaded, data.schema, spark=spark)
        validate_s.append(time.perf_counter() - start)
        validate_jobs.append(jobs(spark) - before)
        assert report.ok, report.format()
    results = {
        "rules": args.rules,
        "read_table_s": round(statistics.median(read_s), 3),
        "read_table_jobs": read_jobs,
        "validate_s": round(statistics.median(validate_s), 3),
        "validate_runs_s": [round(t, 3) for t in validate_s],
        "validate_jobs": validate_jobs,
    }
    print(results)
    print(save("bench_validation", results))


if __name__ == "__main__":
    main()
