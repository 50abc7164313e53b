"""The default run's written schemas are the ones docs/actions.md states (issue 43).

Users' pipelines read the outputs: a column added, renamed or retyped in the default form must
change the documentation (and the CHANGELOG) with it, or this fails.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.wiring  # the schemas our outputs are written in

ROOT = Path(__file__).resolve().parents[2]


def documented() -> dict[str, list[tuple[str, str]]]:
    """The ``valid:`` / ``quarantine:`` / ``stats:`` block of docs/actions.md, as columns."""
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(valid:.*?)```", text, re.S)
    assert block, "docs/actions.md has no block of the default schemas"
    outputs: dict[str, str] = {}
    current = ""
    for line in block.group(1).splitlines():
        head = re.match(r"(\w+):\s+(.*)", line)
        if head:
            current = head.group(1)
            outputs[current] = head.group(2)
        else:
            outputs[current] += " " + line.strip()
    return {
        name: [tuple(col.strip().split(" ", 1)) for col in re.split(r",\s*(?![^<]*>)", cols)]
        for name, cols in outputs.items()
    }


def written(frame: Any) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString().upper()) for f in frame.schema.fields]


def test_default_outputs_have_the_documented_schema(spark: Any, tmp_path: Path) -> None:
    from quality_py import Id, Rule, RuleSet, RuleSuite, read_outputs, run_quality

    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(5, 1),
                [
                    Rule(Id(101, 1), "amount > 0", action_if_failed="drop", name="positive"),
                    Rule(Id(102, 1), "amount < 100"),
                ],
            )
        ],
    )
    df = spark.createDataFrame([(1, 5.0), (2, -1.0), (3, 500.0)], "id BIGINT, amount DOUBLE")
    out = {k: str(tmp_path / k) for k in ("valid", "quarantine", "stats")}
    run_quality(df, suite, run_id="r1").write(out["valid"], out["quarantine"], out["stats"])
    valid, quarantine, stats = read_outputs(spark, out["valid"], out["quarantine"], out["stats"])
    want = documented()
    # the partition column is read back last; the documented order is the written one
    q_cols = written(quarantine)
    run_id = [c for c in q_cols if c[0] == "qp_run_id"]
    assert run_id == [("qp_run_id", "STRING")]
    assert written(valid) == want["valid"]
    assert sorted(q_cols) == sorted(want["quarantine"])
    assert [c for c in q_cols if c[0] != "qp_run_id"] == [
        c for c in want["quarantine"] if c[0] != "qp_run_id"
    ]
    assert sorted(written(stats)) == sorted(want["stats"])
    names = {r.id: list(r.qp_failed_rule_names) for r in quarantine.collect()}
    assert names == {2: ["positive"], 3: ["102.1"]}  # by hand: -1 <= 0, 500 >= 100


def test_a_quarantine_keeps_the_form_it_holds(spark: Any, tmp_path: Path) -> None:
    """A quarantine from before 0.2.0 (the full form) keeps it when the run is not told a form;
    asked for another form, the run refuses before writing anything."""
    import pytest

    from quality_py import Id, Rule, RuleSet, RuleSuite, read_outputs, run_quality
    from quality_py.errors import QualityError

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(101, 1), "a > 0")])])
    df = spark.createDataFrame([(1,), (-1,)], "a INT")
    q = str(tmp_path / "q")
    run_quality(df, suite, run_id="old").write(quarantine=q, quarantine_detail="full")
    run_quality(df, suite, run_id="new").write(quarantine=q)  # not told: the form held
    _, quarantine, _ = read_outputs(spark, quarantine=q)
    assert "qp_failed_rules" in quarantine.columns and "DataQuality" in quarantine.columns
    assert "qp_failed_rule_names" not in quarantine.columns
    got = sorted((r.qp_run_id, [f.ruleId for f in r.qp_failed_rules]) for r in quarantine.collect())
    assert got == [("new", [101]), ("old", [101])]
    with pytest.raises(QualityError, match="quarantine_detail='full'") as refused:
        run_quality(df, suite, run_id="third").write(
            str(tmp_path / "v"), q, quarantine_detail="names"
        )
    assert refused.value.code == "RUN_OUTPUT"
    assert not (tmp_path / "v").exists()  # refused before anything was written
    _, again, _ = read_outputs(spark, quarantine=q)
    assert sorted(r.qp_run_id for r in again.collect()) == ["new", "old"]


def test_names_are_written_exactly(spark: Any, tmp_path: Path) -> None:
    """The longest name the model takes, in every character it allows (``_``, ``.``, ``-``),
    is written and read back as it is (names outside that are refused when the rule is made)."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, read_outputs, run_quality

    odd = "4" + "_.-Ab9" * 16 + "xyz"  # 100 characters, starting like an id
    assert len(odd) == 100
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(101, 1), "a > 0", name=odd)])])
    q = str(tmp_path / "q")
    run_quality(spark.createDataFrame([(-1,)], "a INT"), suite, run_id="r").write(quarantine=q)
    _, quarantine, _ = read_outputs(spark, quarantine=q)
    assert [list(r.qp_failed_rule_names) for r in quarantine.collect()] == [[odd]]
