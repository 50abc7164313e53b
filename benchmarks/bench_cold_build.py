"""A suite's first build in a fresh process, against hand-written frames built the same way.

A batch job builds its suite once, in a new driver: what it waits for is the Python compile,
Spark's analysis and Spark's plan, in a JVM that has not run them before. Each measurement
here is one fresh process (one local[2] session, 4g driver): a warm-up builds and plans a
27-rule hand-written select and a 27-rule ``add_data_quality`` (both, in every process, so
that every leg pays the same start), then the leg's frame for N rules is built and planned
(``queryExecution().executedPlan()``), and those two times are reported. No job runs.

Legs, over the same parquet (``bench_dq``'s genRules shape, N distinct rules):

* ``hand``: a hand-written ``selectExpr`` of the N rule booleans;
* ``hand_codes``: the compact layout's content by hand (``bench_dq.hand_written_codes``: the
  codes, then the overall, per-set and per-rule results in a struct);
* ``compact``: ``add_data_quality(df, suite, layout="compact")``.

Processes alternate leg by leg within each round, so machine noise hits the legs alike;
reported: medians over the rounds and their ratios to ``hand_codes``.

Usage: ``python benchmarks/bench_cold_build.py [--rules 1000,5000] [--runs 3]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

LEGS = ("hand", "hand_codes", "compact")


def child(leg: str, n: int) -> dict[str, Any]:
    """One leg's build and plan in this (fresh) process."""
    from bench_dq import gen_suite, hand_written, hand_written_codes, texts_of
    from common import long_data, spark_session

    from quality_py import add_data_quality

    spark = spark_session("quality_py-bench-cold")
    df = long_data(spark, 100_000, 27)
    hand_written(df, texts_of("27"))._jdf.queryExecution().executedPlan()  # the same warm-up
    add_data_quality(df, gen_suite(27), layout="compact")._jdf.queryExecution().executedPlan()
    texts = texts_of(str(n))
    start = time.perf_counter()
    if leg == "hand":
        frame = hand_written(df, texts)
    elif leg == "hand_codes":
        frame = hand_written_codes(df, texts)
    else:
        frame = add_data_quality(df, gen_suite(n), layout="compact")
    built = time.perf_counter() - start
    start = time.perf_counter()
    frame._jdf.queryExecution().executedPlan()
    planned = time.perf_counter() - start
    load = float(Path("/proc/loadavg").read_text().split()[0])
    spark.stop()
    return {"leg": leg, "rules": n, "build": built, "plan": planned, "load": load}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="1000,5000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("LEG", "RULES"))
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child[0], int(a.child[1]))))
        return
    here = Path(__file__).parent
    records: list[dict[str, Any]] = []
    for _ in range(a.runs):
        for n in (int(r) for r in a.rules.split(",")):
            for leg in LEGS:
                out = subprocess.run(
                    [sys.executable, str(here / Path(__file__).name), "--child", leg, str(n)],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=here,
                )
                records.append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(records[-1], flush=True)
    for n in sorted({r["rules"] for r in records}):
        total = {
            leg: statistics.median(
                r["build"] + r["plan"] for r in records if r["rules"] == n and r["leg"] == leg
            )
            for leg in LEGS
        }
        loads = [r["load"] for r in records if r["rules"] == n]
        times = ", ".join(f"{leg} {total[leg]:.2f} s" for leg in LEGS)
        ratio = total["compact"] / total["hand_codes"]
        print(f"{n} rules: {times}; compact / hand_codes {ratio:.2f}", end=" ")
        print(f"(load {min(loads):.1f}-{max(loads):.1f})")


if __name__ == "__main__":
    main()
