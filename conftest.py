"""Shared pytest fixtures: one tuned local SparkSession, created only when a test asks for it.

``tests/unit`` never requests it, so the unit tier runs without a JVM. Doctests in
``quality_py`` get the session as ``spark``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# CI runs the same examples every time (--hypothesis-profile=ci in scripts/test.sh), so a red
# run is repeatable; locally the default profile keeps exploring new examples. Examples are
# bounded by count, never by wall time (no deadline): a busy machine runs the same examples.
settings.register_profile("ci", derandomize=True, deadline=None)

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
# Every JVM started through spark-submit while the tests run (the tests' own session, a command
# line the tests start as a process of its own, a Connect server) takes the quick JIT tier and the
# serial collector (tests/jvm.py says why): one setting for every start site, present and future.
# Spark's launcher adds SPARK_SUBMIT_OPTS to the driver's command and prints nothing about it.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "")
if "TieredStopAtLevel" not in os.environ["SPARK_SUBMIT_OPTS"]:
    from tests.jvm import QUICK_JVM

    os.environ["SPARK_SUBMIT_OPTS"] = f"{os.environ['SPARK_SUBMIT_OPTS']} {QUICK_JVM}".strip()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from quality_py.spark.session import local_session
    from tests.jvm import QUICK_JVM

    session = local_session(
        "local[2]",
        "quality_py-tests",
        {
            "spark.driver.memory": "2g",
            "spark.sql.shuffle.partitions": "1",
            "spark.default.parallelism": "2",
            "spark.driver.extraJavaOptions": QUICK_JVM,
        },
    )
    yield session
    session.stop()


def _uses_spark(item: pytest.Item) -> bool:
    """Whether a doctest's examples name the session (``spark``): only those start a JVM."""
    examples = getattr(getattr(item, "dtest", None), "examples", ())
    return any("spark" in example.source for example in examples)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Doctests are marked by what they need: ``needs_spark`` (their examples use the session:
    the Spark step runs them) or ``no_spark`` (the unit step runs them, with no JVM)."""
    from _pytest.doctest import DoctestItem

    for item in items:
        if isinstance(item, DoctestItem):
            item.add_marker(pytest.mark.needs_spark if _uses_spark(item) else pytest.mark.no_spark)


@pytest.fixture(autouse=True)
def _doctest_spark(request: pytest.FixtureRequest) -> None:
    from _pytest.doctest import DoctestItem

    if isinstance(request.node, DoctestItem) and _uses_spark(request.node):
        request.getfixturevalue("doctest_namespace")["spark"] = request.getfixturevalue("spark")
