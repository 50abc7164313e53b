"""The file metrics repository: round trips, filters, checksums, concurrent writers."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.history import FileMetricsRepository, HistoryError, Metric, RunRecord

T0 = datetime(2026, 3, 1, 23, 30, tzinfo=timezone.utc)


def record(i: int, **tags: str) -> RunRecord:
    return RunRecord(
        f"run-{i}",
        T0 + timedelta(hours=12 * i),
        "quality_run",
        "1.1",
        "success" if i % 3 else "failed",
        tags,
        (Metric("rows", "run", "input_rows", float(100 + i)), Metric("rule", "7.1", "failed", 2.0)),
        None if i % 3 else "a fail rule failed",
    )


def test_round_trip_and_filters(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    for i in range(6):
        repo.save(record(i, table="flights" if i < 4 else "planes", month=str(i)))
    got = repo.records()
    assert [r.run_id for r in got] == [f"run-{i}" for i in range(6)]
    assert got[0] == record(0, table="flights", month="0")
    # [since, until): run i is at T0 + 12h * i
    window = repo.records(since=T0 + timedelta(hours=12), until=T0 + timedelta(hours=48))
    assert [r.run_id for r in window] == ["run-1", "run-2", "run-3"]
    assert [r.run_id for r in repo.records(tags={"table": "planes"})] == ["run-4", "run-5"]
    assert [r.run_id for r in repo.records(since="2026-03-02", tags={"table": "flights"})] == [
        "run-1", "run-2", "run-3",
    ]  # fmt: skip
    assert repo.records(suite="9.9") == []
    # one folder per UTC day
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04",
    ]  # fmt: skip


def test_a_changed_record_is_refused_with_its_name(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    repo.save(record(1))
    (path,) = tmp_path.glob("*/v*.json")
    payload = json.loads(path.read_text())
    payload["record"]["metrics"][0]["value"] = 1e9
    path.write_text(json.dumps(payload))
    with pytest.raises(HistoryError, match="does not match its checksum") as err:
        repo.records()
    assert str(path) in str(err.value)
    path.write_text(json.dumps({**payload, "format": "other/9"}))
    with pytest.raises(HistoryError, match="has format 'other/9'"):
        repo.records()
    path.write_text("{not json")
    with pytest.raises(HistoryError, match="is not JSON"):
        repo.records()


def test_foreign_files_and_temporaries_are_ignored(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    repo.save(record(1))
    (tmp_path / "README").write_text("not a day")
    day = next(p for p in tmp_path.iterdir() if p.is_dir())
    (day / ".tmp-123").write_text("half a record from a crashed writer")
    assert [r.run_id for r in repo.records()] == ["run-1"]


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    same_time = [
        RunRecord(f"w{i}", T0, "verify", None, "success", {}, (Metric("rows", "run", "x", i),))
        for i in range(40)
    ]
    threads = [threading.Thread(target=repo.save, args=(r,)) for r in same_time]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.run_id for r in repo.records()) == sorted(f"w{i}" for i in range(40))


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=8), max_size=3),
    st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)), max_size=4),
)
def test_records_round_trip(tags: dict[str, str], values: list[float | None]) -> None:
    import tempfile

    metrics = tuple(Metric("metric", f"a{i}", "value", v) for i, v in enumerate(values))
    rec = RunRecord("r", T0, "verify", None, "success", tags, metrics)
    with tempfile.TemporaryDirectory() as root:
        repo = FileMetricsRepository(root)
        repo.save(rec)
        assert repo.records() == [rec]


def test_a_pyarrow_uri_repository(tmp_path: Path) -> None:
    """``file://`` goes through pyarrow's filesystem layer, as s3:// or gs:// would."""
    repo = FileMetricsRepository(tmp_path.as_uri())
    for i in range(3):
        repo.save(record(i, table="t"))
    assert [r.run_id for r in repo.records(tags={"table": "t"})] == ["run-0", "run-1", "run-2"]
    assert repo.records(until=T0) == []


def test_times_read_alike_on_every_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--since ...Z`` and fractions of any length (Python 3.10's fromisoformat refuses both);
    a time that is no time is one line naming it."""
    from quality_py.cli import main

    repo = FileMetricsRepository(tmp_path / "h")
    for hour in (1, 3):
        repo.save(
            RunRecord(
                f"r{hour}",
                datetime(2026, 1, 2, hour, tzinfo=timezone.utc),
                "verify",
                None,
                "success",
            )
        )
    assert [r.run_id for r in repo.records(since="2026-01-02T02:00:00Z")] == ["r3"]
    assert [r.run_id for r in repo.records(until="2026-01-02T02:00:00.5+00:00")] == ["r1"]
    out = tmp_path / "report.html"
    code = main(
        [
            "report",
            "--history",
            str(tmp_path / "h"),
            "--out",
            str(out),
            "--since",
            "2026-01-02T02:00:00Z",
        ]
    )
    assert code == 0 and out.exists()
    assert (
        main(
            ["report", "--history", str(tmp_path / "h"), "--out", str(out), "--since", "yesterday"]
        )
        == 2
    )
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error:")]
    assert "cannot read the time 'yesterday'" in line


def test_a_rerun_replaces_its_record(tmp_path: Path) -> None:
    """A run id recorded again (a re-run) counts once, its latest record, in every reader: the
    history's trends and anomaly baselines would otherwise count the run twice."""
    from quality_py.history.records import Metric

    repo = FileMetricsRepository(tmp_path)
    day = datetime(2026, 3, 1, tzinfo=timezone.utc)
    for rows in (10.0, 12.0):  # the run, then its re-run with corrected input
        repo.save(RunRecord("2026-03-01", day, "quality_run", "1.1", "success", {},
                            (Metric("rows", "run", "input_rows", rows),)))  # fmt: skip
    repo.save(RunRecord("2026-03-02", day, "quality_run", "1.1", "success"))
    kept = repo.records()
    assert [(r.run_id, r.value("rows", "run", "input_rows")) for r in kept] == [
        ("2026-03-01", 12.0),
        ("2026-03-02", None),
    ]
    # another suite's run of the same id is another run
    repo.save(RunRecord("2026-03-01", day, "quality_run", "2.1", "success"))
    assert len(repo.records()) == 3
