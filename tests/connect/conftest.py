"""A local Spark Connect session (pyspark 4 ships the server). Run this directory on its own:
a classic session in the same process would conflict with the local Connect server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def connect() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.remote("local[2]")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    assert type(session).__module__.startswith("pyspark.sql.connect")
    yield session
    session.stop()
