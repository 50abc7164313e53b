"""The rule folder (contract section 3.3) on small hand-made data with expected rows."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from quality_py import (
    Id,
    LambdaFunction,
    ModelError,
    OutputExpression,
    QualityError,
    Rule,
    RuleSet,
    RuleSuite,
    fold_and_replace_fields,
    rule_folder_runner,
    rule_folder_with_struct,
)
from quality_py.functions import flatten_folder_results

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SUFFIX = OutputExpression(Id(100, 1), "set(account = concat(currentResult.account, '_x'))")
BUMP = OutputExpression(Id(101, 1), "x -> update_field(x, 'subcode', x.subcode + 1)")
NESTED = OutputExpression(Id(102, 1), "set(meta.source = 'rules', meta.level = lvl(subcode))")
NEVER = OutputExpression(Id(103, 1), "set(account = 'never')")

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(2, 1),
            [
                Rule(Id(10, 1), "subcode = 40", salience=20, output=SUFFIX),
                Rule(Id(11, 1), "product = 'edt'", salience=10, output=BUMP),
                Rule(Id(12, 1), "product LIKE '%otc'", salience=20, output=BUMP),  # shared output
                Rule(Id(13, 1), "0.6", salience=1, output=NEVER),  # a probability: never fires
            ],
        ),
        RuleSet(Id(3, 1), [Rule(Id(14, 1), "subcode > 50", salience=30, output=NESTED)]),
    ],
    lambdas=[LambdaFunction("lvl", "s -> IF(s > 80, 'high', 'mid')", Id(9, 1))],
)
STARTER = "struct(product, account, subcode, named_struct('source', 'input', 'level', '') AS meta)"


@pytest.fixture(scope="module")
def trades(spark: Any) -> Any:
    return spark.createDataFrame(
        [
            ("edt", "4201", 40),
            ("otc", "5201", 40),
            ("fi", "4251", 50),
            ("fx", "4206", 90),
            ("eqotc", "4201", 60),
        ],
        "product string, account string, subcode int",
    )


def _result(r: Any) -> Any:
    res = r.ruleFolder.result
    return None if res is None else (res.account, res.subcode, res.meta.source, res.meta.level)


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_outputs_fold_in_salience_order(trades: Any, layout: str) -> None:
    out = rule_folder_with_struct(trades, SUITE, STARTER, layout=layout)
    got = {r.product: _result(r) for r in out.collect()}
    assert got == {
        "edt": ("4201_x", 41, "input", ""),  # BUMP (10) then SUFFIX (20)
        "otc": ("5201_x", 41, "input", ""),  # tie at 20: SUFFIX (declared first) then BUMP
        "fi": None,  # nothing fired: null, not the starter
        "fx": ("4206", 90, "rules", "high"),  # nested set paths
        "eqotc": ("4201", 61, "rules", "mid"),  # BUMP (20) then NESTED (30) sees subcode 61
    }


def test_debug_records_every_step(trades: Any) -> None:
    out = rule_folder_with_struct(trades, SUITE, STARTER, debug=True)
    steps = {
        r.product: None
        if r.ruleFolder.result is None
        else [(s.salience, s.result.account, s.result.subcode) for s in r.ruleFolder.result]
        for r in out.collect()
    }
    assert steps["edt"] == [(10, "4201", 41), (20, "4201_x", 41)]
    assert steps["otc"] == [(20, "5201_x", 40), (20, "5201_x", 41)]
    assert steps["fi"] is None  # nothing fired: null, not an empty array


def test_single_column_runner(trades: Any) -> None:
    ddl = (
        "struct<product:string,account:string,subcode:int,meta:struct<source:string,level:string>>"
    )
    out = trades.select("product", rule_folder_runner(SUITE, STARTER, ddl).alias("ruleFolder"))
    assert {r.product: _result(r) for r in out.collect()}["eqotc"] == ("4201", 61, "rules", "mid")


@pytest.mark.parametrize("maintain_order", [True, False])
def test_fold_and_replace_fields(trades: Any, maintain_order: bool) -> None:
    suite = RuleSuite(SUITE.id, [SUITE.rule_sets[0]])
    out = fold_and_replace_fields(
        trades, suite, ["account", "subcode"], maintain_order=maintain_order
    )
    if maintain_order:
        assert out.columns == ["product", "account", "subcode", "foldedFields"]
    else:
        assert out.columns == ["product", "foldedFields", "account", "subcode"]
    got = {r.product: (r.account, r.subcode) for r in out.collect()}
    assert got == {
        "edt": ("4201_x", 41),
        "otc": ("5201_x", 41),
        "fi": (None, None),
        "fx": (None, None),
        "eqotc": ("4201", 61),
    }
    debug = fold_and_replace_fields(trades, suite, ["account", "subcode"], debug=True)
    assert {r.product: (r.account, r.subcode) for r in debug.collect()} == got


def test_flatten_folder_results(trades: Any) -> None:
    out = rule_folder_with_struct(trades, SUITE, STARTER, "f", layout="compact")
    flat = out.select("product", F.explode(flatten_folder_results("f", layout=SUITE)).alias("x"))
    assert flat.schema["x"].dataType.fieldNames()[-1] == "result"
    rows = (
        flat.filter("product = 'edt'")
        .select("x.ruleId", "x.ruleResult", "x.result.account")
        .collect()
    )
    assert sorted(tuple(r) for r in rows) == [
        (10, 100000, "4201_x"),
        (11, 100000, "4201_x"),
        (12, 0, "4201_x"),
        (13, 60000, "4201_x"),
        (14, 0, "4201_x"),
    ]


@pytest.mark.parametrize("text", ["set('lit')", "set(1 = 'lit')", "'just a value'", "(a, b) -> a"])
def test_malformed_outputs_name_the_output_and_rules(trades: Any, text: str) -> None:
    bad = OutputExpression(Id(77, 2), text)
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(5, 1), "true", output=bad)])])
    with pytest.raises(QualityError) as err:
        rule_folder_with_struct(trades, suite, STARTER)
    assert err.value.code == "FOLDER_OUTPUT"
    assert err.value.item_id == Id(77, 2)
    assert "Id(5, 1)" in err.value.message


def test_rules_without_outputs_are_rejected(trades: Any) -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(5, 3), "true")])])
    with pytest.raises(ModelError) as err:
        rule_folder_with_struct(trades, suite, STARTER)
    assert err.value.code == "MISSING_OUTPUT" and err.value.item_id == Id(5, 3)


WHOLE = OutputExpression(  # uses the whole struct, not just its fields
    Id(104, 1),
    "x -> named_struct('product', x.product, 'account', substr(to_json(x), 1, 14), "
    "'subcode', x.subcode * 2, 'meta', x.meta)",
)
MAYBE_NULL = OutputExpression(Id(105, 1), "x -> IF(x.subcode > 45, x, NULL)")  # not a constructor
DDL = "struct<product:string,account:string,subcode:int,meta:struct<source:string,level:string>>"
NULLABLE_STARTER = f"IF(subcode = 50, NULL, {STARTER})"


def _extra_suite(*outputs: OutputExpression) -> RuleSuite:
    rules = [
        Rule(Id(20 + i, 1), "subcode <> 50", salience=5 + i, output=o)
        for i, o in enumerate(outputs)
    ]
    return RuleSuite(SUITE.id, [*SUITE.rule_sets, RuleSet(Id(4, 1), rules)], lambdas=SUITE.lambdas)


def _folded_columns(df: Any) -> bool:
    return "__qp_f0" in df._jdf.queryExecution().analyzed().toString()


@pytest.mark.parametrize(
    ("suite", "starter", "field_wise"),
    [
        (SUITE, STARTER, True),
        (_extra_suite(WHOLE), STARTER, True),
        (_extra_suite(WHOLE, MAYBE_NULL), STARTER, False),
        (SUITE, NULLABLE_STARTER, False),
    ],
    ids=["set-sugar", "whole-struct", "non-constructor", "nullable-starter"],
)
def test_field_wise_fold_keeps_meaning(
    trades: Any, suite: RuleSuite, starter: str, field_wise: bool
) -> None:
    """The per-field fast path equals the single-expression ``aggregate`` fold, row by row."""
    fast = rule_folder_with_struct(trades, suite, starter)
    assert _folded_columns(fast) is field_wise
    reference = trades.select(
        "product", rule_folder_runner(suite, starter, DDL).alias("ruleFolder")
    )
    expected = {r.product: r.ruleFolder.result for r in reference.collect()}
    got = {r.product: r.ruleFolder.result for r in fast.collect()}
    assert got == expected
    assert any(v is not None for v in got.values()) and any(v is None for v in got.values())
