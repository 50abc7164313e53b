"""One bad value fails its row, never the job, for every function a rule may call.

Under ANSI mode (Spark 4's default) many functions raise on one bad value. Hand-picked cases here:

* ``PROBES``: for each function known to raise, a good and a bad input chosen by hand; the job
  must complete and exactly the bad row must fail;
* the generated proof over every allowlisted function is ``test_function_fuzz.py``: arguments
  derived from each function's declared signatures, Spark's own result as the oracle.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from quality_py.errors import PolicyError
from quality_py.sql.allowed.functions import ALLOWED_FUNCTIONS, REFUSED_FUNCTIONS
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_expression
from tests.spark.batched import evaluate_cases, result_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SPARK4 = int(__import__("pyspark").__version__.split(".")[0]) >= 4

# name: (rule over s (string) and n (int), good (s, n), bad (s, n)); expected by hand: the good
# row passes, the bad row fails
PROBES: dict[str, tuple[str, tuple[str, int], tuple[str, int]]] = {
    "to_number": ("to_number(s, '999') > 0", ("12", 0), ("abc", 0)),
    "to_binary": ("to_binary(s, 'hex') IS NOT NULL", ("0A", 0), ("zz", 0)),
    "elt": ("elt(n, 'a', 'b') IS NOT NULL", ("", 1), ("", 5)),
    "split_part": ("split_part(s, ',', n) IS NOT NULL", ("a,b", 1), ("a,b", 0)),
    "regexp_extract": ("regexp_extract(s, '(a)', n) IS NOT NULL", ("a", 1), ("a", 5)),
    "regexp_extract_all": ("size(regexp_extract_all(s, '(a)', n)) > 0", ("a", 1), ("a", 5)),
    "pmod": ("pmod(10, n) >= 0", ("", 3), ("", 0)),
    "mod": ("mod(10, n) >= 0", ("", 3), ("", 0)),
    "div": ("div(10, n) >= 0", ("", 3), ("", 0)),
    "abs": ("abs(n) > 0", ("", 5), ("", -2147483648)),
    "negative": ("negative(n) < 0", ("", 5), ("", -2147483648)),
    "slice": ("size(slice(array(1, 2, 3), n, 1)) = 1", ("", 1), ("", 0)),
    "array_insert": ("size(array_insert(array(1), n, 2)) = 2", ("", 1), ("", 0)),
    "map_from_arrays": (
        "size(map_from_arrays(array(s, 'k'), array(1, 2))) = 2",
        ("a", 0),
        ("k", 0),
    ),
    "map_concat": ("size(map_concat(map(s, 1), map('k', 2))) = 2", ("a", 0), ("k", 0)),
    "next_day": ("next_day(DATE'2024-01-01', s) IS NOT NULL", ("MO", 0), ("xx", 0)),
    "date_format": ("date_format(s, 'yyyy') = '2024'", ("2024-01-01", 0), ("abc", 0)),
    "add_months": ("add_months(DATE'2024-01-01', n) IS NOT NULL", ("", 1), ("", 2147483647)),
    "timestamp_seconds": ("timestamp_seconds(n * 1000000000) IS NOT NULL", ("", 1), ("", 2000000)),
    "to_date": ("to_date(s, 'yyyy-MM-dd') IS NOT NULL", ("2024-01-05", 0), ("2023-02-30", 0)),
    "to_timestamp": ("to_timestamp(s, 'yyyy-MM-dd') IS NOT NULL", ("2024-01-05", 0), ("x", 0)),
    "unix_timestamp": ("unix_timestamp(s, 'yyyy-MM-dd') > 0", ("2024-01-05", 0), ("x", 0)),
    "to_unix_timestamp": ("to_unix_timestamp(s, 'yyyy-MM-dd') > 0", ("2024-01-05", 0), ("x", 0)),
    "int": ("int(s) > 0", ("5", 0), ("abc", 0)),
    "decimal": ("decimal(s) > 0", ("5", 0), ("abc", 0)),
    "bigint": ("bigint(s) > 0", ("5", 0), ("abc", 0)),
    "cast": ("CAST(s AS INT) > 0", ("5", 0), ("abc", 0)),
    "element_at": ("element_at(array(1), n) > 0", ("", 1), ("", 5)),
    "to_utc_timestamp": (
        "to_utc_timestamp(TIMESTAMP'2024-01-01 00:00:00', 'UTC') < to_timestamp(s)",
        ("2025-01-01", 0),
        ("x", 0),
    ),
}
if SPARK4:  # their try_ twins arrived with Spark 4.0
    PROBES |= {
        "url_decode": ("url_decode(s) IS NOT NULL", ("a%20b", 0), ("%zz", 0)),
        "parse_url": (
            "parse_url(s, 'HOST') IS NOT NULL",
            ("http://x.org/a", 0),
            ("http://[bad", 0),
        ),
        "make_date": ("make_date(2023, 2, n) IS NOT NULL", ("", 28), ("", 30)),
        "make_timestamp": ("make_timestamp(2020, 1, n, 0, 0, 0) IS NOT NULL", ("", 1), ("", 40)),
        "make_timestamp_ltz": (
            "make_timestamp_ltz(2020, 1, n, 0, 0, 0) IS NOT NULL",
            ("", 1),
            ("", 40),
        ),
        "make_timestamp_ntz": (
            "make_timestamp_ntz(2020, 1, n, 0, 0, 0) IS NOT NULL",
            ("", 1),
            ("", 40),
        ),
    }

REFUSED = [
    "format_string(s, n) IS NOT NULL",
    "printf(s, n) IS NOT NULL",
    "make_dt_interval(n) IS NOT NULL",
    "make_ym_interval(n, 0) IS NOT NULL",
    "size(map_from_entries(array(struct(s, 1)))) = 1",
    "size(sequence(1, 3, n)) > 0",  # a step from data: 0 aborts the job
    "size(sequence(1, 3, 0)) > 0",
    "size(sequence(3, 1, 1)) > 0",
    "convert_timezone('UTC', s, TIMESTAMP_NTZ'2024-01-01 00:00:00') IS NOT NULL",
    "from_utc_timestamp(TIMESTAMP'2024-01-01 00:00:00', 'Not/AZone') IS NOT NULL",
    "regexp_extract(s, '(a)', 5) = ''",  # a literal group the pattern does not have
]


@pytest.fixture(scope="module")
def ansi(spark: Any) -> Iterator[Any]:
    """ANSI mode on (Spark 4's default; Spark 3.5's is off): the hard case."""
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", old)


@pytest.fixture(scope="module")
def probed(ansi: Any) -> dict[str, Any]:
    """Every probe's good and bad row, compiled and evaluated in one job (tests/spark/batched.py)."""
    cases = {
        name: (f"coalesce({to_sql(compile_expression(text))}, false)", [good, bad])
        for name, (text, good, bad) in PROBES.items()
    }
    return evaluate_cases(ansi, "s string, n int", cases)


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_bad_value_fails_its_row(probed: dict[str, Any], name: str) -> None:
    assert result_of(probed, name) == [True, False], PROBES[name][0]


@pytest.mark.parametrize("text", REFUSED)
def test_functions_that_cannot_be_contained_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(PolicyError) as err:
        compile_expression(text)
    assert err.value.message  # one readable reason


def test_refused_functions_are_not_on_the_allowlist() -> None:
    assert not set(REFUSED_FUNCTIONS) & ALLOWED_FUNCTIONS


# Text read by functions as numbers and dates: Spark casts a string argument itself, and under
# ANSI ``'abc'`` aborts the job. Each rule: a good text (passes, by hand) and 'abc' (fails).
TEXT_ARGUMENTS: list[tuple[str, str]] = [
    ("abs(s) > 2", "-3"),
    ("sqrt(s) = 3", "9"),
    ("round(s, 1) = 2.5", "2.49"),
    ("floor(s) = 2", "2.7"),
    ("pow(s, 2) = 16", "4"),
    ("ln(s) > 0", "3"),
    ("bround(s, 0) = 2", "2.5"),  # half to even
    ("year(s) = 2024", "2024-01-05"),
    ("month(s) = 1", "2024-01-05"),
    ("dayofweek(s) = 6", "2024-01-05"),  # a Friday; Sunday is 1
    ("weekday(s) = 4", "2024-01-05"),  # Monday is 0
    ("date_add(s, 1) = DATE'2024-01-06'", "2024-01-05"),
    ("datediff(s, '2024-01-01') = 4", "2024-01-05"),
    ("add_months(s, 1) = DATE'2024-02-05'", "2024-01-05"),
    ("last_day(s) = DATE'2024-01-31'", "2024-01-05"),
    ("trunc(s, 'MM') = DATE'2024-01-01'", "2024-01-05"),
    ("hour(s) = 10", "2024-01-05 10:30:00"),
    ("months_between(s, '2024-01-05') = 1", "2024-02-05"),
    ("date_format(s, 'yyyy') = '2024'", "2024-01-05"),
    ("substring('abcdef', s, 2) = 'cd'", "3"),
    ("left('abcdef', s) = 'ab'", "2"),
    ("factorial(s) = 6", "3"),
    ("bin(s) = '101'", "5"),
    ("from_unixtime(s, 'yyyy') = '1970'", "86400"),  # 1970-01-02 in every time zone
]


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_text_a_function_reads_as_a_number_or_date_fails_its_row(ansi: Any, layout: str) -> None:
    from pyspark.sql import functions as F

    from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
    from quality_py.functions import flatten_results
    from quality_py.model.policy import RulePolicy

    rules = [Rule(Id(100 + i, 1), text) for i, (text, _) in enumerate(TEXT_ARGUMENTS)]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])
    suite = suite.with_policy(RulePolicy(allow_implicit_casts=True))  # contained, not refused
    rows = [(good, "good") for _, good in TEXT_ARGUMENTS] + [("abc", "bad")]
    frame = ansi.createDataFrame(rows, "s string, kind string")
    checked = add_data_quality(frame, suite, layout=layout)
    flat = checked.select(
        "s",
        "kind",
        F.explode(
            flatten_results("DataQuality", layout=suite if layout == "compact" else layout)
        ).alias("r"),
    ).select("s", "kind", "r.ruleId", "r.ruleResult")
    got = {(r.s, r.kind, r.ruleId): r.ruleResult for r in flat.collect()}
    # every rule on its own good row passes; every rule on 'abc' fails (code 0)
    for i, (text, good) in enumerate(TEXT_ARGUMENTS):
        assert (got[(good, "good", 100 + i)], got[("abc", "bad", 100 + i)]) == (100000, 0), text


@pytest.mark.parametrize(("text", "good"), TEXT_ARGUMENTS, ids=[t for t, _ in TEXT_ARGUMENTS])
def test_text_a_function_reads_as_a_number_or_date_is_refused_by_default(
    spark: Any, text: str, good: str
) -> None:
    from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
    from quality_py.errors import RuleAnalysisError

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(100, 1), text)])])
    frame = spark.createDataFrame([(good,)], "s string")
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(frame, suite)
    assert err.value.code == "IMPLICIT_CAST" and "TRY_CAST(" in str(err.value)


def test_levenshtein_is_bounded_on_its_inputs(spark: Any) -> None:
    """Its cost is the product of the lengths: texts over 1,000 characters make the row fail
    (null) instead of running for minutes; by hand, kitten -> sitting is 3. The second row's
    codes (failed: a null, not a distance) say the bound held; without it the product of two
    9,000,000-character texts would outlast the tests' timeout."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality

    df = spark.createDataFrame(
        [(1, "kitten", "sitting"), (2, "a" * 3000, "b" * 3000)], "k int, s string, t string"
    )
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(3, 1), "levenshtein(s, t) = 3"),
                    Rule(Id(4, 1), "levenshtein(repeat(s, 3000), repeat(t, 3000)) >= 0"),
                ],
            )
        ],
    )
    out = add_data_quality(df, suite, layout="compact").orderBy("k").collect()
    assert [list(r.DataQuality.ruleResults) for r in out] == [[100000, 0], [0, 0]]


def test_every_datetime_pattern_the_policy_accepts_runs_on_spark(ansi: Any) -> None:
    """The pattern grammar (letters and their longest runs, reserved characters) is checked
    against Spark itself: every run it accepts formats without aborting, under ANSI."""
    import string

    from quality_py.sql.allowed.enforce import _PATTERN_RUNS, pattern_problem

    accepted, refused = [], []
    for letter in string.ascii_letters + "#{}[]":
        for run in range(1, 8):
            pattern = letter * run
            (refused if pattern_problem(pattern) else accepted).append(pattern)
    assert set(_PATTERN_RUNS) == {p[0] for p in accepted}
    ts = "TIMESTAMP'2024-01-05 10:30:00.123456'"
    columns = [f"date_format({ts}, '{p}') AS c{i}" for i, p in enumerate(accepted)]
    columns += ["date_format(DATE'2024-01-05', 'yyyy-MM-dd\\'#\\'HH') AS quoted"]
    row = ansi.range(1).selectExpr(*columns).first()  # no abort
    assert row.quoted == "2024-01-05#00"


@pytest.mark.parametrize(
    ("replacement", "accepted"),
    [("'$1-$2'", True), ("'x\\\\$y'", True), ("'plain'", True), ("'$12'", True),
     ("'a$'", False), ("'$3'", False), ("'x\\\\'", False), ("s", False), ("'$x'", False)],
)  # fmt: skip
def test_regexp_replace_replacements_are_proven_or_refused(
    ansi: Any, replacement: str, accepted: bool
) -> None:
    """Java reads '$n' as a group and a lone '$' or '\\' aborts the job: an accepted literal
    replacement runs on any text, anything else is refused before any job."""
    text = f"regexp_replace(s, '(a)(b)', {replacement}) IS NOT NULL"
    if not accepted:
        with pytest.raises(PolicyError):
            compile_expression(text)
        return
    df = ansi.createDataFrame([("ab",), ("a$b\\\\",), ("",)], "s string")
    assert len(df.selectExpr(to_sql(compile_expression(text))).collect()) == 3


@pytest.mark.parametrize(
    ("rule", "good", "bad"),
    [
        ("getbit(n, 3) = 1", ("", 8), ("", 5)),  # by hand: 8 = 0b1000, 5 = 0b0101
        ("getbit(n, 40) = 0", ("", 8), ("", 8)),  # 40 is past an int's 32 bits: null, Failed
        ("conv(s, 36, 10) = '35'", ("z", 0), ("zzzzzzzzzzzzzzzzzz", 0)),  # overflow: Failed
        ("size(transform_keys(map(1, 1, 2, 2), (k, v) -> k * n)) = 2", ("", 1), ("", 0)),
        ("size(transform_keys(map(1, 1, 2, 2), (k, v) -> v * n)) = 2", ("", 1), ("", 0)),
    ],
)
def test_functions_that_raised_on_one_value_fail_its_row(
    ansi: Any, rule: str, good: tuple[str, int], bad: tuple[str, int]
) -> None:
    """getbit past the value's width, conv overflowing 64 bits, transform_keys making keys
    repeat: each aborted the whole job under ANSI; now the row fails (issue 24)."""
    df = ansi.createDataFrame([good, bad], "s string, n int")
    sql = to_sql(compile_expression(rule))
    got = [r[0] for r in df.selectExpr(f"coalesce({sql}, false)").collect()]
    expected_good = not rule.startswith("getbit(n, 40)")
    assert got == [expected_good, False], sql


@pytest.mark.parametrize(
    ("rule", "good", "bad"),
    [
        ("round(n, -1) = 130", ("", 127), ("", 2147483647)),  # by hand: 127 -> 130
        ("bround(n, -1) = 120", ("", 125), ("", 2147483647)),  # half to even: 125 -> 120
    ],
)
def test_rounding_an_integer_near_its_largest_value_fails_its_row(
    ansi: Any, rule: str, good: tuple[str, int], bad: tuple[str, int]
) -> None:
    df = ansi.createDataFrame([good, bad], "s string, n int")
    sql = to_sql(compile_expression(rule))
    assert [r[0] for r in df.selectExpr(f"coalesce({sql}, false)").collect()] == [True, False]


def test_unbase64_and_make_interval_are_refused_with_the_alternative() -> None:
    for text in ("unbase64(s) IS NULL", "make_interval(1, 0, 0, 0, 0, 0, 0) IS NULL"):
        with pytest.raises(PolicyError):
            compile_expression(text)
    compile_expression("try_to_binary(s, 'base64') IS NULL")
