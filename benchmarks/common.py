"""Shared benchmark helpers: session, data generation, timing with medians.

Results are reported as ratios against baselines measured in the same run (the machine is noisy).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results"


def spark_session(app: str = "quality_py-bench") -> Any:
    """A local[2] session tuned as in the tests, with a 4g driver (wide rows)."""
    from quality_py.spark.session import local_session

    conf = {"spark.driver.memory": "4g", "spark.sql.shuffle.partitions": "2"}
    return local_session("local[2]", app, conf)


def long_data(spark: Any, rows: int, cols: int) -> Any:
    """The original's ``dataFrameLong``: BIGINT columns "0".."cols-1" with value row + col index.

    Written once to parquet under ``benchmarks/data`` and read back, so every case scans the same
    files.
    """
    path = DATA / f"long_{rows}x{cols}.parquet"
    if not path.exists():
        from pyspark.sql import functions as F

        df = spark.range(0, rows, 1, 2).select(
            *[(F.col("id") + i).alias(str(i)) for i in range(cols)]
        )
        df.write.mode("overwrite").parquet(str(path))
    return spark.read.parquet(str(path))


def noop(df: Any) -> None:
    """Run the whole plan without writing anything."""
    df.write.format("noop").mode("overwrite").save()


def timed(fn: Callable[[], Any], runs: int, warmup: int = 1) -> dict[str, Any]:
    """Median and all wall times of ``runs`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return {"median": statistics.median(times), "runs": [round(t, 3) for t in times]}


def save(name: str, payload: dict[str, Any]) -> Path:
    """Write results as JSON under ``benchmarks/results``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(payload, indent=2))
    return out
