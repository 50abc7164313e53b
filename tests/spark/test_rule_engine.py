"""The rule engine (contract section 3.2) on small hand-made data with expected rows."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    FAILED,
    Id,
    LambdaFunction,
    ModelError,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
)
from quality_py.model.policy import RulePolicy
from quality_py.runners.rule_engine import rule_engine_runner, rule_engine_with_struct

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ACC = OutputExpression(Id(1000, 1), "concat('acc-', product)")
SUB40 = OutputExpression(Id(1001, 1), "'sub40'")
UPPER = OutputExpression(Id(1002, 1), "shout(product)")
NEVER = OutputExpression(Id(1003, 1), "'never'")
NULL_OUT = OutputExpression(Id(1004, 1), "CAST(NULL AS STRING)")
BOOM = OutputExpression(Id(1005, 1), "raise_error('a losing output was evaluated')")

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(50, 1),
            [
                Rule(Id(100, 1), "account = '4201'", salience=100, output=ACC),
                Rule(Id(200, 1), "subcode = 40", salience=100, output=SUB40),
                Rule(Id(300, 1), "isOtc(product)", salience=50, output=UPPER),
                Rule(Id(400, 1), "0.9", salience=1, output=NEVER),
            ],
        ),
        RuleSet(
            Id(51, 1),
            [
                Rule(Id(500, 1), "product = 'fi'", salience=200, output=NULL_OUT),
                Rule(Id(600, 1), "subcode = 40 AND product <> 'otc'", salience=9999, output=BOOM),
            ],
        ),
    ],
    lambdas=[
        LambdaFunction("isOtc", "p -> p LIKE '%otc'", Id(9, 1)),
        LambdaFunction("shout", "p -> upper(p)", Id(10, 1)),
    ],
).with_policy(RulePolicy.trusted_policy())  # BOOM calls raise_error, which the default refuses

# product -> (result, winning rule id or None)
EXPECTED = {
    "edt": ("acc-edt", 100),  # rules 100 and 200 tie at 100: the first declared wins
    "otc": ("OTC", 300),  # lower salience wins
    "fi": (None, 500),  # the winner's output is null
    "fx": (None, None),  # nothing fired (the 0.9 trigger is a probability: never fires)
    "fxotc": ("FXOTC", 300),
    "eqotc": ("EQOTC", 300),
}


@pytest.fixture(scope="module")
def trades(spark: Any) -> Any:
    return spark.createDataFrame(
        [
            ("edt", "4201", 40),
            ("otc", "5201", 40),
            ("fi", "4251", 50),
            ("fx", "4206", 90),
            ("fxotc", "4201", 40),
            ("eqotc", "4201", 60),
        ],
        "product string, account string, subcode int",
    )


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_salience_ties_null_outputs_and_no_match(trades: Any, layout: str) -> None:
    out = rule_engine_with_struct(trades, SUITE, "string", layout=layout)
    assert (
        out.schema["ruleEngine"]
        .dataType.simpleString()
        .endswith(
            ",salientRule:struct<ruleSuiteId:bigint,ruleSetId:bigint,ruleId:bigint>,result:string>"
        )
    )
    got = {}
    for r in out.collect():
        salient = r.ruleEngine.salientRule
        got[r.product] = (
            r.ruleEngine.result,
            None if salient is None else Id.unpack(salient.ruleId).id,
        )
        if salient is not None:
            assert salient.ruleSuiteId == Id(1, 1).packed
        assert r.ruleEngine.ruleSuiteResults.overallResult == FAILED  # non-matching triggers fail
    assert got == EXPECTED


def test_debug_lists_every_fired_trigger_in_salience_order(trades: Any) -> None:
    # Debug evaluates every fired output, so the raise_error rule is left out here.
    suite = RuleSuite(
        SUITE.id,
        [SUITE.rule_sets[0], RuleSet(Id(51, 1), SUITE.rule_sets[1].rules[:1])],
        lambdas=SUITE.lambdas,
    )
    out = rule_engine_with_struct(trades, suite, "string", debug=True)
    assert out.schema["ruleEngine"].dataType["result"].dataType.simpleString() == (
        "array<struct<salience:int,result:string>>"
    )
    got = {
        r.product: None
        if r.ruleEngine.result is None
        else [(x.salience, x.result) for x in r.ruleEngine.result]
        for r in out.select("product", "ruleEngine").collect()
        if r.product != "edt" and r.product != "eqotc" and r.product != "fxotc"
    }
    # "fi" fired one trigger whose output is null: that entry is left out, and a row with no
    # entry is null, as is "fx", where nothing fired (contract 3.2, the generated-code path)
    assert got == {"otc": [(50, "OTC"), (100, "sub40")], "fi": None, "fx": None}
    assert {r.ruleEngine.salientRule for r in out.collect()} == {None}


def test_outputs_can_use_correlated_subqueries(spark: Any, trades: Any) -> None:
    spark.createDataFrame([(10,), (45,), (70,)], "k int").createOrReplaceTempView(
        "qp_engine_limits"
    )
    nxt = OutputExpression(
        Id(7, 1), "(SELECT min(l.k) FROM qp_engine_limits l WHERE l.k > main.subcode)"
    )
    suite = RuleSuite(
        Id(2, 1), [RuleSet(Id(1, 1), [Rule(Id(1, 1), "subcode < 65", salience=1, output=nxt)])]
    ).with_policy(RulePolicy().with_views("qp_engine_limits"))
    got = {
        r.product: r.e.result for r in rule_engine_with_struct(trades, suite, "int", "e").collect()
    }
    assert got == {"edt": 45, "otc": 45, "fi": 70, "fx": None, "fxotc": 45, "eqotc": 70}


def test_single_column_runner_matches(trades: Any) -> None:
    small = RuleSuite(SUITE.id, [SUITE.rule_sets[0]], lambdas=SUITE.lambdas)
    out = trades.select("product", rule_engine_runner(small, "string").alias("e"))
    assert {r.product: r.e.result for r in out.collect()} == {
        "edt": "acc-edt",
        "otc": "OTC",
        "fi": None,
        "fx": None,
        "fxotc": "FXOTC",
        "eqotc": "EQOTC",
    }


def test_a_rule_without_output_is_an_error_naming_it(trades: Any) -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 4), "true")])])
    with pytest.raises(ModelError) as err:
        rule_engine_with_struct(trades, suite, "string")
    assert err.value.code == "MISSING_OUTPUT"
    assert err.value.item_id == Id(3, 4)


def test_struct_result_types(trades: Any) -> None:
    out_expr = OutputExpression(Id(1, 1), "named_struct('p', product, 'n', subcode * 2)")
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "subcode > 55", output=out_expr)])]
    )
    got = rule_engine_with_struct(trades, suite, "struct<p: string, n: bigint>").collect()
    assert {
        r.product: (None if r.ruleEngine.result is None else tuple(r.ruleEngine.result))
        for r in got
    } == {
        "edt": None,
        "otc": None,
        "fi": None,
        "fx": ("fx", 180),
        "fxotc": None,
        "eqotc": ("eqotc", 120),
    }


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_flatten_rule_results(trades: Any, layout: str) -> None:
    from pyspark.sql import functions as F

    from quality_py.functions import flatten_rule_results

    out = rule_engine_with_struct(trades, SUITE, "string", "e", layout=layout)
    lay = SUITE if layout == "compact" else "map"
    flat = out.select("product", F.explode(flatten_rule_results("e", layout=lay)).alias("f"))
    fields = flat.schema["f"].dataType.fieldNames()
    assert fields[-2:] == ["salientRule", "result"] and len(fields) == 11
    rows = (
        flat.filter("product = 'otc'")
        .select("f.ruleId", "f.ruleResult", "f.result", "f.salientRule.ruleId")
        .collect()
    )
    assert len(rows) == 6
    assert {(r[0], r[1]) for r in rows} == {
        (100, 0),
        (200, 100000),
        (300, 100000),
        (400, 90000),
        (500, 0),
        (600, 0),
    }
    assert {(r[2], r[3]) for r in rows} == {("OTC", Id(300, 1).packed)}
