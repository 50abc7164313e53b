"""The rule engine and folder rulesets on the real flights sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import fold_and_replace_fields, rule_engine_with_struct
from quality_py.io.yaml_rulesets import load_ruleset
from quality_py.spark.samples import load_sample

pytestmark = pytest.mark.wiring  # the sample rulesets end to end

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"


def test_engine_categorises_every_flight(spark: Any) -> None:
    flights = load_sample(spark, "flights")
    suite = load_ruleset(RULESETS / "flights_engine.yaml")
    out = rule_engine_with_struct(flights, suite, "string", "category")
    counts = {
        r.c: r["count"] for r in out.groupBy(out.category.result.alias("c")).count().collect()
    }
    assert sum(counts.values()) == 336776
    assert counts["cancelled"] == 8255  # flights without a departure time
    assert counts["cancelled"] + counts["diverted"] == 9430  # flights without an arrival delay
    assert counts["late"] > counts["severely late"] > 0
    assert None not in counts  # the catch-all rule always fires


def test_folder_defaults_missing_values(spark: Any) -> None:
    flights = load_sample(spark, "flights")
    suite = load_ruleset(RULESETS / "flights_folder.yaml")
    out = fold_and_replace_fields(flights, suite, ["tailnum", "dep_delay", "air_time"])
    assert out.columns == [*flights.columns, "foldedFields"]
    row = out.selectExpr(
        "count_if(tailnum IS NULL) AS no_tail",
        "count_if(tailnum = 'UNKNOWN') AS unknown",
        "count_if(dep_delay IS NULL) AS no_delay",
        "count(1) AS n",
    ).first()
    assert (row.no_tail, row.unknown, row.no_delay, row.n) == (0, 2512, 0, 336776)
