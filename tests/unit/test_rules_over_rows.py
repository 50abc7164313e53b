"""Rules that see more than one row, without a JVM: what the policy allows of windows and where,
what the library functions expand to and refuse, the cap on key sets, the total order, the
costs ``validate`` reports and the rule text the Python builders write."""

from __future__ import annotations

import pytest

from quality_py import (
    Id,
    LambdaFunction,
    LibraryFunctionError,
    ModelError,
    OutputExpression,
    PolicyError,
    Rule,
    RulePolicy,
    RuleSet,
    RuleSuite,
    group_limit_rule,
    keep_one_rule,
    reference_rule,
    unique_rule,
    validate,
)
from quality_py.sql.compiler import compile_expression, compile_suite
from quality_py.sql.parse import parse_expression
from quality_py.sql.windows import costs, key_sets, needs_total_order, with_total_order

#: Windows the policy allows, as the peers write them (Spark-Expectations' rules guide: count
#: over a partition for uniqueness, row_number for keep-one; DQX's is_aggr_* with group_by).
ALLOWED = [
    "count(*) over (partition by pk) = 1",
    "row_number() over (partition by pk order by updated desc) = 1",
    "rank() over (partition by a order by b) = 1",
    "dense_rank() over (partition by a order by b) <= 2",
    "percent_rank() over (partition by a order by b) < 0.5",
    "cume_dist() over (partition by a order by b) < 0.5",
    "ntile(4) over (partition by a order by b) = 1",
    "sum(amount) over (partition by customer) <= 10000",
    "avg(amount) over (partition by customer) > 0",
    "min(t) over (partition by k) = t",
    "max(t) over (partition by k, j) >= t",
    "count(distinct card) over (partition by customer) <= 3",
    "count_if(amount < 0) over (partition by customer) = 0",
    "bool_and(ok) over (partition by k)",
    "pk is null or count(*) over (partition by pk) = 1",
]

#: Refused, with a word of the reason each message must hold.
REFUSED = [
    ("lag(x) over (partition by k order by t) = 1", "lag is not allowed"),
    ("lead(x) over (partition by k order by t) = 1", "lead is not allowed"),
    ("first_value(x) over (partition by k order by t) = 1", "first"),
    ("count(*) over () = 1", "PARTITION BY at least one key"),
    ("sum(x) over (partition by k order by t) > 0", "running value"),
    ("sum(x) over (partition by k rows between 1 preceding and current row) > 0", "frame"),
    ("row_number() over (partition by k) = 1", "needs an ORDER BY"),
    ("ntile(n) over (partition by k order by t) = 1", "literal number of buckets"),
    ("ntile(0) over (partition by k order by t) = 1", "between 1 and"),
    ("size(collect_list(x) over (partition by k)) < 3", "collect_list is not allowed"),
    ("size(collect_set(x) over (partition by k)) < 3", "collect_set is not allowed"),
    ("percentile(x, 0.5) over (partition by k) > 1", "not a window function the policy knows"),
    ("sum(count(*) over (partition by k)) > 1", "not allowed"),
    ("exists(transform(a, x -> count(*) over (partition by k) > 1), y -> y)", "lambda"),
]


def _compile(text: str, policy: RulePolicy | None = None) -> str:
    from quality_py.sql.build import to_sql

    return to_sql(compile_expression(text, policy=policy or RulePolicy()))


@pytest.mark.parametrize("text", ALLOWED)
def test_the_windows_the_peers_write_are_allowed(text: str) -> None:
    assert "OVER (PARTITION BY" in _compile(text)


@pytest.mark.parametrize(("text", "reason"), REFUSED, ids=[r[1] for r in REFUSED])
def test_unbounded_or_order_dependent_windows_are_refused(text: str, reason: str) -> None:
    with pytest.raises(PolicyError) as err:
        _compile(text)
    assert reason in err.value.message
    assert err.value.code == "POLICY"


def test_a_window_stands_only_in_a_rules_own_value() -> None:
    window = "count(*) over (partition by k) > 1"
    places = {
        "lambda": RuleSuite(
            Id(1, 1),
            [RuleSet(Id(2, 1), [Rule(Id(3, 1), "dup(a)")])],
            lambdas=[LambdaFunction("dup", f"a -> {window}", Id(9, 1))],
        ),
        "rule filter": RuleSuite(
            Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0", filter=window)])]
        ),
        "output": RuleSuite(
            Id(1, 1),
            [
                RuleSet(
                    Id(2, 1),
                    [Rule(Id(3, 1), "a > 0", output=OutputExpression(Id(7, 1), window))],
                )
            ],
        ),
    }
    for kind, suite in places.items():
        report = compile_suite(suite, collect=True)
        messages = [i.error.message for i in report.issues]
        assert any("may only be written in a rule's own text" in m for m in messages), kind
    # a library function's window is held to the same places: inside a subquery it is refused
    views = RulePolicy().with_views("v")
    with pytest.raises(PolicyError, match="inside a subquery"):
        _compile("exists(select 1 from v where is_unique(v.a))", views)
    # and where rules aggregate the whole input (the expression runners)
    with pytest.raises(PolicyError, match="aggregate the whole input"):
        _compile(window, RulePolicy(allow_aggregates=True))


def test_library_forms_expand_to_one_window_or_one_exists() -> None:
    assert (
        _compile("is_unique(b, a)")
        == "(b IS NULL OR a IS NULL OR COUNT(*) OVER (PARTITION BY a, b) = 1)"
    )
    policy = RulePolicy().with_views("airlines")
    sql = _compile("in_reference('airlines', 'carrier', carrier)", policy)
    assert sql.startswith("(carrier IS NULL OR EXISTS(SELECT 1 FROM (SELECT `carrier` AS __qp_r0")


def test_membership_refuses_what_it_cannot_run() -> None:
    with pytest.raises(LibraryFunctionError) as err:
        _compile("in_reference('planes', 'tailnum', tailnum)")
    assert err.value.code == "POLICY" and "no view 'planes' is allowed" in err.value.message
    policy = RulePolicy().with_views("planes")
    with pytest.raises(LibraryFunctionError, match=r"no view 'plane' is allowed for these rules "
                       r"\(did you mean 'planes'\?\)"):  # fmt: skip
        _compile("in_reference('plane', 'tailnum', tailnum)", policy)
    for text in ("in_reference('planes', tailnum)", "in_reference('planes', tailnum, tailnum)",
                 "in_reference(planes, 'tailnum', tailnum)", "is_unique()"):  # fmt: skip
        with pytest.raises(LibraryFunctionError) as err:
            _compile(text, policy)
        assert err.value.code == "LIBRARY_ARGUMENTS", text


def test_membership_refuses_keys_of_another_type_when_types_are_known() -> None:
    from quality_py.errors import QualityError

    types = {"(select first(`tailnum`) from `planes`)": "string", "code": "int"}
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "in_reference('planes', 'tailnum', code)")])],
        policy=RulePolicy().with_views("planes"),
    )
    with pytest.raises(QualityError) as err:
        compile_suite(suite, type_of=lambda sql: types.get(sql.lower()))
    assert err.value.code == "KEY_TYPE"
    assert "CAST(code AS STRING)" in err.value.message


def test_a_suite_partitions_by_a_bounded_number_of_key_sets() -> None:
    rules = [Rule(Id(10 + i, 1), f"count(*) over (partition by c{i}) = 1") for i in range(3)]
    # keys written in another order are the same key set
    rules.append(Rule(Id(20, 1), "count(*) over (partition by c1, c0) < 9"))
    rules.append(Rule(Id(21, 1), "count(*) over (partition by c0, c1) < 9"))
    policy = RulePolicy(max_window_keys=4)
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)], policy=policy)
    assert len(compile_suite(suite).rules) == 5
    tight = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)], policy=RulePolicy(max_window_keys=3))
    with pytest.raises(PolicyError) as err:
        compile_suite(tight)
    assert err.value.item_id == Id(20, 1) and "more than 3 different key sets" in err.value.message


def test_ranking_by_arrival_order_gets_the_rows_own_values_as_tie_breakers() -> None:
    ranked = parse_expression("row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1")
    assert needs_total_order(ranked)
    for text in ("rank() OVER (PARTITION BY k ORDER BY t) = 1", "count(*) OVER (PARTITION BY k)"):
        assert not needs_total_order(parse_expression(text))
    ordered = with_total_order(ranked, [("k", True), ("t", True), ("m", False), ("n", False)])
    assert ordered.sql("spark") == (
        "ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC, `k`, `t`, TO_JSON(STRUCT(`m`, `n`))) = 1"
    )
    assert ranked.sql("spark").endswith("ORDER BY t DESC) = 1")  # the input is not changed


def test_costs_name_the_keys_and_the_views() -> None:
    tree = parse_expression(
        "count(*) OVER (PARTITION BY a) = 1 AND EXISTS(SELECT 1 FROM airlines WHERE x = 1)"
    )
    assert key_sets(tree) == {("a",)}
    assert costs(tree) == (
        "a shuffle and sort of the input on (a), shared with every rule over the same keys",
        "a join with the view airlines (broadcast when it is small, else a shuffle on the key)",
    )


def test_validate_reports_what_each_rule_costs_apart_from_errors_and_warnings() -> None:
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "is_unique(a)"), Rule(Id(4, 1), "a > 0")])],
    )
    report = validate(suite)
    assert report.ok and report.warnings == ()
    assert [(n.item_id, n.message) for n in report.notes] == [
        (
            Id(3, 1),
            "a shuffle and sort of the input on (a), shared with every rule over the same keys",
        )
    ]
    assert "costs:\n  - Cost in rule 3.1: a shuffle and sort" in report.format()


def test_builders_write_rule_text_that_compiles() -> None:
    policy = RulePolicy().with_views("planes")
    texts = [
        unique_rule("carrier", "flight"),
        unique_rule("odd name`", nulls="equal"),
        keep_one_rule("tailnum", order_by="dep_time DESC NULLS LAST, flight"),
        reference_rule("planes", ["tailnum"]),
        reference_rule("planes", {"tailnum": "tail"}, negate=True, null_safe=True),
        group_limit_rule(["tailnum"], at_most=4),
        group_limit_rule(["customer"], "sum", "amount", at_least=0, at_most=1e6),
        group_limit_rule(["customer"], "count_distinct", "card", at_most=3),
    ]
    for text in texts:
        assert _compile(text, policy), text
    assert unique_rule("odd name`", nulls="equal") == "is_unique_nulls_equal(`odd name```)"
    assert group_limit_rule(["c"], "sum", "x", at_least=0, at_most=10) == (
        "COALESCE(SUM(`x`) OVER (PARTITION BY `c`) >= 0 AND SUM(`x`) OVER (PARTITION BY `c`) "
        "<= 10, TRUE)"
    )


@pytest.mark.parametrize(
    ("build", "needle"),
    [
        (lambda: unique_rule(), "one or more column names"),
        (lambda: unique_rule("a", nulls="maybe"), "'distinct' or 'equal'"),
        (lambda: keep_one_rule("a", order_by="t; DROP TABLE x"), "order terms"),
        (lambda: keep_one_rule("a", order_by="t LIMIT 1"), "order terms"),
        (lambda: reference_rule("", ["a"]), "view's name"),
        (lambda: reference_rule("v", []), "one or more key columns"),
        (lambda: group_limit_rule(["a"], "median", "x", at_most=1), "aggregate is one of"),
        (lambda: group_limit_rule(["a"], "sum", at_most=1), "needs the column"),
        (lambda: group_limit_rule(["a"]), "at_most, at_least or both"),
        (lambda: group_limit_rule(["a"], at_most=float("nan")), "finite number"),
        (lambda: group_limit_rule("a", at_most=1), "one or more column names"),
    ],
)
def test_builders_refuse_what_is_not_a_rule(build, needle: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match=needle):
        build()


def test_explain_shows_what_a_rule_costs() -> None:
    from quality_py import explain_rules

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "is_unique(b, a)")])])
    (explained,) = explain_rules(suite)
    assert explained.costs == (
        "a shuffle and sort of the input on (a, b), shared with every rule over the same keys",
    )
    assert "  costs:    a shuffle and sort of the input on (a, b)" in explained.format()
