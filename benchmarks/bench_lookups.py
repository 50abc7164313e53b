"""Ways to run ``map_lookup('m', key)`` against a hand-written join, on the same data.

Data: ``dataFrameLong`` (1M rows, BIGINT columns); the key is ``"0" % size`` (every row finds
its key) and the map has ``size`` entries ``key -> key * 3`` (10k and 1M entries). Every case
ends in a ``noop`` write of the input plus the looked-up value; cases interleaved, medians:

* ``hand``: ``df.join(broadcast(m), "key", "left")`` (what a Spark expert writes for a small map;
  for 1M entries the hint is dropped and Spark picks its own join);
* ``subquery``: the correlated scalar subquery ``(SELECT max(value) FROM m WHERE m.key = k)``,
  which Spark decorrelates into an aggregate and a left join (sort-merge for a 1M-entry map);
* ``hinted``: the same with ``/*+ BROADCAST(m) */``, which reaches the decorrelated join: what
  ``map_lookup`` compiles to;
* ``map_value``: ``element_at((SELECT map_from_entries(collect_list(struct(key, value))) FROM m),
  k)``: the whole map as one value, computed once, then a hash lookup per row (no join); 3.3x the
  join at 10k entries, and at 1M entries one run did not finish in 10 minutes, so it is skipped
  above ``--whole-map-max`` entries.

``map_lookup`` compiles to the ``hinted`` form (quality_py/sql/library/lookups.py).

Usage: ``python benchmarks/bench_lookups.py [--rows N] [--runs R] [--sizes 10000,1000000]``
"""

from __future__ import annotations

import argparse
from typing import Any

from bench_dq import interleaved
from common import long_data, noop, save, spark_session

COLS = 27


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="10000,1000000")
    ap.add_argument(
        "--whole-map-max",
        type=int,
        default=100_000,
        help="skip map_value above this many entries (at 1M it ran over 10 minutes)",
    )
    args = ap.parse_args()
    spark = spark_session("quality_py-bench-lookups")
    from pyspark.sql import functions as F

    df = long_data(spark, args.rows, COLS)
    for _ in range(3):
        noop(df)
    results: dict[str, Any] = {"rows": args.rows, "runs": args.runs, "sizes": {}}
    for size in [int(s) for s in args.sizes.split(",") if s]:
        spark.range(size).selectExpr("id AS key", "id * 3 AS value").createOrReplaceTempView("m")
        spark.catalog.cacheTable("m")
        spark.table("m").count()
        keyed = df.withColumn("k", F.expr(f"`0` % {size}"))
        hand = keyed.join(F.broadcast(spark.table("m")).withColumnRenamed("key", "k"), "k", "left")
        sub = keyed.alias("main").selectExpr(
            "*", "(SELECT max(value) FROM m WHERE m.key = main.k) AS value"
        )
        hinted = keyed.alias("main").selectExpr(
            "*", "(SELECT /*+ BROADCAST(m) */ max(value) FROM m WHERE m.key = main.k) AS value"
        )
        whole = keyed.selectExpr(
            "*",
            "element_at((SELECT map_from_entries(collect_list(struct(key, value))) FROM m), k) "
            "AS value",
        )
        legs = {"hand": hand, "subquery": sub, "hinted": hinted, "map_value": whole}
        if size > args.whole_map_max:
            del legs["map_value"]
        checks = {
            name: frame.selectExpr("sum(value) AS s", "count(value) AS n").first()
            for name, frame in legs.items()
        }
        assert len({(c.s, c.n) for c in checks.values()}) == 1, checks
        cases = {"noop": keyed, **legs}
        times = interleaved(cases, args.runs)
        med = {k: v["median"] for k, v in times.items()}
        ratios = {f"{k}/hand": round(med[k] / med["hand"], 2) for k in legs if k != "hand"}
        results["sizes"][size] = {**times, "ratios": ratios}
        print(size, {k: round(v, 3) for k, v in med.items()}, ratios, flush=True)
        spark.catalog.uncacheTable("m")
    print(save("bench_lookups", results))


if __name__ == "__main__":
    main()
