"""The state store on a cluster (run as its own process): dataset states of two months of the
flights saved to a state store under OUT (frequency tables are written by executors) and merged
back, beside an analysis of both months at once.

``python job.py MASTER OUT`` prints one JSON line with what the driver saw.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(master: str, out: Path) -> None:
    from quality_py import FileStateStore, run_analyzers
    from quality_py.dataset import (
        ApproxCountDistinct,
        Completeness,
        Entropy,
        Mean,
        Size,
        Uniqueness,
    )
    from quality_py.spark.samples import load_sample
    from quality_py.spark.session import local_session
    from tests.jvm import QUICK_JVM

    # the executors' JVM options come from the cluster's spark-defaults.conf
    conf = {"spark.executor.memory": "1g", "spark.driver.extraJavaOptions": QUICK_JVM}
    spark = local_session(master, conf=conf)
    flights = load_sample(spark, "flights")
    analyzers = [
        Size(),
        Completeness("tailnum"),
        Mean("dep_delay"),
        ApproxCountDistinct("tailnum"),
        Uniqueness(["year", "month", "day", "carrier", "flight"]),
        Entropy("carrier"),
    ]
    store = FileStateStore(str(out / "states"))
    for month in (1, 2):
        store.save(f"month={month}", run_analyzers(flights.where(f"month = {month}"), analyzers))
    merged = store.load("month=1").merge(store.load("month=2"))
    both = run_analyzers(flights.where("month IN (1, 2)"), analyzers)
    print(
        json.dumps(
            {
                "executors": spark.sparkContext.getConf().get("spark.master"),
                "merged": {repr(a): merged.metrics[a] for a in analyzers},
                "direct": {repr(a): both.metrics[a] for a in analyzers},
            },
            sort_keys=True,
        )
    )
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
