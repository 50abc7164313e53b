"""Long phases show their tasks as they finish, on the console (stderr)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from quality_py.progress import watching

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


def _slow(batches: Iterator[Any]) -> Iterator[Any]:
    for batch in batches:
        time.sleep(0.5)  # each of the four tasks takes at least this long
        yield batch


def test_a_phase_shows_tasks_done_while_it_runs(
    spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = spark.range(0, 4, 1, 4).mapInPandas(_slow, "id long")
    with watching(spark, "checking and writing", every=0.05):
        assert frame.count() == 4
    lines = capsys.readouterr().err.splitlines()
    assert any(re.search(r"checking and writing: .*\d of 4 tasks", line) for line in lines)
    assert re.search(r"checking and writing: done in \d+\.\d s", lines[-1])


def test_reading_an_input_is_watched(
    spark: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from quality_py.jobs.inputs import read_input

    (tmp_path / "in.csv").write_text("a,b\n1,x\n2,y\n")
    assert read_input(spark, str(tmp_path / "in.csv"), None).count() == 2
    err = capsys.readouterr().err
    assert f"reading {tmp_path / 'in.csv'}" in err and "done in" in err
