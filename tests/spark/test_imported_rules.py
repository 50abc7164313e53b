"""Imported rules mean what they meant in their tool: the DQX fixture's rules fail exactly the
rows DQX's documented semantics fail (computed in Python, row by row: nulls pass the range,
list and regex checks, negated SQL expressions fail where the expression holds), and the SodaCL
fixture's checks pass and fail as Soda's definitions say on a table built for them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from quality_py import RulePolicy, add_data_quality
from quality_py.dataset.checks import verify
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
ROWS = [
    # col1, col2, col3, col4, col5, col6
    (1, 5, "x", "y", "z", "a"),
    (None, 12, "", None, "z", "it's"),
    (4, None, None, "", " ", "Q"),
    (2, 2, "x", None, "", None),
    (9, 3, "x", "y", "z", "b"),
]


def dqx_fails(row: tuple[Any, ...]) -> list[bool]:
    """Which imported rule each row fails, by DQX's documented meaning."""
    c1, c2, c3, c4, c5, c6 = row
    return [
        c3 is None or c3 == "",  # is_not_null_and_not_empty(col3)
        c1 is None,
        c2 is None,  # is_not_null for_each_column
        # filter col1 < 3: rows outside the filter are not checked (a null col1 is outside)
        c1 is not None and c1 < 3 and (c4 is None or c4 == ""),
        c5 is None or c5 == "",
        c2 is not None and not 1 <= c2 <= 10,  # is_in_range: null passes
        c6 is not None and c6 not in ("a", "b", "it's"),  # is_in_list: null passes
        c6 is not None and not re.search("^[a-z]+$", c6),  # regex_match: null passes
        c1 is not None and c2 is not None and c1 > c2,  # sql_expression negated
    ]


def test_dqx_rules_fail_the_rows_dqx_reports(spark: Any) -> None:
    result = import_text((HERE / "dqx_checks.yml").read_text(), "dqx", "dqx_checks.yml")
    suite = loads_ruleset_file(result.text, variables={}).suite
    df = spark.createDataFrame(
        ROWS, "col1 int, col2 int, col3 string, col4 string, col5 string, col6 string"
    )
    ids = [r.id.packed for _, r in suite.iter_rules()]
    (set_id,) = [rs.id.packed for rs in suite.rule_sets]
    got = []
    for row in df.transform(lambda d: add_data_quality(d, suite)).collect():
        codes = row.DataQuality.ruleSetResults[set_id].ruleResults
        got.append([codes[i] == 0 for i in ids])
    assert got == [dqx_fails(r) for r in ROWS]


def test_sodacl_checks_judge_as_soda_does(spark: Any) -> None:
    result = import_text((HERE / "soda_checks.yml").read_text(), "sodacl", "soda_checks.yml")
    checks = loads_ruleset_file(result.text, variables={}).checks
    rows = [
        ("a@x.io", "1", "DE", 30, "a@x.io"),
        ("b@x.io", "2", "FR", 25, "not an address"),
        ("c@x.io", "3", "XX", 130, "c@x.io"),
        ("d@x.io", "3", "US", 40, None),
    ]
    df = spark.createDataFrame(
        rows, "email string, phone string, country string, age int, email_address string"
    )
    spark.createDataFrame([("DE",), ("FR",), ("US",)], "code string").createOrReplaceTempView(
        "dim_country"
    )
    policy = RulePolicy().with_views("dim_country")  # the run's policy allows the view
    outcome = {r.constraint: r.passed for r in verify(df, checks, policy=policy).results}
    # by hand, per Soda's definitions: 4 rows; no email missing; phone 3 twice; one address
    # invalid; XX is no valid country and no dim_country code; age 130 > 120; mean age 56.25 in
    # [20, 60]; no phone missing; age is int, email string
    assert outcome == {
        "size > 0": True,
        "email is complete": True,
        "phone is unique": False,
        "email_address is valid": False,
        "country in ['DE', 'FR', 'US']": False,
        "max(age)": False,
        "mean(age)": True,
        "phone completeness": True,
        "schema has age int, email string": True,
        "[country] in dim_country[code]": False,
    }
