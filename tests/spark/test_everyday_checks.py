"""The checks Deequ and DQX users reach for every day, on real Spark: each metric against the
same number computed in plain Python (re, len, sets, counting by hand)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from quality_py.dataset.checks import Check, verify
from quality_py.dataset.constraints import CREDIT_CARD, EMAIL, URL
from quality_py.io.yaml_checks import loads_checks
from quality_py.model.policy import RulePolicy

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

TEXTS = [
    "write to ann.lee@example.org today",
    "no address here",
    "bob@localhost",  # no dot in the domain: not an address for us
    "see https://example.com/a?b=1",
    "ftp://x",  # one character after the scheme: not a URL
    "card 4111 1111 1111 1111 on file",
    "card 4111-1111 1111-1111 mixed separators",
    "amex 378282246310005",
    None,
    "",
]


#: The policy of these tests: checks may read the reference view they register.
POLICY = RulePolicy().with_views("qp_countries")


def _metric(df: Any, check: Check) -> Any:
    result = verify(df, [check], policy=POLICY)
    (only,) = result.results
    return only.metric


@pytest.fixture(scope="module")
def texts(spark: Any) -> Any:
    return spark.createDataFrame([(t,) for t in TEXTS], "t string")


@pytest.mark.parametrize(
    ("method", "pattern"),
    [
        ("contains_email", EMAIL),
        ("contains_url", URL),
        ("contains_credit_card_number", CREDIT_CARD),
    ],
)
def test_pattern_checks_count_matches_over_all_rows(texts: Any, method: str, pattern: str) -> None:
    want = sum(1 for t in TEXTS if t is not None and re.search(pattern, t)) / len(TEXTS)
    check = getattr(Check("warning", "t"), method)("t")
    assert _metric(texts, check) == pytest.approx(want)
    assert 0 < want < 1


def test_the_patterns_find_what_a_reader_expects() -> None:
    """By hand, per text: which of the three patterns it contains."""
    found = [tuple(bool(t and re.search(p, t)) for p in (EMAIL, URL, CREDIT_CARD)) for t in TEXTS]
    assert found == [
        (True, False, False),
        (False, False, False),
        (False, False, False),
        (False, True, False),
        (False, False, False),
        (False, False, True),
        (False, False, False),  # separators must be the same throughout
        (False, False, True),
        (False, False, False),
        (False, False, False),
    ]


def test_has_pattern_and_lengths(texts: Any) -> None:
    check = Check("warning", "t").has_pattern("t", "^[a-z ]+$", ">= 0.1")
    want = sum(1 for t in TEXTS if t and re.search("^[a-z ]+$", t)) / len(TEXTS)
    assert _metric(texts, check) == pytest.approx(want)
    lengths = [len(t) for t in TEXTS if t is not None]
    assert _metric(texts, Check("warning", "t").has_min_length("t", "== 0")) == min(lengths)
    assert _metric(texts, Check("warning", "t").has_max_length("t", ">= 1")) == max(lengths)


def test_a_catastrophic_pattern_is_refused_before_any_job(texts: Any) -> None:
    from quality_py.errors import QualityError

    with pytest.raises(QualityError):
        verify(texts, [Check("error", "t").has_pattern("t", "(a+)+$")])


@pytest.fixture(scope="module")
def orders(spark: Any) -> tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    rng = random.Random(5)
    rows = [
        (i, rng.choice([None, "DE", "FR", "XX"]), rng.choice([None, -3.0, 0.0, 2.5, 40.0, 150.0]))
        for i in range(300)
    ]
    rows.append((7, "DE", 1.0))  # a duplicate id
    countries = [("DE", "Germany"), ("FR", "France"), ("FR", "France again")]
    df = spark.createDataFrame(rows, "id int, country string, amount double")
    spark.createDataFrame(countries, "code string, name string").createOrReplaceTempView(
        "qp_countries"
    )
    return df, rows, countries


def test_positive_primary_key_and_schema(orders: Any) -> None:
    df, rows, _ = orders
    positive = sum(1 for _, _, a in rows if a is None or a > 0) / len(rows)
    assert _metric(df, Check("error", "t").is_positive("amount")) == pytest.approx(positive)
    result = verify(df, [Check("error", "t").is_primary_key("id")])
    ids = [r[0] for r in rows]
    unique_share = sum(1 for i in ids if ids.count(i) == 1) / len(ids)
    assert [r.metric for r in result.results] == [1.0, pytest.approx(unique_share)]
    assert result.status == "error"
    assert _metric(df, Check("error", "t").has_schema("id INTEGER, country string")) == 1.0
    assert _metric(df, Check("error", "t").has_schema({"id": "bigint", "amount": "double"})) == 0.5
    # strict: 2 of the 2 expected, 1 extra column: 2 / 3
    strict = Check("error", "t").has_schema("id int, country string", strict=True)
    assert _metric(df, strict) == pytest.approx(2 / 3)


def test_comparisons_with_another_dataset(spark: Any, orders: Any) -> None:
    df, rows, countries = orders
    codes = {c for c, _ in countries}
    keyed = [r for r in rows if r[1] is not None]
    share = sum(1 for r in keyed if r[1] in codes) / len(keyed)
    check = Check("error", "t").has_referential_integrity("country", "qp_countries", "code")
    assert _metric(df, check) == pytest.approx(share)
    assert _metric(df, Check("error", "t").has_size_ratio("qp_countries", "> 1")) == len(rows) / 3
    half = df.where("id < 150")
    ratio = Check("error", "t").has_size_ratio(df, "== 0.5")
    assert _metric(half, ratio) == pytest.approx(sum(1 for r in rows if r[0] < 150) / len(rows))
    # a dataset match: the rows of a copy where every tenth amount changed
    changed = [(i, c, (a or 0.0) + 1.0 if i % 10 == 0 else a) for i, c, a in rows]
    other = spark.createDataFrame(changed, "id int, country string, amount double")
    want = sum(1 for r in rows if r in set(changed)) / len(rows)
    assert _metric(df, Check("error", "t").matches_dataset(other, "id")) == pytest.approx(want)
    only_country = Check("error", "t").matches_dataset(other, ["id"], ["country"])
    assert _metric(df, only_country) == 1.0


def test_binned_histogram(orders: Any) -> None:
    df, rows, _ = orders
    edges = [-5.0, 0.0, 50.0, 150.0]
    amounts = [a for _, _, a in rows]

    def bin_of(a: float | None) -> Any:
        if a is None:
            return "null"
        for i in range(3):
            if edges[i] <= a and (a <= edges[i + 1] if i == 2 else a < edges[i + 1]):
                return i
        return "outside"

    labels = [bin_of(a) for a in amounts]
    for label in (0, 1, 2, "null", "outside"):
        check = Check("warning", "t").has_histogram_bins("amount", edges, ">= 0", label)
        result = verify(df, [check]).results[0]
        assert result.metric == pytest.approx(labels.count(label) / len(rows)), label


def test_named_arguments_from_yaml(orders: Any) -> None:
    df = orders[0]
    checks = loads_checks(
        """
checks:
  - level: error
    description: orders are fit
    constraints:
      - has_referential_integrity: {columns: country, reference: qp_countries, reference_columns: code, assertion: ">= 0.5"}
      - is_primary_key: {columns: [id, country]}
      - has_histogram_bins: {column: amount, edges: [0, 50, 150], bin: 0, assertion: "> 0"}
      - contains_credit_card_number: {column: country, assertion: "== 0"}
      - has_schema: {expected: {id: int}}
"""
    )
    result = verify(df, checks, policy=POLICY)
    assert [r.passed for r in result.results][-3:] == [True, True, True]
    assert result.results[0].passed  # about 2 in 3 keyed rows name a known country


def test_the_deequ_family_completed(spark: Any, orders: Any) -> None:
    """Deequ's CheckTest.scala line 1136 ("define is US social security number": one of
    "111-05-1130" and "something else" is one, 0.5), VerificationSuiteTest.scala line 65
    (hasColumnCount(_ == 3) on a frame of three columns), Check.scala line 1221 (isPositive:
    COALESCE(CAST(c AS DOUBLE), 1.0) > 0, with an assertion) and line 327 (isPrimaryKey:
    uniqueness only)."""
    ssn = spark.createDataFrame([("111-05-1130", "valid"), ("something else", "invalid")],
                                "value string, type string")  # fmt: skip
    check = Check("error", "t").contains_social_security_number("value", "== 0.5")
    assert _metric(ssn, check) == 0.5
    df, _, _ = orders
    assert _metric(df, Check("error", "t").has_column_count("== 3")) == 3.0
    texts = spark.createDataFrame([("5",), ("-1",), ("abc",), (None,)], "v string")
    # by hand: 5 > 0; -1 is not; 'abc' casts to null, so 1.0; null is 1.0: 3 of 4
    assert _metric(texts, Check("error", "t").is_positive("v", ">= 0.75")) == 0.75
    keyed = spark.createDataFrame([(1,), (2,), (None,)], "k int")
    deequ = verify(keyed, [Check("error", "t").is_primary_key("k", complete=False)])
    ours = verify(keyed, [Check("error", "t").is_primary_key("k")])
    assert (deequ.status, ours.status) == ("success", "error")


def test_forbidden_columns_as_spark_resolves_names(spark: Any) -> None:
    """has_no_columns counts the columns whose whole name matches a pattern (``*`` any text),
    without case as Spark resolves names by default, with case under spark.sql.caseSensitive.
    By hand: PII_email and ssn match pii*, ssn; ssn_hash is not ssn."""
    df = spark.createDataFrame(
        [(1, "a", "b", "c")], "id int, PII_email string, ssn string, ssn_hash string"
    )
    check = Check("error", "t").has_no_columns(["pii*", "ssn"])
    assert _metric(df, check) == 2.0
    assert verify(df, [check]).status == "error"
    assert _metric(df.select("id", "ssn_hash"), check) == 0.0
    before = spark.conf.get("spark.sql.caseSensitive")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        assert _metric(df, check) == 1.0  # PII_email is not pii*
    finally:
        spark.conf.set("spark.sql.caseSensitive", before)
