"""Rules that see more than one row, on Spark: uniqueness, keep-one, membership in a reference
view and group limits flag exactly the rows worked out by hand below (nulls, NaN, -0.0 and ties
included), with ANSI on and off; a quality run puts every row in exactly the outputs its rules
say, on every run; an empty input and a streaming input behave as stated.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    FAILED,
    Id,
    ModelError,
    Rule,
    RulePolicy,
    RuleSet,
    RuleSuite,
    add_data_quality,
    foreach_batch,
    group_limit_rule,
    keep_one_rule,
    reference_rule,
    run_quality,
    unique_rule,
)

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SCHEMA = "id INT, cust STRING, card STRING, amount DOUBLE, t INT"
NAN = float("nan")
ROWS = [
    (1, "a", "x", 10.0, 1),
    (2, "a", "x", 20.0, 2),
    (3, "a", "y", NAN, 3),
    (4, "b", "x", 5.0, 1),
    (5, "b", None, -0.0, 1),  # ties with row 4 on t: the row's own values order them (id 4 first)
    (6, None, "z", 1.0, 1),
    (7, None, "z", 0.0, 2),
    (8, "c", "x", None, 1),
]

#: rule text -> the ids of the rows it fails, worked out by hand from ROWS and the views
#: cards (x, y), cards_or_null (x, null) and blocked (y, null).
CASES: dict[str, set[int]] = {
    # customers a (1, 2, 3) and b (4, 5) repeat; the two rows without a customer are distinct
    unique_rule("cust"): {1, 2, 3, 4, 5},
    # ... unless nulls are equal: then 6 and 7 share the key null
    unique_rule("cust", nulls="equal"): {1, 2, 3, 4, 5, 6, 7},
    # (a, x) repeats; (b, null) and (null, z) have a null part and are nobody's duplicate
    unique_rule("cust", "card"): {1, 2},
    unique_rule("cust", "card", nulls="equal"): {1, 2, 6, 7},
    # the raw form the peers write groups nulls, as Spark's PARTITION BY does
    "count(*) over (partition by cust) = 1": {1, 2, 3, 4, 5, 6, 7},
    # keep the latest t per customer: a keeps 3; b's 4 and 5 tie on t, 4 comes first by its
    # values (id 4 < 5); rows without a customer are each alone
    keep_one_rule("cust", order_by="t DESC"): {1, 2, 5},
    keep_one_rule("cust", order_by="t DESC", nulls="equal"): {1, 2, 5, 6},
    "rank() over (partition by cust order by t) = 1": {2, 3, 7},
    # membership: z is nowhere; a null card references nothing and passes ...
    reference_rule("cards", ["card"]): {6, 7},
    # ... unless null-safe, where it must match a null of the view (cards has none)
    reference_rule("cards", ["card"], null_safe=True): {5, 6, 7},
    reference_rule("cards_or_null", ["card"], null_safe=True): {3, 6, 7},
    # a blocked card fails; a null card passes, and matches the blocked null when null-safe
    reference_rule("blocked", ["card"], negate=True): {3},
    reference_rule("blocked", ["card"], negate=True, null_safe=True): {3, 5},
    # group limits: a has three rows
    group_limit_rule(["cust"], at_most=2): {1, 2, 3},
    # a's sum holds NaN, which is above every number in Spark: over any limit; c has no
    # amount, so no sum, and breaks no limit
    group_limit_rule(["cust"], "sum", "amount", at_most=25): {1, 2, 3},
    # min: b's is -0.0 and the no-customer group's 0.0, both under 1 (a's is 10: NaN is the max)
    group_limit_rule(["cust"], "min", "amount", at_least=1): {4, 5, 6, 7},
    group_limit_rule(["cust"], "max", "amount", at_most=15): {1, 2, 3},
    # avg: a's is NaN, b's 2.5, the no-customer group's 0.5
    group_limit_rule(["cust"], "avg", "amount", at_most=2): {1, 2, 3, 4, 5},
    # distinct cards: a has x and y; b has x (a null card is no value)
    group_limit_rule(["cust"], "count_distinct", "card", at_most=1): {1, 2, 3},
}


def _views(spark: Any) -> None:
    for name, values in (("cards", ["x", "y"]), ("cards_or_null", ["x", None]),
                         ("blocked", ["y", None])):  # fmt: skip
        spark.createDataFrame([(v,) for v in values], "card STRING").createOrReplaceTempView(name)


def _suite(texts: list[str]) -> RuleSuite:
    rules = [Rule(Id(100 + i, 1), text) for i, text in enumerate(texts)]
    policy = RulePolicy().with_views("cards", "cards_or_null", "blocked")
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)], policy=policy)


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_each_form_fails_the_rows_worked_out_by_hand(spark: Any, ansi: str) -> None:
    _views(spark)
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        texts = list(CASES)
        df = spark.createDataFrame(ROWS, SCHEMA).repartition(3)  # rows arrive in any order
        checked = add_data_quality(df, _suite(texts), layout="compact")
        rows = checked.select("id", "DataQuality.ruleResults").collect()
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    for i, text in enumerate(texts):
        failed = {r.id for r in rows if r.ruleResults[i] == FAILED}
        assert failed == CASES[text], text


def test_an_empty_input_fails_nothing(spark: Any) -> None:
    _views(spark)
    empty = spark.createDataFrame([], SCHEMA)
    run = run_quality(empty, _suite(list(CASES)), run_id="empty")
    assert run.valid.count() == 0 and run.quarantine.count() == 0


def test_keep_one_puts_each_row_in_exactly_the_outputs_its_rules_say(
    spark: Any, tmp_path: Any
) -> None:
    # 2,000 orders of 10 customers, all at the same time: which order each customer keeps is
    # decided by the orders' own values, so the valid and quarantine writes (two Spark jobs
    # over freshly shuffled input) agree on every row
    rows = [(i, f"c{i % 10}", "x", float(i), 0) for i in range(2000)]
    df = spark.createDataFrame(rows, SCHEMA).repartition(7)
    keep = Rule(Id(3, 1), keep_one_rule("cust", order_by="t DESC"), action_if_failed="drop")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [keep])])
    run = run_quality(df, suite, run_id="r")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"), str(tmp_path / "s"))
    valid = {r.id for r in spark.read.parquet(str(tmp_path / "v")).collect()}
    quarantined = [r.id for r in spark.read.parquet(str(tmp_path / "q")).collect()]
    # by hand: t ties everywhere, so the first by the row's values is the smallest id: 0..9
    assert valid == set(range(10))
    assert sorted(quarantined) == list(range(10, 2000))  # every other row, once
    assert (summary.valid_rows, summary.quarantined_rows) == (10, 1990)
    assert run.window_keys == (("`cust`",),) and not run.codes_frame.is_cached
    # a customer's key is in both outputs: its kept order and its others
    again = run_quality(spark.createDataFrame(rows, SCHEMA).repartition(5), suite, run_id="s")
    assert {r.id for r in again.valid.collect()} == valid


def test_a_stream_is_refused_and_each_micro_batch_is_checked_as_a_table(
    spark: Any, tmp_path: Any
) -> None:
    source = tmp_path / "in"
    source.mkdir()
    stream = spark.readStream.schema(SCHEMA).json(str(source))
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), unique_rule("id"), action_if_failed="drop")])],
    )
    with pytest.raises(ModelError) as err:
        add_data_quality(stream, suite)
    assert err.value.code == "STREAMING_INPUT" and "foreachBatch" in err.value.message
    # per batch, stated as such: id 1 twice in the first batch fails; id 2 once in each passes
    target = tmp_path / "valid"
    handle = foreach_batch(suite, target=str(target), quarantine=str(tmp_path / "q"))
    query = stream.writeStream.foreachBatch(handle).start()
    try:
        for batch, ids in enumerate([[1, 1, 2], [2, 3]]):
            (source / f"part-{batch}.json").write_text("\n".join(f'{{"id": {i}}}' for i in ids))
            query.processAllAvailable()
    finally:
        query.stop()
    kept = sorted((r.id, r.qp_run_id) for r in spark.read.parquet(str(target)).collect())
    assert kept == [(2, "batch-0"), (2, "batch-1"), (3, "batch-1")]


def test_a_rule_table_holds_the_same_text(spark: Any) -> None:
    from quality_py import read_rule_tables

    _views(spark)
    # a rules table as analysts keep it: one row per rule, the text in ruleExpr
    texts = list(CASES)
    table = spark.createDataFrame(
        [(1, 1, 2, 1, 100 + i, 1, text) for i, text in enumerate(texts)],
        "ruleSuiteId INT, ruleSuiteVersion INT, ruleSetId INT, ruleSetVersion INT, ruleId INT, "
        "ruleVersion INT, ruleExpr STRING",
    )
    suite = read_rule_tables(table).latest(1)
    suite = suite.with_policy(RulePolicy().with_views("cards", "cards_or_null", "blocked"))
    checked = add_data_quality(spark.createDataFrame(ROWS, SCHEMA), suite, layout="compact")
    rows = checked.select("id", "DataQuality.ruleResults").collect()
    for i, text in enumerate(texts):
        assert {r.id for r in rows if r.ruleResults[i] == FAILED} == CASES[text], text


def test_rule_runner_orders_ties_by_the_schema_it_is_given(spark: Any) -> None:
    from quality_py import rule_runner

    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), keep_one_rule("cust", order_by="t DESC"))])],
    )
    with pytest.raises(ModelError, match="pass schema=df"):
        rule_runner(suite)
    df = spark.createDataFrame(ROWS, SCHEMA)
    rows = df.select("id", rule_runner(suite, schema=df, layout="compact")).collect()
    # as in CASES: a keeps 3, b keeps 4 (the tie with 5 broken by id), null customers pass
    assert {r.id for r in rows if r.DataQuality.overallResult == FAILED} == {1, 2, 5}


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_every_window_function_the_policy_allows_completes_on_adversarial_data(
    spark: Any, ansi: str
) -> None:
    from quality_py.sql.allowed.windows import RANKING, WINDOW_AGGREGATES

    # derived from the catalogue: each aggregate over extreme bigints (a sum that overflows),
    # NaN and infinities, nulls; each ranking function over ties and nulls
    spark_names = {"logical_and": "bool_and", "logical_or": "bool_or"}
    booleans = {"count_if", "logical_and", "logical_or", "every", "some"}
    texts = [
        f"{spark_names.get(n, n)}({'b' if n in booleans else 'l'}) OVER (PARTITION BY k) IS NULL"
        for n in sorted(WINDOW_AGGREGATES)
    ]
    texts += [f"{n}({'3' if n == 'ntile' else ''}) OVER (PARTITION BY k ORDER BY d) = 1"
              for n in sorted(RANKING.values())]  # fmt: skip
    texts += ["avg(d) OVER (PARTITION BY k) > 0", "count(DISTINCT d) OVER (PARTITION BY k) > 1"]
    big = 9223372036854775807
    rows = [(1, big, NAN, True), (1, big, float("inf"), None), (1, 1, None, False),
            (2, None, float("-inf"), None), (None, 5, 0.0, True)]  # fmt: skip
    df = spark.createDataFrame(rows, "k INT, l BIGINT, d DOUBLE, b BOOLEAN")
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        checked = add_data_quality(df, _suite(texts), layout="compact")
        got = checked.select("k", "DataQuality.ruleResults").collect()
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    assert len(got) == 5 and all(len(r.ruleResults) == len(texts) for r in got)
    # by hand: key 1's bigint sum overflows in any order (all positive), so try_sum gives null
    # and "sum(l) ... IS NULL" passes; key 2 sums no value (null): passes; the null key sums 5
    total = texts.index("sum(l) OVER (PARTITION BY k) IS NULL")
    assert sorted((r.k is None, r.ruleResults[total] == FAILED) for r in got) == [
        (False, False), (False, False), (False, False), (False, False), (True, True),
    ]  # fmt: skip
