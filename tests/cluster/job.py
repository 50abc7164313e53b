"""The work compared between a standalone cluster and local[2] (run as its own process).

``python job.py MASTER OUT``: the flights main job on the first four months (rulesets/flights.yaml
with its checks, a quality run writing valid / quarantine / stats under OUT; :data:`MONTHS`), then dataset states of two months
saved to a state store under OUT (frequency tables are written by executors) and merged back.
Prints one JSON line with what the driver saw.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The rows the quality run checks: a third of the sample (about 110,000 flights over many
#: partitions) keeps the comparison's meaning at a third of its cost in the test command's budget.
MONTHS = "month <= 4"


def main(master: str, out: Path) -> None:
    from quality_py import FileStateStore, run_analyzers, run_quality
    from quality_py.dataset import (
        ApproxCountDistinct,
        Completeness,
        Entropy,
        Mean,
        Size,
        Uniqueness,
    )
    from quality_py.io.yaml_rulesets import load_ruleset_and_checks
    from quality_py.model.policy import RulePolicy
    from quality_py.spark.samples import SAMPLE_VIEWS, load_sample
    from quality_py.spark.session import local_session

    spark = local_session(master, conf={"spark.executor.memory": "1g"})
    flights = load_sample(spark, "flights")
    suite, checks = load_ruleset_and_checks(ROOT / "rulesets" / "flights.yaml")
    suite = suite.with_policy(RulePolicy().with_views(*SAMPLE_VIEWS["flights"]))
    run = run_quality(flights.where(MONTHS), suite, checks, run_id="compare")
    summary = run.write(str(out / "valid"), str(out / "quarantine"), str(out / "stats"))
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
                "rows": [summary.input_rows, summary.valid_rows, summary.quarantined_rows],
                "dropped": summary.dropped_rows,
                "rules": {
                    f"{r.rule_id.id}": [r.passed, r.failed, r.soft_failed, r.disabled, r.failing]
                    for r in (summary.rules.rules if summary.rules else ())
                },
                "merged": {repr(a): merged.metrics[a] for a in analyzers},
                "direct": {repr(a): both.metrics[a] for a in analyzers},
            },
            sort_keys=True,
        )
    )
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
