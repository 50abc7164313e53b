"""Bloom filters: no false negatives, a measured false-positive rate within the one asked for,
a stored file that refuses damage, and membership in rules under the policy.

The false-positive rate is measured here by probing 1M keys known to be absent (odd numbers,
where the bloom holds even ones), so the expectation is the rate asked for, not our code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.errors import LibraryFunctionError, ReferenceDataError
from quality_py.io.blooms import build_bloom, load_bloom, read_bloom, register_bloom, save_bloom
from quality_py.sql.build import to_sql
from quality_py.sql.library.blooms import maybe_in
from quality_py.sql.parse import parse_expression

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

MEMBERS = 200_000
FPP = 0.01


@pytest.fixture(scope="module")
def bloom(spark: Any) -> Any:
    members = spark.range(MEMBERS).selectExpr("id * 2 AS k")  # even numbers
    built = build_bloom(members, "k", "qp_evens", fpp=FPP)
    register_bloom(spark, built)
    return built


def _test_sql(bloom: Any) -> str:
    return to_sql(maybe_in(parse_expression("k"), bloom.spec))


def test_no_false_negatives_and_the_rate_asked_for(spark: Any, bloom: Any) -> None:
    assert bloom.spec.items == MEMBERS and bloom.spec.value_type == "bigint"
    members = spark.range(MEMBERS).selectExpr("id * 2 AS k")
    assert members.where(f"NOT ({_test_sql(bloom)})").count() == 0
    absent = spark.range(1_000_000).selectExpr("id * 2 + 1 AS k")  # odd: never added
    false_positives = absent.where(_test_sql(bloom)).count()
    assert 0 < false_positives / 1_000_000 <= FPP, false_positives


def test_stored_file_round_trips_and_refuses_damage(spark: Any, bloom: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "evens.qpbloom")
    save_bloom(bloom, path)
    assert read_bloom(path) == bloom
    raw = bytearray(Path(path).read_bytes())
    raw[-3] ^= 0x40  # one flipped bit in the payload
    Path(path).write_bytes(bytes(raw))
    with pytest.raises(ReferenceDataError, match="checksum"):
        read_bloom(path)
    (tmp_path / "other").write_text("not a bloom\n")
    with pytest.raises(ReferenceDataError, match="not a quality_py bloom"):
        read_bloom(str(tmp_path / "other"))


def test_rules_use_blooms_the_policy_names(spark: Any, bloom: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "evens.qpbloom")
    save_bloom(bloom, path)
    loaded = load_bloom(spark, path, name="qp_even_ids")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(10, 1), "bloom_contains(k, 'qp_even_ids')"),
                    Rule(Id(11, 1), "probability_in(k, 'qp_even_ids') > 0.5"),
                ],
            )
        ],
    )
    df = spark.createDataFrame([(4,), (400_000 - 2,), (None,)], "k bigint")
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, suite)
    assert err.value.code == "POLICY" and err.value.item_id == Id(10, 1)
    allowed = suite.with_policy(suite.policy.with_blooms(loaded.spec))
    out = add_data_quality(df, allowed, layout="compact").collect()
    assert [list(r.DataQuality.ruleResults) for r in out] == [
        [100000, 100000],
        [100000, 100000],
        [0, 0],  # a null value is not in the bloom
    ]


def test_integral_values_are_widened_and_text_is_refused(spark: Any, bloom: Any) -> None:
    """An int meets a bigint bloom as the same number; text never meets numbers silently (the
    compiler has no types here, so the SQL's guard makes Spark refuse it: sql/allowed/key_types.py)."""
    from quality_py import functions as Q
    from quality_py.model.policy import RulePolicy
    from quality_py.sql.allowed.key_types import explain_guard_error

    policy = RulePolicy().with_blooms(bloom.spec)
    df = spark.createDataFrame([(4, "4"), (6, "x")], "i int, s string")
    rows = df.select(Q.expr("bloom_contains(i, 'qp_evens')", policy=policy).alias("a")).collect()
    assert [r.a for r in rows] == [True, True]
    with pytest.raises(Exception, match="key of") as err:
        df.select(Q.expr("probability_in(s, 'qp_evens')", policy=policy)).collect()
    assert "'qp_evens' holds bigint and the key is string" in (
        explain_guard_error(str(err.value)) or ""
    )
    cast = Q.expr("probability_in(TRY_CAST(s AS BIGINT), 'qp_evens')", policy=policy)
    rows = df.select(cast.alias("p")).collect()
    assert rows[0].p == pytest.approx(1 - FPP) and rows[1].p is None  # 'x' is no bigint
