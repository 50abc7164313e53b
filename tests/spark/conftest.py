"""Fixtures shared by the Spark tests."""

from __future__ import annotations

from collections.abc import Iterator
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


#: The longest files (seconds on this machine, newest Spark), scheduled first: with
#: ``--dist loadfile`` a worker takes the next file when it is free, so a long file taken last
#: leaves the other worker idle at the end (longest first keeps both busy until the end).
LONGEST_FIRST = (
    "test_over_time_flights.py",  # ~125 s: a history of four months through the command line
    "test_function_fuzz.py",  # ~110 s
    "test_doc_examples.py",  # ~100 s
    "test_cli.py",  # ~60 s
    "test_publish_killed.py",  # ~60 s
    "test_dataset_sketches_grouping.py",
    "test_result_coding.py",
    "test_aggregate_containment.py",
    "test_edit_preview.py",
    "test_convert_round_trip.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first, every file's tests kept together and in their order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort
