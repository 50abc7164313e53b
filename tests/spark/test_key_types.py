"""Reference data is looked up in its own key type, or the rule is refused (sql/allowed/key_types.py).

Expected values by hand: a map keyed by the text '01' holds no key equal to the number 1, so a
rule that compares the two is refused naming the rule, the map and both types, in every runner,
with ANSI on and off; a rule that casts explicitly compares text with text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality, rule_runner, validate
from quality_py.errors import LibraryFunctionError
from quality_py.io.blooms import build_bloom, register_bloom
from quality_py.io.views import MapConfig, load_views
from quality_py.sql.allowed.key_types import explain_guard_error

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


@pytest.fixture(params=["true", "false"])
def ansi(spark: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", old)


@pytest.fixture
def zips(spark: Any) -> tuple[str, ...]:
    spark.createDataFrame(
        [("01", "X"), ("1", "Y"), ("A7", "Z")], "zip string, place string"
    ).createOrReplaceTempView("qp_zip_rows")
    loaded = load_views(spark, (), (MapConfig("zm", "qp_zip_rows", "zip", "place"),))
    return loaded.names


def _suite(names: tuple[str, ...], *rules: str) -> RuleSuite:
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10 + i, 1), r) for i, r in enumerate(rules)])]
    )
    return suite.with_policy(suite.policy.with_views(*names))


@pytest.mark.parametrize(
    "rule", ["map_lookup('zm', k) = 'X'", "map_contains('zm', k)", "mapLookup('zm', k + 0) IS NULL"]
)
def test_an_int_key_on_a_text_map_is_refused_naming_rule_map_and_types(
    ansi: Any, zips: tuple[str, ...], rule: str
) -> None:
    df = ansi.createDataFrame([(1,), (2,)], "k int")
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, _suite(zips, rule))
    e = err.value
    assert e.code == "KEY_TYPE" and e.item_id == Id(10, 1)
    text = str(e)
    assert "'zm'" in text and "string" in text and " int" in text and "CAST(" in text


def test_the_explicit_cast_compares_text_with_text(ansi: Any, zips: tuple[str, ...]) -> None:
    df = ansi.createDataFrame([(1,), (7,), (None,)], "k int")
    suite = _suite(zips, "map_lookup('zm', CAST(k AS STRING)) = 'Y'", "map_contains('zm', 'A7')")
    out = add_data_quality(df, suite, layout="compact").orderBy("k").collect()
    # null key: absent (Failed); 1 -> '1' -> 'Y' (the text '01' is another key); 7 -> '7' absent
    assert [list(r.DataQuality.ruleResults) for r in out] == [
        [0, 100000],
        [100000, 100000],
        [0, 100000],
    ]


def test_integral_keys_of_other_widths_compare_as_numbers(ansi: Any) -> None:
    ansi.createDataFrame([(1, "one"), (3_000_000_000, "big")], "k bigint, v string")\
        .createOrReplaceTempView("qp_long_rows")  # fmt: skip
    names = load_views(ansi, (), (MapConfig("lm", "qp_long_rows", "k", "v"),)).names
    df = ansi.createDataFrame([(1,), (2,)], "i int")
    out = add_data_quality(df, _suite(names, "map_lookup('lm', i) = 'one'"), layout="compact")
    assert [list(r.DataQuality.ruleResults) for r in out.orderBy("i").collect()] == [
        [100000],
        [0],
    ]


def test_rule_runner_without_a_dataframe_cannot_compare_other_types(
    ansi: Any, zips: tuple[str, ...]
) -> None:
    df = ansi.createDataFrame([(1,)], "k int")
    """Without a DataFrame the compiler knows no types: the SQL carries a guard that Spark
    analyses only for keys of a compatible type, and its error names the map and both types."""
    column = rule_runner(_suite(zips, "map_contains('zm', k)"))
    with pytest.raises(Exception, match="key of") as err:
        df.select(column).collect()
    ours = explain_guard_error(str(err.value))
    assert ours is not None and "'zm'" in ours and "string" in ours and "int" in ours
    ok = rule_runner(_suite(zips, "map_contains('zm', CAST(k AS STRING))"))
    assert df.select(ok.alias("dq")).collect()[0].dq.overallResult == 100000


def test_validate_reports_the_mismatch(spark: Any, zips: tuple[str, ...]) -> None:
    df = spark.createDataFrame([(1,)], "k int")
    report = validate(_suite(zips, "map_lookup('zm', k) = 'X'"), df.schema, spark=spark)
    texts = [f.message for f in report.findings]
    assert any("'zm'" in t and "string" in t and "CAST(" in t for t in texts), texts


def test_blooms_refuse_a_value_of_another_type(spark: Any) -> None:
    values = spark.createDataFrame([("01",), ("02",)], "zip string")
    bloom = build_bloom(values, "zip", "zip_bloom", fpp=0.01)
    register_bloom(spark, bloom)
    df = spark.createDataFrame([(1,)], "k int")
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "bloom_contains(k, 'zip_bloom')")])]
    )
    suite = suite.with_policy(suite.policy.with_blooms(bloom.spec))
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, suite)
    assert err.value.code == "KEY_TYPE" and "zip_bloom" in str(err.value)
    cast = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [Rule(Id(10, 1), "bloom_contains(lpad(CAST(k AS STRING), 2, '0'), 'zip_bloom')")],
            )
        ],
    ).with_policy(suite.policy)
    out = add_data_quality(df, cast, layout="compact").collect()
    assert list(out[0].DataQuality.ruleResults) == [100000]  # '01' is in the bloom
