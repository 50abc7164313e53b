"""A scheduler's run id names its run end to end: written, replaced, read back exactly.

The expected directory names are Spark's own partition escaping worked out by hand (``:`` is
``%3A``, ``/`` is ``%2F``, ``=`` is ``%3D``, ``%`` is ``%25``, ``'`` is ``%27``, ``{`` is
``%7B``; space, ``+`` and letters of any script are kept)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, read_outputs, run_quality
from quality_py.cli import main
from quality_py.errors import ModelError

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

AIRFLOW = "scheduled__2026-11-23T10:00:00+00:00"
SPACED = "2026-11-23 10:00:00"
DATABRICKS = "918273645"  # what {{job.run_id}} becomes: digits only
IDS = {
    AIRFLOW: "qp_run_id=scheduled__2026-11-23T10%3A00%3A00+00%3A00",
    SPACED: "qp_run_id=2026-11-23 10%3A00%3A00",
    DATABRICKS: "qp_run_id=918273645",
    "007": "qp_run_id=007",
    "../up/a=b%c": "qp_run_id=..%2Fup%2Fa%3Db%25c",
    "it's ${HOME} über": "qp_run_id=it%27s $%7BHOME} über",
}
ODD = "it's ${spark.app.name} \\ {x}"  # a quote, a substitution, a backslash
SUITE = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "x >= 0")])])


def _frame(spark: Any, xs: list[int]) -> Any:
    return spark.createDataFrame([(i, x) for i, x in enumerate(xs)], "id int, x int")


def _by_run(frame: Any) -> dict[str, int]:
    return {r.qp_run_id: r["count"] for r in frame.groupBy("qp_run_id").count().collect()}


@pytest.mark.parametrize("publish", ["atomic", "direct"])
def test_any_printable_run_id_is_written_replaced_and_read_back(
    spark: Any, tmp_path: Path, publish: str
) -> None:
    v, q, s = (str(tmp_path / n) for n in "vqs")
    for run_id in IDS:  # each run quarantines x = -1 and -2: two rows a run
        run_quality(_frame(spark, [1, -1, -2]), SUITE, run_id=run_id).write(
            v, q, s, publish=publish
        )
    assert sorted(p.name for p in Path(q).iterdir() if p.is_dir()) == sorted(IDS.values())
    _, quarantine, stats = read_outputs(spark, None, q, s)
    assert _by_run(quarantine) == dict.fromkeys(IDS, 2)
    rows = stats.where("kind = 'rows' AND name = 'input_rows'").collect()
    assert {r.qp_run_id: r.value for r in rows} == dict.fromkeys(IDS, 3.0)
    # the same id again, now with nothing to quarantine: its partition is emptied, not doubled
    # (the directory made for an empty run is the one Spark made and reads)
    run_quality(_frame(spark, [1, 2]), SUITE, run_id=AIRFLOW).write(v, q, s, publish=publish)
    _, quarantine, _ = read_outputs(spark, None, q, s)
    assert _by_run(quarantine) == {run_id: 2 for run_id in IDS if run_id != AIRFLOW}
    # a reader with the schema in hand (any Spark reader) gets the same text
    plain = spark.read.schema(quarantine.schema).parquet(q)
    assert set(_by_run(plain)) == set(IDS) - {AIRFLOW}


def test_run_ids_that_look_like_numbers_stay_text(spark: Any, tmp_path: Path) -> None:
    """Spark would read partitions named 007 and 918273645 as the numbers 7 and 918273645."""
    v, q, s = (str(tmp_path / n) for n in "vqs")
    for run_id in ("007", DATABRICKS):
        run_quality(_frame(spark, [-1]), SUITE, run_id=run_id).write(v, q, s, publish="direct")
    _, quarantine, stats = read_outputs(spark, None, q, s)
    assert dict(quarantine.dtypes)["qp_run_id"] == "string"
    assert _by_run(quarantine) == {"007": 1, DATABRICKS: 1}
    assert {r.qp_run_id for r in stats.select("qp_run_id").distinct().collect()} == {
        "007",
        DATABRICKS,
    }


def test_run_ids_in_tables(spark: Any, tmp_path: Path) -> None:
    names = [f"qp_ids_{n}_{tmp_path.name[-6:]}".replace("-", "_") for n in "vqs"]
    try:
        tables = [f"table:{n}" for n in names]
        for run_id in (AIRFLOW, SPACED, ODD):
            run_quality(_frame(spark, [1, -1]), SUITE, run_id=run_id).write(*tables)
        # a second write of one id goes through INSERT OVERWRITE ... PARTITION (literal)
        run_quality(_frame(spark, [-1, -2, -3]), SUITE, run_id=SPACED).write(*tables)
        assert _by_run(spark.table(names[1])) == {AIRFLOW: 1, SPACED: 3, ODD: 1}
    finally:
        for name in names:
            spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize(
    ("run_id", "says"),
    [
        ("a\tb", "unprintable character U+0009"),
        (" r1", "starts or ends with a space"),
        ("r" * 201, "201 characters"),
        ("__HIVE_DEFAULT_PARTITION__", "as null"),
        (":" * 90, "longer than 255 bytes"),  # 90 x %3A = 270 bytes
    ],
)
def test_what_cannot_name_a_run_is_refused_before_any_job(
    spark: Any, run_id: str, says: str
) -> None:
    with pytest.raises(ModelError) as err:
        run_quality(_frame(spark, [1]), SUITE, run_id=run_id)
    assert err.value.code == "INVALID_ID"
    assert says in str(err.value)


RULES = """
suite: {id: 7, version: 2}
rule_sets:
  - id: 10
    rules:
      - {id: 100, name: positive, expression: "amount > 0", action_if_failed: drop}
"""


@pytest.mark.parametrize("run_id", [AIRFLOW, SPACED, DATABRICKS])
def test_a_scheduler_run_id_through_the_command_line(
    spark: Any, tmp_path: Path, run_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.csv").write_text("amount\n5\n-1\n3\n")
    v, q, s, h = (str(tmp_path / n) for n in ("v", "q", "s", "h"))
    args = ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.csv")]
    outs = ["--valid", v, "--quarantine", q, "--stats", s, "--history", h]
    report = tmp_path / "result.json"
    assert main([*args, *outs, "--run-id", run_id, "--json", str(report)]) == 0
    assert run_id in capsys.readouterr().out
    assert json.loads(report.read_text())["run_id"] == run_id
    _, quarantine, stats = read_outputs(spark, None, q, s)
    assert [r.qp_run_id for r in quarantine.collect()] == [run_id]
    assert {r.qp_run_id for r in stats.collect()} == {run_id}
    assert (Path(q) / IDS[run_id]).is_dir()
    from quality_py.history import FileMetricsRepository

    assert [r.run_id for r in FileMetricsRepository(h).records()] == [run_id]
    site = tmp_path / "site"
    assert main(["report", "--history", h, "--site", str(site)]) == 0
    pages = [p.read_text(encoding="utf-8") for p in site.rglob("*.html")]
    from html import escape

    assert any(f"<code>{escape(run_id)}</code>" in page for page in pages)
