"""Meta rule sets and missing-attribute fallbacks (contract section 8), no JVM."""

from __future__ import annotations

import pytest
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType
from sqlglot import parse_one

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.errors import LibraryFunctionError, ModelError
from quality_py.model import MetaRuleSet
from quality_py.prepare import (
    expand_meta_rule_set,
    name_position,
    prepare_for_schema,
    process_if_attributes_missing,
)
from quality_py.prepare.missing_attributes import rewrite_missing_attributes
from quality_py.sql.compiler import compile_suite

pytestmark = pytest.mark.packaging  # what is installed decides its outcome

PERSON = StructType(
    [
        StructField("name", StringType(), False),
        StructField("age", LongType(), False),
        StructField("fren", StringType(), True),
    ]
)
ONE_COL = StructType([StructField("col1", StringType())])


@pytest.mark.parametrize(
    ("meta", "position", "expected"),
    [
        (MetaRuleSet(Id(1, 2), "", "arg -> exp(arg)"), 1, (Id(2, 2), "EXP(col1)")),
        # the parameter is replaced as an identifier: `argument` and 'arg' stay as written
        (
            MetaRuleSet(Id(2, 4), "", "arg -> concat(argument, arg, 'arg')"),
            2,
            (Id(4, 4), "CONCAT(argument, col1, 'arg')"),
        ),
        (
            MetaRuleSet(Id(4, 8), "", "arg -> exp(1 + arg * othercol)"),
            20,
            (Id(24, 8), "EXP(1 + col1 * othercol)"),
        ),
    ],
)
def test_meta_rules_substitute_the_column_and_offset_the_id(
    meta: MetaRuleSet, position: int, expected: tuple[Id, str]
) -> None:
    rules = expand_meta_rule_set(meta, ONE_COL, lambda _c: position).rules
    assert [(r.id, r.expression) for r in rules] == [expected]


@pytest.mark.parametrize(
    ("column_filter", "selected"),
    [
        ("name = 'name'", ["name"]),
        ("datatype = 'STRING' ", ["name", "fren"]),
        ("nullable = true", ["fren"]),
        ("datatype = 'BIGINT' ", ["age"]),
        ("nullable OR datatype IN ('BIGINT')", ["age", "fren"]),
        ("lower(name) LIKE 'f%' AND NOT (datatype = 'INT')", ["fren"]),
        ("", ["name", "age", "fren"]),
    ],
)
def test_column_filters_select_columns(column_filter: str, selected: list[str]) -> None:
    meta = MetaRuleSet(Id(100, 1), column_filter, "c -> c IS NOT NULL")
    positions = {"name": 1, "age": 2, "fren": 3}
    rules = expand_meta_rule_set(meta, PERSON, positions).rules
    by_position = {v: k for k, v in positions.items()}
    assert sorted(by_position[r.id.id - 100] for r in rules) == sorted(selected)


@pytest.mark.parametrize(
    "bad", ["exists(select 1)", "name = 1", "reflect('java.lang.Runtime', 'x')", "size(name) > 0"]
)
def test_column_filters_outside_the_allowlist_are_refused(bad: str) -> None:
    with pytest.raises(ModelError) as err:
        expand_meta_rule_set(MetaRuleSet(Id(5, 1), bad, "c -> c > 0"), PERSON)
    assert err.value.code == "META_RULE_SET" and err.value.item_id == Id(5, 1)


def test_default_positions_depend_on_the_name_only() -> None:
    meta = MetaRuleSet(Id(1000, 1), "nullable", "c -> c IS NOT NULL")
    first = expand_meta_rule_set(meta, PERSON).rules
    more = StructType([StructField("zz", StringType()), *PERSON.fields])
    again = {r.expression: r.id for r in expand_meta_rule_set(meta, more).rules}
    assert [r.id for r in first] == [Id(1000 + name_position("fren"), 1)]
    assert again[first[0].expression] == first[0].id
    assert again[first[0].expression.replace("fren", "zz")] == Id(1000 + name_position("zz"), 1)


def test_full_load_matches_the_contract_example() -> None:
    suite = RuleSuite(
        Id(1, 2),
        [],
        meta_rule_sets=[MetaRuleSet(Id(3, 4), "nullable = true", "col -> isNull(col)")],
    )
    prepared = prepare_for_schema(suite, PERSON, {"fren": 5, "name": 6, "age": 7})
    assert prepared.meta_rule_sets == ()
    assert [(rs.id, [(r.id, r.expression) for r in rs.rules]) for rs in prepared.rule_sets] == [
        (Id(3, 4), [(Id(8, 4), "ISNULL(fren)")])
    ]
    with pytest.raises(ModelError) as err:
        compile_suite(suite)
    assert err.value.code == "META_RULE_SET"


FIELD_A = frozenset({"fielda"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("coalesceIfAttributesMissingDisable(fieldb > 1)", "-2"),
        ("coalesceIfAttributesMissing(fieldb > 1, 42)", "42"),
        ("coalesceIfAttributesMissing(fielda > 1, 42)", "(fielda > 1)"),
        ("coalesce_if_attributes_missing(fieldb > 1)", "NULL"),
        (
            "isNull(coalesceIfAttributesMissing(fieldb > 0, coalesceIfAttributesMissing(fieldb < 3,"
            " coalesceIfAttributesMissing(twentyfieldsDeep, fielda <> 19))))",
            "ISNULL((fielda <> 19))",
        ),
        (
            "isNull(coalesceIfAttributesMissing(fieldb > 0, coalesceIfAttributesMissing(fieldb < 3,"
            " coalesceIfAttributesMissing(twentyfieldsDeep, fieldb <> 19))))",
            "ISNULL(NULL)",
        ),
        # a higher-order function's variable is not an attribute
        (
            "coalesceIfAttributesMissing(exists(array(fielda), x -> x > 1), 0)",
            "(EXISTS(ARRAY(fielda), x -> x > 1))",
        ),
    ],
)
def test_missing_attribute_fallbacks(text: str, expected: str) -> None:
    assert (
        rewrite_missing_attributes(parse_one(text, read="spark"), FIELD_A).sql("spark") == expected
    )


def test_fallbacks_rewrite_rules_outputs_and_lambdas_and_need_a_schema() -> None:
    schema = StructType([StructField("fielda", IntegerType()), StructField("s", PERSON)])
    out = OutputExpression(Id(9, 1), "coalesceIfAttributesMissing(s.nope, s.age)")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "coalesceIfAttributesMissing(s.fren, 1)", output=out)])],
        lambdas=[
            LambdaFunction(
                "f", "variable -> coalesceIfAttributesMissing(fieldb > 1, true)", Id(7, 1)
            )
        ],
    )
    done = process_if_attributes_missing(suite, schema)
    rule = done.rule_sets[0].rules[0]
    assert (rule.expression, rule.output.expression) == ("s.fren", "s.age")  # type: ignore[union-attr]
    assert done.lambdas[0].expression == "variable -> TRUE"
    with pytest.raises(LibraryFunctionError) as err:
        compile_suite(suite)
    assert err.value.item_id == Id(3, 1) and "schema" in err.value.message


def test_meta_rule_set_expansion_keeps_the_policy_and_descriptions() -> None:
    from pyspark.sql.types import StringType, StructField, StructType

    from quality_py import Id, RuleSet, RuleSuite
    from quality_py.model import MetaRuleSet, Rule
    from quality_py.model.policy import RulePolicy
    from quality_py.prepare import prepare_for_schema
    from quality_py.sql.compiler import compile_suite

    policy = RulePolicy().with_views("airports")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1), [Rule(Id(3, 1), "EXISTS(SELECT 1 FROM airports a WHERE a.faa = origin)")]
            )
        ],
        meta_rule_sets=[MetaRuleSet(Id(60, 1), "true", "c -> c IS NOT NULL", "no nulls")],
    ).with_policy(policy)
    schema = StructType([StructField("origin", StringType())])
    prepared = prepare_for_schema(suite, schema)
    assert prepared.policy == policy
    assert [rs.description for rs in prepared.rule_sets] == [None, "no nulls"]
    compiled = compile_suite(prepared)  # the subquery over an allowed view still compiles
    assert len(compiled.rules) == 2
