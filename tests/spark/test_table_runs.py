"""A quality run with a table state (issue 55): its dataset checks answer for the table, and a
published run keeps its input's state for its partition; a failed run keeps nothing. Expected
values are counted by hand from the rows below (the table as it stands after each step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import Id, OverTime, Rule, RulePolicy, RuleSet, RuleSuite, TableState
from quality_py.actions import QualityRunFailed, run_quality
from quality_py.dataset.checks import Check
from quality_py.dataset.store import StateStoreError
from quality_py.errors import ModelError

pytestmark = pytest.mark.wiring  # what a run keeps, when and where

DDL = "day int, k int, v double"
SUITE = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "v > 0", action_if_failed="drop")])])


def _table(location: Path, partition: str) -> OverTime:
    """A run's link to the table at ``location``, ``partition`` being the batch's."""
    return OverTime(table_state=TableState(location, partition))


def _day(spark: Any, day: int, rows: list[tuple[int, float | None]]) -> Any:
    return spark.createDataFrame([(day, k, v) for k, v in rows], DDL)


def _metrics(summary: Any) -> dict[str, Any]:
    """The checks' metrics by name: size, uniqueness of k, completeness of v, in that order."""
    assert summary.checks is not None
    names = ("Size", "Uniqueness", "Completeness")
    return dict(zip(names, (r.metric for r in summary.checks.results), strict=True))


def test_a_run_answers_for_the_table_and_keeps_its_partition(spark: Any, tmp_path: Path) -> None:
    """``ignore`` checks: observed on the valid write, assessed for the table."""
    checks = [
        Check("warning", "table")
        .has_size(">= 0")
        .has_uniqueness("k", ">= 0")
        .has_completeness("v", ">= 0")
    ]
    states = tmp_path / "states"

    def run(day: int, rows: list[tuple[int, float | None]]) -> Any:
        table = TableState(states, f"day={day}")
        run = run_quality(
            _day(spark, day, rows), SUITE, checks, over_time=OverTime(table_state=table)
        )
        return run.write(str(tmp_path / f"valid{day}"), str(tmp_path / "quarantine"))

    first = run(1, [(1, 1.0), (2, None), (3, 3.0)])
    assert (first.input_rows, first.valid_rows) == (3, 2)  # the rows are the batch's
    assert _metrics(first) == pytest.approx({"Size": 3.0, "Uniqueness": 1.0, "Completeness": 2 / 3})
    # day 2 repeats key 3: over the table keys 1, 2, 4 occur once (3 of 5 rows), v null once
    second = run(2, [(3, 5.0), (4, 4.0)])
    assert (second.input_rows, second.valid_rows) == (2, 2)
    assert _metrics(second) == pytest.approx(
        {"Size": 5.0, "Uniqueness": 3 / 5, "Completeness": 4 / 5}
    )
    # day 1 re-run with one row: it replaces day 1 (table: day 1 [9], day 2 [3, 4])
    again = run(1, [(9, None)])
    assert _metrics(again) == pytest.approx({"Size": 3.0, "Uniqueness": 1.0, "Completeness": 2 / 3})
    assert TableState(states, "day=1").partitions() == ["day=1", "day=2"]


def test_a_failed_run_keeps_nothing(spark: Any, tmp_path: Path) -> None:
    """A ``fail`` check (the precheck, before any write) refused for the table: nothing is
    published and the partition's state is not kept."""
    checks = [Check("error", "keys").is_unique("k")]
    states = tmp_path / "states"
    out = tmp_path / "valid"
    first = run_quality(
        _day(spark, 1, [(1, 1.0), (2, 2.0)]), SUITE, checks, over_time=_table(states, "day=1")
    ).write(str(out))
    assert first.checks is not None and first.checks.status == "success"
    with pytest.raises(QualityRunFailed) as failed:  # key 2 is in day 1 already
        run_quality(
            _day(spark, 2, [(2, 2.0), (3, 3.0)]),
            SUITE,
            checks,
            over_time=_table(states, "day=2"),
        ).write(str(tmp_path / "valid2"))
    assert "keys" in " ".join(failed.value.summary.failed_checks)
    assert not (tmp_path / "valid2").exists()
    assert TableState(states, "day=2").partitions() == ["day=1"]
    kept = run_quality(
        _day(spark, 2, [(3, 3.0)]), SUITE, checks, over_time=_table(states, "day=2")
    ).write(str(tmp_path / "valid2"))
    assert kept.checks is not None and kept.checks.status == "success"
    assert TableState(states, "day=2").partitions() == ["day=1", "day=2"]


def test_a_state_that_cannot_be_kept_publishes_nothing(spark: Any, tmp_path: Path) -> None:
    blocked = tmp_path / "a_file"
    blocked.write_text("not a folder")
    run = run_quality(
        _day(spark, 1, [(1, 1.0)]),
        SUITE,
        [Check("warning", "t").has_size(">= 1")],
        over_time=_table(blocked, "day=1"),
    )
    with pytest.raises(StateStoreError, match="nothing was published"):
        run.write(str(tmp_path / "valid"))
    assert not (tmp_path / "valid").exists()


def test_a_run_holding_rows_of_other_partitions_publishes_nothing(
    spark: Any, tmp_path: Path
) -> None:
    both = _day(spark, 2, [(1, 1.0)]).union(_day(spark, 1, [(2, 2.0)]))
    run = run_quality(
        both, SUITE, [Check("warning", "t").has_size(">= 1")], over_time=_table(tmp_path, "day=2")
    )
    with pytest.raises(StateStoreError, match=r"holds rows of other partitions \(day=1\)"):
        run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
    assert not (tmp_path / "valid").exists() and not (tmp_path / "quarantine").exists()
    assert TableState(tmp_path, "day=2").partitions() == []


def test_what_a_table_state_cannot_keep_is_refused_before_any_job(
    spark: Any, tmp_path: Path
) -> None:
    df = _day(spark, 1, [(1, 1.0)])
    table = TableState(tmp_path, "day=1")
    with pytest.raises(ModelError, match="has neither"):
        run_quality(df, SUITE, [], over_time=OverTime(table_state=table))
    with pytest.raises(StateStoreError, match="no state to merge"):
        run_quality(
            df,
            SUITE,
            [Check("error", "t").has_column_count("== 3")],
            over_time=OverTime(table_state=table),
        )


TABLE_RULES = """
suite: {id: 1}
rule_sets:
  - id: 2
    rules:
      - {id: 3, expression: "v > 0", action_if_failed: drop}
checks:
  - level: error
    description: orders table
    constraints:
      - is_unique: k
      - has_size: ">= 0"
"""


def test_the_command_line_keeps_the_table_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run --table-state LOCATION --partition KEY=VALUE``: day 2 repeats day 1's key 2, so the
    table's key is not unique: the run fails (exit 1) and keeps nothing; the fixed day 2 runs."""
    from quality_py.cli import main

    (tmp_path / "rules.yaml").write_text(TABLE_RULES)
    states = tmp_path / "states"

    def run(day: int, csv: str) -> int:
        (tmp_path / f"day{day}.csv").write_text("k,v\n" + csv)
        return main(
            ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / f"day{day}.csv"),
             "--valid", str(tmp_path / f"valid{day}"), "--table-state", str(states),
             "--partition", f"day={day}"]
        )  # fmt: skip

    assert run(1, "1,1.0\n2,2.0\n") == 0
    capsys.readouterr()
    assert run(2, "2,5.0\n3,3.0\n") == 1
    told = capsys.readouterr()
    assert "[orders table] k is unique" in told.out + told.err
    assert TableState(states, "day=1").partitions() == ["day=1"]
    assert run(2, "3,3.0\n") == 0
    assert TableState(states, "day=1").partitions() == ["day=1", "day=2"]


def _keys_suite(*expressions: str) -> RuleSuite:
    rules = [Rule(Id(10 + i, 1), e, action_if_failed="drop") for i, e in enumerate(expressions)]
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])


def _valid_keys(run: Any, out: Path) -> list[int | None]:
    run.write(str(out))
    return sorted((r.k for r in run.valid.collect()), key=str)


def test_rules_over_rows_count_the_table_s_rows(spark: Any, tmp_path: Path) -> None:
    """``is_unique(k)`` over days: a key already in another partition fails; a re-run replaces
    its partition's keys. Counted by hand from the days below."""
    suite = _keys_suite("is_unique(k)")
    states = tmp_path / "states"

    def run(day: int, keys: list[int | None]) -> list[int | None]:
        df = spark.createDataFrame([(day, k, 1.0) for k in keys], DDL)
        planned = run_quality(df, suite, over_time=_table(states, f"day={day}"))
        return _valid_keys(planned, tmp_path / f"valid{day}")

    assert run(1, [1, 2, 2, None]) == [1, None]  # 2 twice here; a null key is nobody's twin
    # day 2: 1 is day 1's; 3 is new; the null key again passes
    assert run(2, [1, 3, None]) == [3, None]
    # day 1 re-run without key 1: its old keys are gone, so day 2's 1 would now be unique
    assert run(1, [2]) == [2]
    assert run(2, [1, 3]) == [1, 3]


def test_a_group_limit_and_nulls_equal_count_the_table(spark: Any, tmp_path: Path) -> None:
    suite = _keys_suite("count(*) OVER (PARTITION BY k) <= 2", "is_unique_nulls_equal(v)")
    states = tmp_path / "states"

    def run(day: int, rows: list[tuple[int, float | None]]) -> list[tuple[int, float | None]]:
        df = spark.createDataFrame([(day, k, v) for k, v in rows], DDL)
        planned = run_quality(df, suite, over_time=_table(states, f"day={day}"))
        planned.write(str(tmp_path / f"valid{day}"))
        return sorted(((r.k, r.v) for r in planned.valid.collect()), key=str)

    assert run(1, [(7, 1.0), (7, 4.0), (8, None)]) == [(7, 1.0), (7, 4.0), (8, None)]
    # day 2: group 7 has day 1's 2 rows and one more here (3 > 2); a second null v and a
    # second 1.0 are duplicates when nulls compare equal; (9, 2.0) is fine
    assert run(2, [(7, 3.0), (9, None), (9, 2.0), (5, 1.0)]) == [(9, 2.0)]


def test_what_the_key_index_cannot_answer_is_refused(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, 1, 1.0)], DDL)
    for text in ("row_number() OVER (PARTITION BY k ORDER BY v) <= 2",
                 "rank() OVER (PARTITION BY k ORDER BY v) = 1"):  # fmt: skip
        with pytest.raises(ModelError, match=r"answers COUNT.*= 1 \(keep-one\) and nothing"):
            run_quality(df, _keys_suite(text), over_time=_table(tmp_path, "day=1"))
    # day 1 kept before the rule over k existed: the table's counts of k are unknown
    run_quality(df, SUITE, [Check("warning", "t").has_size(">= 0")],
                over_time=_table(tmp_path, "day=1")).write(str(tmp_path / "v1"))  # fmt: skip
    with pytest.raises(StateStoreError, match=r"no stored count of rows per \(k\)"):
        run_quality(df, _keys_suite("is_unique(k)"), over_time=_table(tmp_path, "day=2"))


KEEP_LATEST = "k IS NULL OR row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1"


def test_keep_one_keeps_the_table_s_first_row(spark: Any, tmp_path: Path) -> None:
    """Keep-one (the largest ``v`` of each key) over days: a batch row passes when it is its
    key's first in the batch and no row of another partition comes first; a row equal in ``v``
    is ordered by its other columns (``day`` first), so the earlier day's row stays the key's.
    Counted by hand from the days below."""
    suite = _keys_suite(KEEP_LATEST)
    states = tmp_path / "states"

    def run(day: int, rows: list[tuple[int | None, float]]) -> list[tuple[int | None, float]]:
        planned = run_quality(_day(spark, day, rows), suite, over_time=_table(states, f"day={day}"))
        planned.write(str(tmp_path / f"valid{day}-{len(rows)}"))
        return sorted(((r.k, r.v) for r in planned.valid.collect()), key=str)

    day1 = [(1, 1.0), (1, 3.0), (2, 2.0), (None, 5.0), (None, 6.0)]
    assert run(1, day1) == sorted([(1, 3.0), (2, 2.0), (None, 5.0), (None, 6.0)], key=str)
    # day 2: 2.0 < day 1's 3.0 for key 1, 4.0 > 3.0; (2, 2.0) ties day 1's and day 1 < 2
    assert run(2, [(1, 2.0), (1, 4.0), (2, 2.0), (3, 1.0)]) == [(1, 4.0), (3, 1.0)]
    # day 3: key 1's first in the table is day 2's 4.0, key 3's day 2's 1.0
    assert run(3, [(1, 3.5), (3, 0.5), (4, 1.0)]) == [(4, 1.0)]
    # day 2 re-run without key 1: its 4.0 is gone, so day 3's 3.5 is key 1's first
    assert run(2, [(5, 1.0)]) == [(5, 1.0)]
    assert run(4, [(1, 3.6), (1, 3.4)]) == [(1, 3.6)]


def test_keep_one_of_rows_that_are_their_key(spark: Any, tmp_path: Path) -> None:
    """An input of its key alone: every row of a key is equal in the order, so a key kept by
    another partition keeps none of the batch's. By hand."""
    suite = _keys_suite("row_number() OVER (PARTITION BY k ORDER BY k) = 1")

    def run(day: int, keys: list[int]) -> list[int | None]:
        df = spark.createDataFrame([(k,) for k in keys], "k int")
        return _valid_keys(run_quality(df, suite, over_time=_table(tmp_path / "s", f"day={day}")),
                           tmp_path / f"v{day}")  # fmt: skip

    assert run(1, [1, 1, 2]) == [1, 2]
    assert run(2, [1, 3, 3]) == [3]


def test_keep_one_ties_are_broken_by_the_later_columns_together(spark: Any, tmp_path: Path) -> None:
    """Terms of one direction in a row are compared together (as one struct): here the tie of
    ``v`` is broken by ``g`` then ``w`` ascending, nulls first, and in the second rule ``v`` and
    ``w`` descending, nulls last, then ``g``. By hand, row by row against day 1's row of the key."""
    ddl = "g int, k int, v double, w string"
    rules = {
        "asc": "row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1",
        "desc": "row_number() OVER (PARTITION BY k ORDER BY v DESC, w DESC) = 1",
    }

    def run(name: str, day: int, rows: list[tuple[Any, ...]]) -> list[int]:
        df = spark.createDataFrame(rows, ddl)
        table = _table(tmp_path / name, f"day={day}")
        return _valid_keys(run_quality(df, _keys_suite(rules[name]), over_time=table),
                           tmp_path / f"{name}{day}")  # fmt: skip

    day1 = [
        (1, 1, 2.0, "b"),
        (1, 2, 2.0, "c"),
        (1, 3, 2.0, None),
        (1, 4, 2.0, "a"),
        (2, 5, 1.0, "a"),
    ]
    day2 = [
        (1, 1, 2.0, "a"),
        (1, 2, 2.0, "c"),
        (1, 3, 2.0, "a"),
        (1, 4, 2.0, None),
        (1, 5, 1.0, "z"),
    ]
    for name in rules:
        assert run(name, 1, day1) == [1, 2, 3, 4, 5]
    # ascending w, nulls first: 'a' < 'b' (key 1 passes); equal (2 fails); null first (3
    # fails, 4 passes); key 5: v ties, g 1 < 2 (passes)
    assert run("asc", 2, day2) == [1, 4, 5]
    # w descending, nulls last, before g: 'a' < 'b' (1 fails); equal (2 fails); 'a' before null
    # (3 passes, 4 fails); key 5: 'z' before 'a' (passes)
    assert run("desc", 2, day2) == [3, 5]


def test_keep_one_kept_before_its_rule_or_column_is_refused(spark: Any, tmp_path: Path) -> None:
    """A partition kept without the keep-one rule's index, or kept when the input had other
    columns (its ties were broken by them), cannot answer: refused, naming the partition."""
    df = _day(spark, 1, [(1, 1.0)])
    run_quality(df, _keys_suite("is_unique(k)"), over_time=_table(tmp_path, "day=1")).write(
        str(tmp_path / "v1")
    )
    with pytest.raises(StateStoreError, match=r"no stored first row per \(k\).*day=1"):
        run_quality(_day(spark, 2, [(1, 2.0)]), _keys_suite(KEEP_LATEST),
                    over_time=_table(tmp_path, "day=2"))  # fmt: skip
    run_quality(df, _keys_suite(KEEP_LATEST), over_time=_table(tmp_path, "day=1")).write(
        str(tmp_path / "v1b")
    )
    wider = spark.createDataFrame([(2, 1, 2.0, "x")], DDL + ", note string")
    with pytest.raises(StateStoreError, match=r"no stored first row per \(k\)"):
        run_quality(wider, _keys_suite(KEEP_LATEST), over_time=_table(tmp_path, "day=2"))


def _order(row: tuple[int, Any, Any]) -> tuple[Any, ...]:
    """The keep-one rule's order as Python sorts: ``v`` descending with nulls last, then the
    tie-breaking columns ``day``, ``k``, ``v`` ascending with nulls first."""
    day, k, v = row
    return ((v is None, -(v or 0)), day, (k is not None, k or 0), (v is not None, v or 0))


def _kept_by_hand(rows: list[tuple[int, Any, Any]], others: list[tuple[int, Any, Any]]) -> list:
    """The batch ``rows`` a keep-one over the table keeps: each key's first in the batch (one of
    equal rows), unless a row of another partition (``others``) comes first or equals it."""
    kept = []
    for k in {r[1] for r in rows}:
        first = min((r for r in rows if r[1] == k), key=_order)
        if all(_order(o) > _order(first) for o in others if o[1] == k):
            kept.append((k, first[2]))
    return sorted(kept, key=str)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.lists(
            st.tuples(st.none() | st.integers(0, 2), st.none() | st.integers(0, 3)), max_size=5),
            st.sampled_from([False, False, False, True])),
        min_size=2,
        max_size=5,
    )
)  # fmt: skip
def test_keep_one_appends_re_runs_and_failures_agree_with_the_union(
    spark: Any,
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[int, list[tuple[Any, Any]], bool]],
) -> None:
    """Random days appended, re-run and refused (a key 99 fails the run and keeps nothing),
    each run's kept rows against Python over the rows the other kept partitions hold: keep-one
    (the table's first row of a key) and a group limit (at most 3 rows of a key in the table;
    the null key is a group too, as in Spark's grouping)."""
    root = tmp_path_factory.mktemp("keep-one")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
        Rule(Id(3, 1), "row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1",
             action_if_failed="drop"),
        Rule(Id(4, 1), "k IS NULL OR k != 99", action_if_failed="fail"),
        Rule(Id(5, 1), "count(*) OVER (PARTITION BY k) <= 3", action_if_failed="drop")])])  # fmt: skip
    table: dict[int, list[tuple[int, Any, Any]]] = {}
    for step, (day, pairs, refused) in enumerate(steps):
        rows = [(day, k, v) for k, v in pairs] + ([(day, 99, 0)] if refused else [])
        df = spark.createDataFrame(rows, "day int, k int, v int")
        over = _table(root / "states", f"day={day}")
        if any(k == 99 for _, k, _ in rows):
            with pytest.raises(QualityRunFailed):
                run_quality(df, suite, over_time=over).write(str(root / f"v{step}"))
            continue
        others = [r for d, kept in table.items() if d != day for r in kept]
        run = run_quality(df, suite, over_time=over)
        run.write(str(root / f"v{step}"))
        in_table = [r[1] for r in others + rows]
        expected = [(k, v) for k, v in _kept_by_hand(rows, others) if in_table.count(k) <= 3]
        assert sorted(((r.k, r.v) for r in run.valid.collect()), key=str) == expected
        table[day] = rows


ORDERS = "day int, k int, v double, parent int"
PARENT_RULES = """
suite: {id: 9, version: 1}
rule_sets:
  - id: 90
    rules:
      - {id: 900, expression: "in_reference('orders', 'k', parent)", action_if_failed: drop}
"""


def test_the_command_line_names_the_table_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--table-view orders``: the rules may read ``orders`` (no ``--view`` for it) and it is
    the table's keys. By hand: day 2's parent 1 is day 1's key, its parent 9 is nowhere."""
    from quality_py.cli import main

    (tmp_path / "rules.yaml").write_text(PARENT_RULES)

    def run(day: int, csv: str) -> int:
        (tmp_path / f"day{day}.csv").write_text("k,parent\n" + csv)
        return main(
            ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / f"day{day}.csv"),
             "--valid", str(tmp_path / f"valid{day}"), "--table-state", str(tmp_path / "s"),
             "--partition", f"day={day}", "--table-view", "orders"]
        )  # fmt: skip

    assert run(1, "1,\n2,1\n") == 0
    capsys.readouterr()
    assert run(2, "3,1\n4,9\n") == 0
    assert "rows: 2 in, 1 valid, 1 quarantined, 1 dropped" in capsys.readouterr().out


def test_a_foreign_key_into_the_table_reads_its_keys(spark: Any, tmp_path: Path) -> None:
    """``in_reference('orders', 'k', parent)`` with a table state naming its view ``orders``:
    a parent must be a key of the table (another day's or this batch's), never read from the
    table's rows; a null parent references nothing (passes); a re-run of a day takes its keys
    out. By hand from the days below; no view ``orders`` is registered at all."""
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
        Rule(Id(3, 1), "in_reference('orders', 'k', parent)", action_if_failed="drop")])],
    ).with_policy(RulePolicy().with_views("orders"))  # fmt: skip
    states = tmp_path / "states"

    def run(day: int, rows: list[tuple[int, int | None]]) -> list[int]:
        df = spark.createDataFrame([(day, k, 1.0, p) for k, p in rows], ORDERS)
        table = TableState(states, f"day={day}", view="orders")
        planned = run_quality(df, suite, over_time=OverTime(table_state=table))
        planned.write(str(tmp_path / f"valid{day}"))
        return sorted(r.k for r in planned.valid.collect())

    # day 1: 2's parent is 1 (this batch); 3's parent 9 is nowhere; 4 has none
    assert run(1, [(1, None), (2, 1), (3, 9), (4, None)]) == [1, 2, 4]
    # day 2: 5's parent 3 is day 1's (its key is the table's even though its row was dropped:
    # the table's keys are its partitions' inputs); 6's parent 7 is not yet anywhere; 7 is here
    assert run(2, [(5, 3), (6, 7), (7, 1), (8, 10)]) == [5, 6, 7]
    # day 1 re-run without key 1: day 2's 7 (parent 1) now references nothing
    assert run(1, [(2, None), (3, None)]) == [2, 3]
    assert run(2, [(5, 3), (7, 1)]) == [5]
    # a key set the stored days kept no index of cannot be answered for the table: refused
    lookup = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
        Rule(Id(4, 1), "in_reference('orders', 'v', CAST(parent AS DOUBLE))", name="by_v")])],
    ).with_policy(RulePolicy().with_views("orders"))  # fmt: skip
    df = spark.createDataFrame([(3, 1, 1.0, 1)], ORDERS)
    table = TableState(states, "day=3", view="orders")
    with pytest.raises(StateStoreError, match=r"no stored count of rows per \(v\)"):
        run_quality(df, lookup, over_time=OverTime(table_state=table))


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.lists(
            st.tuples(st.none() | st.integers(0, 4) | st.just(99), st.none() | st.integers(0, 5)),
            max_size=4)),
        min_size=2,
        max_size=4,
    )
)  # fmt: skip
def test_appends_re_runs_and_failures_agree_with_the_union(
    spark: Any,
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[int, list[tuple[Any, Any]]]],
) -> None:
    """Random days appended, re-run and refused, each run against a plain recomputation in
    Python over the union of the partitions kept: the rows ``is_unique(k)`` and a foreign key
    into the table itself (a parent ``p`` among the table's keys ``k``) keep, the table's size
    and completeness of k. A key 99 fails the run (a ``fail`` rule): nothing is kept."""
    root = tmp_path_factory.mktemp("sequence")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "is_unique(k)", action_if_failed="drop"),
                            Rule(Id(4, 1), "k IS NULL OR k != 99", action_if_failed="fail"),
                            Rule(Id(5, 1), "in_reference('t', 'k', parent)",
                                 action_if_failed="drop")])],
    ).with_policy(RulePolicy().with_views("t"))  # fmt: skip
    checks = [Check("warning", "t").has_size(">= 0").has_completeness("k", ">= 0")]
    table: dict[int, list[Any]] = {}
    for step, (day, rows) in enumerate(steps):
        keys = [k for k, _ in rows]
        df = spark.createDataFrame([(day, k, 1.0, p) for k, p in rows], ORDERS)
        over = OverTime(table_state=TableState(root / "states", f"day={day}", view="t"))
        if 99 in keys:
            with pytest.raises(QualityRunFailed):
                run_quality(df, suite, checks, over_time=over).write(str(root / f"v{step}"))
            continue
        union = [k for d, ks in table.items() if d != day for k in ks] + keys
        expected = sorted(
            (k for k, p in rows
             if (k is None or union.count(k) == 1) and (p is None or p in union)),
            key=str,
        )  # fmt: skip
        run = run_quality(df, suite, checks, over_time=over)
        summary = run.write(str(root / f"v{step}"))
        assert sorted((r.k for r in run.valid.collect()), key=str) == expected
        assert summary.checks is not None
        size, completeness = (r.metric for r in summary.checks.results)
        assert size == len(union)
        filled = sum(k is not None for k in union)
        assert completeness == (pytest.approx(filled / len(union)) if union else None)
        table[day] = keys
