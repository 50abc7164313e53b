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
