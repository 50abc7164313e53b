"""Releasing quarantined rows (issue 56, part 5): once, atomically, judged with the valid rows
they join. Expected rows by hand from the eight rows below.

Run r1 (suite 1.1: ``amount >= 0`` drop, ``code IS NOT NULL`` ignore) publishes ids 1, 3, 5, 7
and 8 as valid and quarantines 2, 4 and 6 (dropped: negative amounts) and 8 (kept in valid: no
code). The fixed suite 1.2 accepts ``amount >= -1`` and adds ``is_unique(k)`` (drop). Released
then: id 2 (fails nothing: leaves the quarantine), id 4 (fails only the ignore rule: into valid,
and stays quarantined as kept in valid); id 6 stays dropped: its key ``f`` is valid id 7's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.actions.release import release_quarantine
from quality_py.errors import QualityError
from quality_py.history import FileMetricsRepository

pytestmark = pytest.mark.wiring  # outputs, publication and history, not Spark's semantics

ROWS = "(1, 5, 'a', 'x'), (2, -1, 'b', 'x'), (3, 5, 'c', 'x'), (4, -1, 'd', NULL), " \
       "(5, 5, 'e', 'x'), (6, -1, 'f', 'x'), (7, 5, 'f', 'x'), (8, 5, 'g', NULL)"  # fmt: skip
OLD = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [
    Rule(Id(100, 1), "amount >= 0", name="positive", action_if_failed="drop"),
    Rule(Id(101, 1), "code IS NOT NULL", name="has_code"),
])])  # fmt: skip
FIXED = RuleSuite(Id(1, 2), [RuleSet(Id(10, 1), [
    Rule(Id(100, 2), "amount >= -1", name="positive", action_if_failed="drop"),
    Rule(Id(101, 1), "code IS NOT NULL", name="has_code"),
    Rule(Id(102, 1), "is_unique(k)", name="unique_k", action_if_failed="drop"),
])])  # fmt: skip


def frame(spark: Any) -> Any:
    return spark.sql(
        "SELECT CAST(id AS INT) id, CAST(amount AS INT) amount, k, CAST(code AS STRING) code "
        f"FROM VALUES {ROWS} AS t(id, amount, k, code)"
    )


def _state(spark: Any, out: Path) -> tuple[list[int], list[tuple[int, bool, list[str]]]]:
    valid = sorted(r.id for r in spark.read.parquet(str(out / "v")).collect())
    quarantine = sorted(
        (r.id, r.qp_kept_in_valid, list(r.qp_failed_rule_names))
        for r in spark.read.parquet(str(out / "q")).where("qp_run_id = 'r1'").collect()
    )
    return valid, quarantine


def test_a_release_moves_what_now_passes_once(spark: Any, tmp_path: Path) -> None:
    out = tmp_path
    run_quality(frame(spark), OLD, run_id="r1").write(str(out / "v"), str(out / "q"))
    before = _state(spark, out)
    assert before == (
        [1, 3, 5, 7, 8],
        [(2, False, ["positive"]), (4, False, ["positive", "has_code"]),
         (6, False, ["positive"]), (8, True, ["has_code"])],
    )  # fmt: skip
    preview = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"), dry_run=True)
    assert (preview.candidates, preview.released, preview.still_quarantined) == (3, 2, 1)
    # rule by rule: "positive" had held ids 2, 4, 6 and lets 2 and 4 go; "has_code" had held
    # id 4 (beside "positive") and lets it go; id 6 is now held by "unique_k" alone
    assert [(m.rule, m.held, m.released) for m in preview.moves] == [
        ("positive", 3, 2), ("has_code", 1, 1)]  # fmt: skip
    assert preview.held_by == (("unique_k", 1),)
    assert _state(spark, out) == before  # a dry run moves nothing
    history = FileMetricsRepository(out / "history")
    done = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"), history=history)
    assert done.describe().splitlines() == [
        "release of run r1 by suite 1.2: 2 of 3 dropped rows released (1 still quarantined)",
        "  held by positive: 3 rows, 2 released",
        "  held by has_code: 1 row, 1 released",
        "  still held by unique_k: 1 row",
    ]
    assert _state(spark, out) == (
        [1, 2, 3, 4, 5, 7, 8],
        [(4, True, ["has_code"]), (6, False, ["unique_k"]), (8, True, ["has_code"])],
    )
    again = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"))
    assert (again.candidates, again.released) == (1, 0)  # id 6 only, still failing
    assert _state(spark, out)[0] == [1, 2, 3, 4, 5, 7, 8]  # nothing twice
    (record,) = history.records()
    assert (record.source, record.suite, record.tags) == ("release", "1.2", {"released_run": "r1"})
    assert record.value("release", "run", "released_rows") == 2


def test_where_chooses_the_rows_a_release_moves(spark: Any, tmp_path: Path) -> None:
    """Only the dropped rows with code 'x' (ids 2 and 6; id 4's code is null: not chosen) are
    judged: id 2 moves, id 6 stays held by its key, id 4 stays exactly as it was."""
    out = tmp_path
    run_quality(frame(spark), OLD, run_id="r1").write(str(out / "v"), str(out / "q"))
    where = "code = 'x'"
    done = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"), where=where)
    assert (done.candidates, done.released, done.still_quarantined) == (2, 1, 1)
    assert done.describe().splitlines()[0] == (
        "release of run r1 by suite 1.2: 1 of 2 dropped rows matching code = 'x' released "
        "(1 still quarantined)"
    )
    assert _state(spark, out) == (
        [1, 2, 3, 5, 7, 8],
        [(4, False, ["positive", "has_code"]), (6, False, ["unique_k"]),
         (8, True, ["has_code"])],
    )  # fmt: skip
    with pytest.raises(QualityError, match="release --where condition: reflect"):
        release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"),
                           where="reflect('java.lang.System', 'getenv', 'HOME') = ''")  # fmt: skip


@pytest.mark.parametrize("detail", ["ids", "full"])
def test_every_quarantine_form_says_its_rules(spark: Any, tmp_path: Path, detail: str) -> None:
    """A quarantine written with rule ids (packed, or the full form's structs) names the rules
    by ``id.version`` in the preview: rule 100.1 had held ids 2, 4, 6 (by hand, as above)."""
    out = tmp_path
    run_quality(frame(spark), OLD, run_id="r1").write(
        str(out / "v"), str(out / "q"), quarantine_detail=detail
    )
    preview = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"), dry_run=True)
    assert [(m.rule, m.held, m.released) for m in preview.moves] == [
        ("100.1", 3, 2), ("101.1", 1, 1)]  # fmt: skip
    assert preview.held_by == (("102.1", 1),)


def test_a_valid_output_partitioned_by_run_takes_any_run(spark: Any, tmp_path: Path) -> None:
    out = tmp_path
    for run_id in ("r1", "r2"):
        run_quality(frame(spark), OLD, run_id=run_id).write(
            str(out / "v"), str(out / "q"), partition_valid_by_run=True
        )
    done = release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"))
    assert done.released == 2
    valid = spark.read.parquet(str(out / "v"))
    by_run = {r: sorted(x.id for x in valid.where(f"qp_run_id = '{r}'").collect())
              for r in ("r1", "r2")}  # fmt: skip
    assert by_run == {"r1": [1, 2, 3, 4, 5, 7, 8], "r2": [1, 3, 5, 7, 8]}


def test_refused_where_it_cannot_be_right(spark: Any, tmp_path: Path) -> None:
    out = tmp_path
    for run_id in ("r1", "r2"):
        run_quality(frame(spark), OLD, run_id=run_id).write(str(out / "v"), str(out / "q"))
    with pytest.raises(QualityError, match="holds a later run \\(r2\\)"):
        release_quarantine(spark, FIXED, "r1", str(out / "v"), str(out / "q"))
    with pytest.raises(QualityError, match="needs them published atomically"):
        release_quarantine(spark, FIXED, "r2", str(out / "v"), str(out / "q"), format="delta")
    assert release_quarantine(spark, FIXED, "nope", str(out / "v"), str(out / "q")).released == 0


def test_the_command_line_releases(spark: Any, tmp_path: Path, capsys: Any) -> None:
    from quality_py.cli import main
    from quality_py.io.yaml_rulesets import dumps_ruleset

    out = tmp_path
    run_quality(frame(spark), OLD, run_id="r1").write(str(out / "v"), str(out / "q"))
    ruleset = out / "fixed.yaml"
    ruleset.write_text(dumps_ruleset(FIXED), "utf-8")
    args = ["release", str(ruleset), "--quarantine", str(out / "q"), "--valid", str(out / "v"),
            "--run-id", "r1"]  # fmt: skip
    assert main([*args, "--dry-run", "--json", str(out / "preview.json")]) == 0
    printed = capsys.readouterr().out
    assert "2 of 3 dropped rows would be released" in printed
    assert "still held by unique_k: 1 row" in printed
    preview = json.loads((out / "preview.json").read_text("utf-8"))
    assert preview["rules"][0] == {"rule": "positive", "held_rows": 3, "released_rows": 2}
    assert preview["still_held_by"] == [{"rule": "unique_k", "rows": 1}]
    assert main(args) == 0
    assert "2 of 3 dropped rows released" in capsys.readouterr().out
    assert _state(spark, out)[0] == [1, 2, 3, 4, 5, 7, 8]
