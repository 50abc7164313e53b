"""When the data was last written (issue 55, point 3): ``was_written_within`` reads the files'
own modification times through Spark's hidden ``_metadata`` column, per batch and, with a table
state, for the table. Each file here is written by pyarrow and its time set by ``os.utime`` to
a time chosen by hand, so every expected age is subtraction by hand."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from quality_py import OverTime, TableState
from quality_py.dataset.checks import Check, verify
from quality_py.errors import CheckDefinitionError

pytestmark = pytest.mark.semantics  # what Spark's file sources report of their files

NOW = "2026-11-29T12:00:00Z"
#: 2026-11-29 00:00:00 UTC, in seconds since the epoch (20,786 days)
MIDNIGHT = 20_786 * 86_400


def _file(path: Path, keys: list[int], written: int) -> Path:
    """A parquet file of ``keys`` whose modification time is ``written`` (epoch seconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"k": pa.array(keys, pa.int64())}), path)
    os.utime(path, (written, written))
    return path


def _ages(df: Any, *checks: Check, over_time: OverTime | None = None) -> list[Any]:
    return [(r.passed, r.metric) for r in verify(df, list(checks), over_time=over_time).results]


def test_the_age_is_the_newest_file_s(spark: Any, tmp_path: Path) -> None:
    _file(tmp_path / "t" / "a.parquet", [1, 2], MIDNIGHT - 86_400)  # 11-28 00:00
    _file(tmp_path / "t" / "b.parquet", [3], MIDNIGHT + 6 * 3600)  # 11-29 06:00
    df = spark.read.parquet(str(tmp_path / "t"))
    check = Check("warning", "w").was_written_within("1 day", now=NOW)
    tight = Check("warning", "w").was_written_within("5 hours", now=NOW)
    assert _ages(df, check, tight) == [(True, 6 * 3600.0), (False, 6 * 3600.0)]
    # a filter keeps the rows of a.parquet only: the newest file holding the batch's rows
    assert _ages(df.where("k < 3").select("k"), check) == [(False, 36 * 3600.0)]
    message = verify(df, [tight]).results[0].message
    assert "the last write, 2026-11-29T06:00:00Z" in message


def test_with_a_table_state_it_is_the_table_s_newest_write(spark: Any, tmp_path: Path) -> None:
    """Two daily partitions in folders of their own; the state keeps each one's newest write,
    so a run of an older partition still answers with the table's newest."""
    state = tmp_path / "state"
    check = Check("warning", "w").was_written_within("1 day", now=NOW)

    def run(day: str, written: int) -> list[Any]:
        _file(tmp_path / day / "part.parquet", [1], written)
        table = OverTime(table_state=TableState(state, f"day={day}"))
        return _ages(spark.read.parquet(str(tmp_path / day)), check, over_time=table)

    assert run("2026-11-28", MIDNIGHT - 3 * 3600) == [(True, 15 * 3600.0)]
    assert run("2026-11-29", MIDNIGHT + 9 * 3600) == [(True, 3 * 3600.0)]
    # the first day re-run, its file rewritten two days ago: the table's newest stays 09:00
    assert run("2026-11-28", MIDNIGHT - 2 * 86_400) == [(True, 3 * 3600.0)]


def test_a_quality_run_reads_it_from_its_input_beside_rules_over_rows(
    spark: Any, tmp_path: Path
) -> None:
    """A run computes it over its input as read, not over its flagged rows: a rule over rows
    (a window) and the observed write change nothing."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality

    _file(tmp_path / "in" / "a.parquet", [1, 1, 2], MIDNIGHT - 12 * 3600)
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "count(*) over (partition by k) = 1")])]
    )
    checks = [Check("warning", "w").was_written_within("1 day", now=NOW).has_size("== 3")]
    df = spark.read.parquet(str(tmp_path / "in"))
    summary = run_quality(df, suite, checks).write(str(tmp_path / "valid"))
    assert summary.checks is not None
    assert [r.metric for r in summary.checks.results] == [24 * 3600.0, 3.0]


def test_data_not_read_from_files_is_refused_naming_the_check(spark: Any, tmp_path: Path) -> None:
    from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality

    check = Check("warning", "written").was_written_within("1 day")
    memory = spark.createDataFrame([(1,)], "k int")
    with pytest.raises(CheckDefinitionError, match=r"was_written_within: .*not read from files"):
        verify(memory, [check])
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "k > 0")])])
    named = r"check 'written', written within 1 day \(last write at most 1 day old\): the write"
    with pytest.raises(CheckDefinitionError, match=named):
        run_quality(memory, suite, [check])
    # a column of the data named _metadata hides the files' own: refused, not read as times
    _file(tmp_path / "m" / "a.parquet", [1], MIDNIGHT)
    hiding = spark.read.parquet(str(tmp_path / "m")).selectExpr("k", "k AS _METADATA")
    with pytest.raises(CheckDefinitionError, match="named _metadata"):
        verify(hiding, [check])


def test_validation_asks_data_read_from_files_and_never_a_schema_alone(
    spark: Any, tmp_path: Path
) -> None:
    """A schema alone has no files: validating against it says nothing of the last write (a
    run reads the data); data at hand that has none is refused, as its run would be."""
    from quality_py import Id, Rule, RuleSet, RuleSuite
    from quality_py.validation import validate

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "k > 0")])])
    checks = [Check("error", "written").was_written_within("1 day")]
    _file(tmp_path / "t" / "a.parquet", [1], MIDNIGHT)
    files = spark.read.parquet(str(tmp_path / "t"))
    assert not [f for f in validate(suite, files.schema, checks=checks).findings if f.is_error]
    assert not [f for f in validate(suite, files, checks=checks).findings if f.is_error]
    memory = spark.createDataFrame([(1,)], "k bigint")
    found = [f.message for f in validate(suite, memory, checks=checks).findings if f.is_error]
    assert len(found) == 1 and "not read from files" in found[0]


def _delta_times(root: Path, data: int, commits: dict[int, int]) -> None:
    """Every data file of the Delta table at ``root`` written at ``data``, and commit file
    ``<version>.json`` at ``commits[version]`` (epoch seconds, by hand)."""
    for path in root.rglob("*.parquet"):
        os.utime(path, (data, data))
    for version, when in commits.items():
        os.utime(root / "_delta_log" / f"{version:020d}.json", (when, when))


def test_a_delta_table_s_age_is_its_last_commit_s(spark: Any, tmp_path: Path) -> None:
    """A partitioned Delta table written by delta-rs (the ``deltalake`` package, a writer of
    its own): the age is its newest commit's (its log file's time, the protocol's commit
    timestamp without in-commit timestamps), not its data files'; a commit that only removes a
    file moves it. Its folder's name has a space (the files' paths are URL-encoded)."""
    deltalake = pytest.importorskip("deltalake")
    root = tmp_path / "delta table"
    check = Check("warning", "w").was_written_within("1 day", now=NOW)
    deltalake.write_deltalake(
        str(root), pa.table({"k": [1, 2], "day": ["a", "b"]}), partition_by=["day"]
    )
    deltalake.write_deltalake(str(root), pa.table({"k": [3], "day": ["c"]}), mode="append")
    # data 11-28 00:00 (36 h before NOW); commits 11-28 00:00 and 11-29 06:00 (6 h)
    _delta_times(root, MIDNIGHT - 86_400, {0: MIDNIGHT - 86_400, 1: MIDNIGHT + 6 * 3600})

    def live() -> Any:  # the table's current files, as a Delta reader reads them
        return spark.read.parquet(*map(unquote, deltalake.DeltaTable(str(root)).file_uris()))

    assert _ages(live(), check) == [(True, 6 * 3600.0)]
    deltalake.DeltaTable(str(root)).delete("k = 3")  # removes day=c's one file, writes none
    _delta_times(root, MIDNIGHT - 86_400, {2: MIDNIGHT + 9 * 3600})
    assert live().count() == 2
    assert _ages(live(), check) == [(True, 3 * 3600.0)]  # the delete at 09:00
    # the same files read as plain Parquet from outside the table folder: no log, their times
    copy = tmp_path / "copy"
    _file(copy / "a.parquet", [1], MIDNIGHT - 86_400)
    assert _ages(spark.read.parquet(str(copy)), check) == [(False, 36 * 3600.0)]
    # files that are not the table's take their own times (36 h), never its commit's (3 h): a
    # folder inside the table's root that is no partition of it, and the table's files read
    # together with a file outside it, sorting after them or before them
    inside = _file(root / "backup" / "x.parquet", [9], MIDNIGHT - 86_400)
    assert _ages(spark.read.parquet(str(inside)), check) == [(False, 36 * 3600.0)]
    after = _file(tmp_path / "zzz" / "y.parquet", [8], MIDNIGHT - 86_400)
    uris = [*map(unquote, deltalake.DeltaTable(str(root)).file_uris())]
    for other in (after, copy / "a.parquet"):
        mixed = spark.read.parquet(*uris, str(other))
        assert _ages(mixed, check) == [(False, 36 * 3600.0)], other
