"""Fixtures shared by the Spark tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture
def no_aqe(spark: Any) -> Iterator[Any]:
    """Adaptive execution submits shuffle stages as jobs of their own, in varying numbers;
    without it one query is exactly one job, so job counts count queries."""
    old = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    yield spark
    spark.conf.set("spark.sql.adaptive.enabled", old)


@pytest.fixture
def setting(spark: Any) -> Iterator[Callable[[str, str], None]]:
    """``setting(key, value)`` sets a session setting for one test; each is restored after (one
    the session did not have is unset again)."""
    saved: dict[str, str | None] = {}

    def set_to(key: str, value: str) -> None:
        saved.setdefault(key, spark.conf.get(key, None))
        spark.conf.set(key, value)

    yield set_to
    for key, value in saved.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)


#: The longest files (worker-seconds measured 2026-11-29 on this machine: newest Spark, then
#: pyspark 3.5 where the file runs there too), scheduled first: with ``--dist loadfile`` a worker
#: takes the next file when it is free, so a long file taken last leaves the other worker idle
#: at the end (longest first keeps both busy until the end).
LONGEST_FIRST = (
    "test_doc_examples.py",  # ~170 s: the documents' examples, several on the flights
    "test_over_time_flights.py",  # ~105 s: a history of four months through the command line
    "test_function_fuzz.py",  # ~110 s
    "test_aggregate_containment.py",  # ~60 s; ~60 s on pyspark 3.5
    "test_quality_run.py",  # ~50 s; ~65 s
    "test_dataset_sketches_grouping.py",  # ~35 s; ~55 s
    "test_pipeline_recipe.py",  # ~80 s: two spark-pipelines processes, each with its server
    "test_publish_killed.py",  # ~70 s
    "test_table_state_every_analyzer.py",  # ~40 s: six table-state steps, every analyzer
    "test_daily_flights.py",  # ~31 s: four days of a growing flights table, one refused
    "test_run_ids.py",  # ~25 s; ~43 s
    "test_result_coding.py",  # ~25 s; ~32 s
    "test_output_names.py",
    "test_user_words.py",
    "test_key_types.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first, every file's tests kept together and in their order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort
