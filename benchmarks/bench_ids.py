"""What an id per row costs: MD5 ids computed by Spark against murmur3 ids from our Arrow function.

Data: ``dataFrameLong`` (1M rows, BIGINT columns). Every case writes the input plus one id column
to ``noop``; cases interleaved, medians:

* ``noop``: the input alone;
* ``md5``: ``field_based_id('k', 'MD5', `0`, `1`, `2`)`` (Spark's ``md5``, generated code);
* ``murmur3``: ``murmur3_id('k', `0`, `1`, `2`)`` (MurmurHash3 x64 128 in an Arrow UDF over
  ``mmh3``: Spark has no 128-bit murmur3);
* ``za_xx``: ``za_field_based_id('k', 'XX', ...)`` (XXH64 chained over the fields, seeded by the
  previous field's hash, in an Arrow UDF over ``xxhash``);
* ``za_xxh3``: ``za_longs_field_based_id('k', 'XXH3', ...)`` (XXH3 128, chained likewise);
* ``za_murmur3_128``: ``za_longs_field_based_id('k', 'MURMUR3_128', ...)`` (chained with 64-bit
  seeds: MurmurHash3 in Python after the first field);
* ``xxhash64``: Spark's ``xxhash64(`0`, `1`, `2`)``, a 64-bit hash for scale (not an id of the
  original's).

Usage: ``python benchmarks/bench_ids.py [--rows N] [--runs R]``
"""

from __future__ import annotations

import argparse
from typing import Any

from bench_dq import interleaved
from common import long_data, noop, save, spark_session

from quality_py import functions as Q


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    spark = spark_session("quality_py-bench-ids")
    from pyspark.sql import functions as F

    df = long_data(spark, args.rows, 27)
    for _ in range(3):
        noop(df)
    cases = {
        "noop": df,
        "md5": df.select("*", Q.expr("field_based_id('k', 'MD5', `0`, `1`, `2`)", over=df)),
        "murmur3": df.select("*", Q.expr("murmur3_id('k', `0`, `1`, `2`)", over=df)),
        "za_xx": df.select("*", Q.expr("za_field_based_id('k', 'XX', `0`, `1`, `2`)", over=df)),
        "za_xxh3": df.select(
            "*", Q.expr("za_longs_field_based_id('k', 'XXH3', `0`, `1`, `2`)", over=df)
        ),
        "za_murmur3_128": df.select(
            "*", Q.expr("za_longs_field_based_id('k', 'MURMUR3_128', `0`, `1`, `2`)", over=df)
        ),
        "xxhash64": df.select("*", F.expr("xxhash64(`0`, `1`, `2`)")),
    }
    times = interleaved(cases, args.runs)
    med = {k: v["median"] for k, v in times.items()}
    per_row = {k: round((med[k] - med["noop"]) / args.rows * 1e9, 1) for k in med if k != "noop"}
    results: dict[str, Any] = {"rows": args.rows, "runs": args.runs, **times, "ns_per_row": per_row}
    print({k: round(v, 3) for k, v in med.items()}, "ns per row over noop:", per_row, flush=True)
    print(save("bench_ids", results))


if __name__ == "__main__":
    main()
