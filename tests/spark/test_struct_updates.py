"""update_field / drop_field on any struct-valued expression (expected rows by hand)."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    Id,
    LambdaFunction,
    OutputExpression,
    QualityError,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
    rule_engine_with_struct,
    rule_folder_with_struct,
)

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ROW_DDL = "struct<account:string,subcode:int>"
LAMBDAS = [
    LambdaFunction(
        "account_row", "(acc, sub) -> named_struct('account', acc, 'subcode', sub)", Id(1, 1)
    ),
    LambdaFunction("subcode", "(row, c) -> updateField(row, 'subcode', c)", Id(2, 1)),
]


@pytest.fixture(scope="module")
def trades(spark: Any) -> Any:
    return spark.createDataFrame(
        [("edt", "4201", 40, ("src", 1)), ("otc", "5201", 50, None), ("fx", "4206", 90, ("x", 2))],
        "product string, account string, subcode int, meta struct<source:string,level:int>",
    )


def test_engine_outputs_update_a_lambda_result(trades: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(
                        Id(10, 1),
                        "product = 'edt'",
                        1,
                        OutputExpression(
                            Id(100, 1), "subcode(account_row(account, subcode), 1234)"
                        ),
                    ),
                    Rule(
                        Id(11, 1),
                        "product = 'otc'",
                        1,
                        OutputExpression(
                            Id(101, 1),
                            "updateField(updateField(account_row('a', 1), 'account', 'b'), 'subcode', 2)",
                        ),
                    ),
                ],
            )
        ],
        lambdas=LAMBDAS,
    )
    out = rule_engine_with_struct(trades, suite, ROW_DDL)
    got = {
        r.product: None if r.ruleEngine.result is None else tuple(r.ruleEngine.result)
        for r in out.collect()
    }
    assert got == {"edt": ("4201", 1234), "otc": ("b", 2), "fx": None}


def test_input_struct_columns_and_nested_paths(trades: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    # an input struct column, a nested path into it, a field added
                    Rule(Id(10, 1), "updateField(meta, 'level', 5).level = 5"),
                    Rule(Id(11, 1), "updateField(meta, 'extra', 'e').source = meta.source"),
                    Rule(
                        Id(12, 1),
                        "updateField(named_struct('m', meta), 'm.level', 7).m.source = meta.source",
                    ),
                    Rule(
                        Id(13, 1),
                        "size(map_keys(map('k', dropField(named_struct('a', 1, 'b', meta), 'b')))) = 1",
                    ),
                ],
            )
        ],
    )
    out = add_data_quality(trades, suite)
    results = {
        r.product: dict(r.DataQuality.ruleSetResults[Id(2, 1).packed].ruleResults)
        for r in out.collect()
    }
    p = {Id(n, 1).packed: n for n in (10, 11, 12, 13)}
    by_rule = {prod: {p[k]: v for k, v in res.items()} for prod, res in results.items()}
    # a null struct updates to null (withField semantics): comparisons with null fail
    assert by_rule["edt"] == {10: 100000, 11: 100000, 12: 100000, 13: 100000}
    assert by_rule["otc"] == {10: 0, 11: 0, 12: 0, 13: 100000}


def test_nested_path_keeps_the_other_fields_of_an_input_struct(trades: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(
                        Id(10, 1),
                        "true",
                        1,
                        OutputExpression(
                            Id(100, 1),
                            "updateField(named_struct('m', meta, 'p', product), 'm.level', 7)",
                        ),
                    )
                ],
            )
        ],
    )
    out = rule_engine_with_struct(
        trades, suite, "struct<m:struct<source:string,level:int>,p:string>"
    )
    got = {r.product: r.ruleEngine.result for r in out.collect()}
    assert (got["edt"].m.source, got["edt"].m.level, got["edt"].p) == ("src", 7, "edt")
    assert got["otc"].m is None  # a null parent stays null


def test_folder_outputs_nest_updates(trades: Any) -> None:
    out_expr = OutputExpression(
        Id(100, 1), "x -> updateField(updateField(x, 'account', 'z'), 'subcode', x.subcode + 1)"
    )
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "subcode < 60", 1, out_expr)])])
    out = rule_folder_with_struct(trades, suite, "struct(account, subcode)")
    got = {
        r.product: None if r.ruleFolder.result is None else tuple(r.ruleFolder.result)
        for r in out.collect()
    }
    assert got == {"edt": ("z", 41), "otc": ("z", 51), "fx": None}


def test_an_unknown_struct_is_an_error_naming_the_rule(trades: Any) -> None:
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "updateField(nope, 'a', 1).a = 1")])]
    )
    with pytest.raises(QualityError) as err:
        add_data_quality(trades, suite)
    assert err.value.item_id == Id(10, 1) and "update_field" in err.value.message
