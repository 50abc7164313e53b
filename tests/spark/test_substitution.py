"""No rule text reads a secret through Spark's variable substitution (issue 24, mechanism 2).

Spark replaces ``${env:NAME}``, ``${system:prop}`` and ``${any.spark.conf}`` in every SQL text it
parses, string literals included. Expected values by hand: the text ``${spark.app.name}`` is
compared as those 17 characters, never as the application's name, in a
rule, an engine output, a SQL check and a lookup map's key; a name holding ``${`` is refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    FAILED,
    PASSED,
    Id,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
    rule_engine_with_struct,
)
from quality_py.actions.sql_checks import SqlCheck, run_sql_checks
from quality_py.errors import PolicyError
from quality_py.model.policy import RulePolicy

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

TEXTS = ["${spark.app.name}", "${system:java.version}", "${env:PATH}", "a${spark.app.name}$${x}"]


@pytest.mark.parametrize("text", TEXTS)
def test_a_rule_compares_the_text_not_the_secret(spark: Any, text: str) -> None:
    app = spark.conf.get("spark.app.name")  # what substitution would read for the conf case
    df = spark.createDataFrame([(1, text), (2, app)], "k int, s string")
    literal = text.replace("\\", "\\\\").replace("'", "\\'")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), f"s = '{literal}'")])])
    out = add_data_quality(df, suite, layout="compact").orderBy("k").collect()
    assert [r.DataQuality.overallResult for r in out] == [PASSED, FAILED]


def test_outputs_and_sql_checks_print_the_text(spark: Any) -> None:
    df = spark.createDataFrame([(1,)], "k int")
    output = OutputExpression(Id(9, 1), "'${spark.app.name}'")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "k > 0", 1, output)])])
    assert rule_engine_with_struct(df, suite, "string", "e").first().e.result == (
        "${spark.app.name}"
    )
    checks = [
        SqlCheck("conf", f"SELECT '${{spark.app.name}}' = '{spark.conf.get('spark.app.name')}'"),
        SqlCheck("env", "max('${env:PATH}') = '${env:PATH}'"),
    ]
    out = run_sql_checks(checks, {"source": df}, RulePolicy())
    assert [m.status for m in out] == ["failed", "passed"]
    assert all(spark.conf.get("spark.app.name") not in (m.message or "") for m in out)


def test_names_holding_the_substitution_are_refused(spark: Any) -> None:
    df = spark.createDataFrame([(1,)], "k int")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "`${spark.app.name}` > 0")])])
    with pytest.raises(PolicyError) as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(3, 1)


def test_reference_data_sql_passes_the_same_policy(spark: Any) -> None:
    """View definitions, their filters and a map's key and value are rule text too: the same
    policy refuses what it refuses in rules, and a ``${`` in them stays text."""
    from quality_py.errors import ReferenceDataError
    from quality_py.io.views import MapConfig, ViewConfig, load_views

    spark.createDataFrame([("a", 1)], "k string, v int").createOrReplaceTempView("qp_sub_rows")
    secret = ViewConfig("qp_sub_view", sql="SELECT k, '${spark.app.name}' AS app FROM qp_sub_rows")
    load_views(spark, (secret,))
    assert spark.table("qp_sub_view").first().app == "${spark.app.name}"
    bad = [
        ViewConfig(
            "qp_sub_bad",
            sql="SELECT reflect('java.lang.System', 'getenv', 'HOME') FROM qp_sub_rows",
        ),
        ViewConfig("qp_sub_bad", sql="SELECT current_user() AS u FROM qp_sub_rows"),
        ViewConfig("qp_sub_bad", source="x.csv", filter="user = 'root'"),
    ]
    for view in bad:
        with pytest.raises(ReferenceDataError, match="qp_sub_bad"):
            load_views(spark, (view,))
    with pytest.raises(ReferenceDataError, match="qp_sub_map"):
        load_views(
            spark, (), (MapConfig("qp_sub_map", "qp_sub_rows", "java_method('a', 'b')", "v"),)
        )
