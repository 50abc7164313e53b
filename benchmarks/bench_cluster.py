"""The same generated workload on local[2] and on a standalone cluster of two 1-core workers.

``python benchmarks/bench_cluster.py [--rows 10000000] [--rules 27] [--runs 3]`` generates the
original's ``dataFrameLong`` shape (BIGINT columns, parquet, under ``benchmarks/data``), then runs,
in one driver process per master, interleaved cases ending in a ``noop`` write:

* ``noop``: read + write; ``hand_codes``: the hand-written select of the compact layout's content;
* ``compact``: ``add_data_quality(layout="compact")``;

and one aggregation of the results (per-rule failures and the overall) that must be identical on
both masters. The cluster (``tests/cluster/standalone.py``) is started and stopped here.
Results: ``benchmarks/results/bench_cluster.json``.

``--run band500@5`` runs a quality run with every output (valid, quarantine, stats) against
``bench_run.py``'s hand-written run of the same workload instead, counts checked equal before
timing, on the cluster only (``--masters local[2]`` adds the local leg).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def child(master: str, rows: int, rules: int, runs: int) -> dict[str, Any]:
    from bench_dq import COLS, gen_suite, hand_written_codes, interleaved, texts_of
    from common import long_data, noop

    from quality_py import add_data_quality
    from quality_py.spark.session import local_session

    conf = {"spark.driver.memory": "4g", "spark.executor.memory": "3g"}
    spark = local_session(master, "quality_py-bench-cluster", conf)
    df = long_data(spark, rows, COLS)
    suite = gen_suite(rules)
    compact = add_data_quality(df, suite, layout="compact")
    for _ in range(2):
        noop(df)
    hand = hand_written_codes(df, texts_of(str(rules)))
    cases = {"noop": df, "hand_codes": hand, "compact": compact}
    timing = interleaved(cases, runs)
    failures = compact.selectExpr(
        "count(*) AS rows",
        "count_if(DataQuality.overallResult = 100000) AS passed",
        *[f"count_if(DataQuality.ruleResults[{k}] = 0) AS f{k}" for k in range(rules)],
    ).first()
    spark.stop()
    return {
        "master": master,
        "timing": timing,
        "answer": failures.asDict(),
    }


def child_run(master: str, rows: int, workload: str, runs: int) -> dict[str, Any]:
    """A quality run's default outputs against the hand-written run, on ``master``."""
    import shutil
    import statistics
    import tempfile
    import time

    from bench_run import check_equal, hand_run, our_run, rule_texts, suite_of
    from common import long_data

    from quality_py.spark.session import local_session

    conf = {"spark.driver.memory": "4g", "spark.executor.memory": "3g"}
    spark = local_session(master, "quality_py-bench-cluster-run", conf)
    df = long_data(spark, rows, 27)
    texts = rule_texts(workload)
    suite = suite_of(texts)
    scratch = tempfile.mkdtemp(prefix="qp-cluster-run-", dir=str(HERE / "data"))
    hand = hand_run(df, texts, scratch)  # also the warm-up
    check_equal(our_run(df, suite, scratch, stats=True), hand, workload)
    times: dict[str, list[float]] = {"hand": [], "ours": []}
    for _ in range(runs):
        for leg, fn in (
            ("hand", lambda: hand_run(df, texts, scratch)),
            ("ours", lambda: our_run(df, suite, scratch, stats=True)),
        ):
            start = time.perf_counter()
            fn()
            times[leg].append(round(time.perf_counter() - start, 2))
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "master": master,
        "workload": workload,
        "failing_rows": hand["quarantined"],
        "runs": times,
        "medians": med,
        "ratio": round(med["ours"] / med["hand"], 2),
        "rule_rows_per_s_per_core": round(rows * len(texts) / med["ours"] / 2),
        "load_after": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--rules", type=int, default=27)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--run", help="a quality run of this bench_run.py workload (band500@5)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child and args.run:
        print(json.dumps(child_run(args.child, args.rows, args.run, args.runs)))
        return
    if args.child:
        print(json.dumps(child(args.child, args.rows, args.rules, args.runs)))
        return
    sys.path.insert(0, str(ROOT))
    from common import save

    from tests.cluster.standalone import standalone_cluster

    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{HERE}",
        "PYSPARK_PYTHON": sys.executable,
    }

    def run(master: str) -> dict[str, Any]:
        command = [sys.executable, __file__, "--child", master, "--rows", str(args.rows)]
        command += ["--rules", str(args.rules), "--runs", str(args.runs)]
        command += ["--run", args.run] if args.run else []
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    if args.run:
        with standalone_cluster(workers=2, cores=1, memory="4g") as master:
            result = run(master)
        print("cluster run", result, flush=True)
        print(save("bench_cluster_run", {"rows": args.rows, **result}))
        return
    local = run("local[2]")
    print("local", {k: round(v["median"], 2) for k, v in local["timing"].items()}, flush=True)
    with standalone_cluster(workers=2, cores=1, memory="4g") as master:
        cluster = run(master)
    print("cluster", {k: round(v["median"], 2) for k, v in cluster["timing"].items()}, flush=True)
    same = local["answer"] == cluster["answer"]
    print("identical answers:", same, local["answer"]["rows"], local["answer"]["passed"])
    print(save("bench_cluster", {"rows": args.rows, "rules": args.rules, "local": local,
                                 "cluster": cluster, "identical": same}))  # fmt: skip
    if not same:
        raise SystemExit("the cluster and local[2] disagree")


if __name__ == "__main__":
    main()
