"""Soda v4 contracts converted keep Soda's outcomes. The tables, contracts and outcomes are
soda-core 4's own integration tests read as facts (``soda-tests/tests/integration/``: the file
is named beside each group), with a few more worked out by hand from Soda's source
(``contract_verification_impl.py``: ``ThresholdImpl.passes``, ``normalize_threshold_level``;
``check_types/*.py``) and marked ``hand``."""

from __future__ import annotations

import datetime as dt
import textwrap
from typing import Any

import pytest

from quality_py import RulePolicy
from quality_py.actions.sql_checks import compile_check, run_sql_checks
from quality_py.dataset.checks import verify
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file
from tests.spark.rule_rows import failing_rows

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

# test_missing_check.py / test_invalid_check.py
MISSING = ("id string, age int", [("1", 1), (None, -1), ("3", None), ("X", 2)])
# test_duplicate_column_check.py
DUP = (
    "id string, age int, country string",
    [
        ("1", 1, "USA"),
        ("2", 2, "USA"),
        ("3", 2, "BE"),
        ("4", 3, "USA"),
        ("5", 3, "BE"),
        ("6", 3, "BE"),
        ("7", 3, "BE"),
        ("8", 4, "USA"),
        ("9", 4, "BE"),
        (None, None, "BE"),
    ],
)
# test_duplicate_dataset_check.py
DS = (
    "rep string, country string, zip string",
    [
        ("Joe", "USA", "1000"),
        ("Joe", "USA", "1234"),
        ("Joe", "USA", "2000"),
        ("Joe", "USA", "2000"),
        ("Joe", "USA", "2000"),
        ("Joe", "JAP", "1000"),
        ("Joe", "JAP", "1234"),
        ("Jack", "USA", "1000"),
        ("Jack", "USA", "1234"),
        ("Jack", "USA", "2000"),
        ("Jack", "JAP", "1000"),
        ("Jack", "JAP", "1234"),
        (None, None, "9999"),
    ],
)
# test_aggregate_check.py
AGG = (
    "country string, age int, age_wm int, age_wi int",
    [
        ("USA", 5, 0, 0),
        ("BE", None, 5, 999),
        ("BE", 0, -1, 10),
        ("BE", None, 10, 5),
        ("BE", 10, None, None),
    ],
)
# test_udf_failed_rows_check.py (narrowing table) and test_udf_metric_check.py
SPANS = ("start int, `end` int", [(0, 4), (0, 10), (10, 20), (10, 17)])
METRIC = ("start int, `end` int", [(0, 10), (10, 20), (5, 15)])
UTC = dt.timezone.utc
# test_freshness_check.py
FRESH = (
    "id int, created_at timestamp",
    [
        (1, dt.datetime(2025, 1, 1, 0, tzinfo=UTC)),
        (2, dt.datetime(2025, 1, 2, 2, tzinfo=UTC)),
        (4, dt.datetime(2025, 1, 2, 5, tzinfo=UTC)),
        (3, dt.datetime(2025, 1, 3, 4, tzinfo=UTC)),
        (5, dt.datetime(2025, 1, 3, 7, tzinfo=UTC)),
        (6, dt.datetime(2025, 1, 4, 9, tzinfo=UTC)),
    ],
)

# (table, contract, outcome on the table, outcome on no rows); outcomes: pass, warn, fail
CASES = [
    (MISSING, "columns: [{name: id, checks: [missing: ]}]", "fail", "pass"),
    (MISSING, "columns: [{name: id, checks: [missing: {threshold: {level: warn}}]}]", "warn",
     "pass"),
    (MISSING, "columns: [{name: id, missing_values: ['X', 'Y'], checks: [missing: {threshold: "
              "{must_be: 2}}]}]", "pass", "fail"),
    (MISSING, "columns: [{name: age, missing_values: [-1, -2], checks: [missing: {threshold: "
              "{must_be: 2}}]}]", "pass", "fail"),
    (MISSING, "columns: [{name: id, checks: [missing: {missing_values: ['X', 'Y'], threshold: "
              "{must_be: 2}}]}]", "pass", "fail"),
    # hand: 1 of 4 is 25 %; 0 % without rows
    (MISSING, "columns: [{name: id, checks: [missing: {threshold: {metric: percent, "
              "must_be_less_than: 25}}]}]", "fail", "pass"),
    (MISSING, "columns: [{name: id, checks: [missing: {threshold: {metric: percent, "
              "must_be_less_than_or_equal: 25}}]}]", "pass", "pass"),
    # hand: 'warning' is not 'warn': Soda reads it as fail
    (MISSING, "columns: [{name: id, checks: [missing: {threshold: {level: warning}}]}]", "fail",
     "pass"),
    (MISSING, "columns: [{name: id, valid_values: ['1', '2', '3'], checks: [invalid: ]}]",
     "fail", "pass"),
    (MISSING, "columns: [{name: id, checks: [invalid: {valid_values: ['1', '2', '3']}]}]",
     "fail", "pass"),
    (MISSING, "columns: [{name: id, valid_values: ['1', '2', '3', null], checks: [invalid: ]}]",
     "fail", "pass"),
    (MISSING, "columns: [{name: id, valid_values: ['1', '2', '3', null], checks: [invalid: "
              "{threshold: {level: warn}}]}]", "warn", "pass"),
    (MISSING, "columns: [{name: id, invalid_values: ['X'], checks: [invalid: ]}]", "fail",
     "pass"),
    (MISSING, "columns: [{name: id, valid_format: {regex: '^[123]$', name: n}, checks: "
              "[invalid: ]}]", "fail", "pass"),
    (MISSING, "columns: [{name: age, valid_min: 1, valid_max: 2, checks: [invalid: ]}]",
     "fail", "pass"),
    (MISSING, "columns: [{name: id, invalid_format: {regex: '^[X]$', name: x}, checks: "
              "[invalid: ]}]", "fail", "pass"),
    # hand: X is the only invalid value; the null is missing, not invalid
    (MISSING, "columns: [{name: id, valid_values: ['1', '3', 'X'], checks: [invalid: ]}]",
     "pass", "pass"),
    # hand: the contract's filter keeps ("1", 1) and ("X", 2): no id is missing
    (MISSING, "filter: age > 0\ncolumns: [{name: id, checks: [missing: ]}]", "pass", "pass"),
    (MISSING, "filter: age > ${var.MIN}\ncolumns: [{name: id, checks: [missing: ]}]", "pass",
     "pass"),
    # hand: a metric expression over the contract's rows (ages 1 and 2)
    (MISSING, "filter: age > 0\nchecks: [metric: {expression: AVG(age), threshold: {must_be: "
              "1.5}}]", "pass", "pass"),
    (DUP, "columns: [{name: id, checks: [duplicate: ]}]", "pass", "pass"),
    (DUP, "columns: [{name: age, checks: [duplicate: ]}]", "fail", "pass"),
    (DUP, "columns: [{name: age, checks: [duplicate: {threshold: {level: warn}}]}]", "warn",
     "pass"),
    (DUP, "columns: [{name: age, checks: [duplicate: {threshold: {must_be_less_than: 6}}]}]",
     "pass", "pass"),
    (DUP, "columns: [{name: age, checks: [duplicate: {threshold: {metric: percent, "
          "must_be_greater_than: 10}}]}]", "pass", "fail"),  # 5 of 9: 55.6 %
    (DUP, "columns: [{name: age, checks: [duplicate: {filter: \"country = 'USA'\"}]}]", "pass",
     "pass"),
    (DUP, "columns: [{name: age, missing_values: [2], checks: [duplicate: {threshold: "
          "{must_be: 4}}]}]", "pass", "fail"),
    (DUP, "columns: [{name: age, checks: [duplicate: {filter: \"country = 'BE'\", threshold: "
          "{must_be: 2}}]}]", "pass", "fail"),
    (DS, "checks: [duplicate: {columns: [rep, country, zip]}]", "fail", "pass"),
    (DS, "checks: [duplicate: {columns: [rep, country, zip], threshold: {metric: percent, "
         "must_be_greater_than: 10}}]", "pass", "fail"),  # 2 of 13
    (DS, "checks: [duplicate: {columns: [rep, country, zip], filter: \"rep = 'Jack'\"}]",
     "pass", "pass"),
    (DS, "checks: [duplicate: {columns: [rep], threshold: {level: warn}}]", "warn", "pass"),
    (AGG, "columns: [{name: age, checks: [aggregate: {function: avg, threshold: {must_be: 5}}]}]",
     "pass", "pass"),  # no rows: no average, not evaluated
    (AGG, "columns: [{name: country, checks: [aggregate: {function: min_length, threshold: "
          "{must_be: 2}}]}]", "pass", "pass"),
    (AGG, "columns: [{name: country, checks: [aggregate: {function: max_length, threshold: "
          "{must_be: 3}}]}]", "pass", "pass"),
    (AGG, "columns: [{name: country, checks: [aggregate: {function: avgLength, threshold: "
          "{must_be_less_than: 2.3}}]}]", "pass", "pass"),
    (AGG, "columns: [{name: age_wm, missing_values: [-1], checks: [aggregate: {function: avg, "
          "threshold: {must_be: 5}}]}]", "pass", "pass"),
    (AGG, "columns: [{name: age_wi, missing_values: [999], checks: [aggregate: {function: avg, "
          "threshold: {must_be: 5}}]}]", "pass", "pass"),
    # hand: the sum of 5, 0, 10 is 15
    (AGG, "columns: [{name: age, checks: [aggregate: {function: sum, threshold: "
          "{must_be_not_between: {greater_than: 16, less_than: 14}}}]}]", "fail", "pass"),
    (SPANS, "checks: [failed_rows: {expression: (`end` - start) > 5}]", "fail", "pass"),
    (SPANS, "checks: [failed_rows: {expression: (`end` - start) > 5, filter: start = 0, "
            "threshold: {must_be: 1}}]", "pass", "fail"),
    # hand: 3 of 4 rows fail, 75 %
    (SPANS, "checks: [failed_rows: {expression: (`end` - start) > 5, threshold: {metric: "
            "percent, must_be_less_than: 76}}]", "pass", "pass"),
    (METRIC, "checks: [metric: {expression: AVG(`end` - start), threshold: {must_be_between: "
             "{greater_than_or_equal: 9, less_than_or_equal: 11}}}]", "pass", "pass"),
    # hand: NaN compares false in Python: it fails all but must_not_be
    # (no rows: no maximum, not evaluated)
    (METRIC, "checks: [metric: {expression: \"MAX(CAST('NaN' AS DOUBLE))\", threshold: "
             "{must_be_less_than: 1}}]", "fail", "pass"),
    (METRIC, "checks: [metric: {expression: \"MAX(CAST('NaN' AS DOUBLE))\", threshold: "
             "{must_not_be: 1}}]", "pass", "pass"),
    (MISSING, "checks: [row_count: ]", "pass", "fail"),
    (MISSING, "checks: [row_count: {threshold: {must_be_greater_than: 2, additional: {level: "
              "warn, must_be_greater_than: 10}}}]", "warn", "fail"),
    (FRESH, "checks: [freshness: {column: created_at, now_variable: NNOWW, threshold: "
            "{must_be_less_than: 2}}]", "pass", "fail"),
    (FRESH, "checks: [freshness: {column: created_at, now_variable: LATER, threshold: "
            "{unit: day, must_be_less_than: 1}}]", "fail", "fail"),
    (FRESH, "checks: [freshness: {column: created_at, now_variable: LATER, threshold: "
            "{unit: day, must_be_less_than: 1, level: warn}}]", "warn", "fail"),
    # hand: against the clock, the newest row (2025) is older than a day
    (FRESH, "checks: [freshness: {column: created_at, threshold: {must_be_greater_than: 24}}]",
     "pass", "fail"),
]  # fmt: skip
VARIABLES = {"MIN": "0", "NNOWW": "2025-01-04T10:00:00+00:00", "LATER": "2025-01-05T11:00:00Z"}


def _outcome(text: str, df: Any) -> str:
    result = import_text(textwrap.dedent(text), "soda-contract", "c.yml")
    assert result.unmapped == (), result.summary()
    ruleset = loads_ruleset_file(result.text, variables=VARIABLES)
    metrics = run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())
    failed = {m.group for m in metrics if m.status != "passed"}
    if ruleset.checks and verify(df, ruleset.checks).status != "success":
        failed.add("error")
    return "fail" if "error" in failed else "warn" if failed else "pass"


def _batched(cases: list[tuple[str, Any]]) -> list[str]:
    """Each ``(contract, frame)``'s outcome, the aggregate SQL checks of all contracts on one
    frame computed in one query (each still compiled under the policy as a run compiles it);
    a query-form check, or a batch Spark refuses, is run alone, naming its contract."""
    loaded = []
    for text, df in cases:
        result = import_text(textwrap.dedent(text), "soda-contract", "c.yml")
        assert result.unmapped == (), result.summary()
        ruleset = loads_ruleset_file(result.text, variables=VARIABLES)
        assert not ruleset.checks, text  # a dataset check: see test_soda_contract_schema
        for check in ruleset.sql_checks:
            compile_check(check, RulePolicy())
        loaded.append((text, df, ruleset.sql_checks))
    failed: list[set[str]] = [set() for _ in cases]
    by_frame: dict[int, list[tuple[int, Any]]] = {}
    for i, (_, df, checks) in enumerate(loaded):
        for check in checks:
            if check.is_query:
                failed[i] |= {m.group for m in run_sql_checks([check], {"source": df},
                                                              RulePolicy()) if m.status != "passed"}  # fmt: skip
            else:
                by_frame.setdefault(id(df), []).append((i, check))
    for items in by_frame.values():
        df = loaded[items[0][0]][1]
        try:
            row = df.selectExpr(*[f"({c.sql}) AS c{k}" for k, (_, c) in enumerate(items)]).first()
            verdicts = [row[k] is True for k in range(len(items))]  # null or false fails
        except Exception:  # run alone: the failing check's error names it
            verdicts = [run_sql_checks([c], {"source": df}, RulePolicy())[0].status == "passed"
                        for _, c in items]  # fmt: skip
        for ok, (i, check) in zip(verdicts, items, strict=True):
            if not ok:
                failed[i].add(check.level)
    return ["fail" if "error" in f else "warn" if f else "pass" for f in failed]


@pytest.mark.parametrize("empty", [False, True], ids=["rows", "none"])
def test_soda_contract_outcomes(spark: Any, empty: bool) -> None:
    frames = {id(t): spark.createDataFrame([] if empty else t[1], t[0]) for t, *_ in CASES}
    got = _batched([(contract, frames[id(table)]) for table, contract, *_ in CASES])
    want = [on_none if empty else on_rows for *_, on_rows, on_none in CASES]
    wrong = [(c[1], g, w) for c, g, w in zip(CASES, got, want, strict=True) if g != w]
    assert not wrong


def test_soda_contract_schema(spark: Any) -> None:
    """``schema_check.py``: missing and extra columns, types and order (hand)."""
    df = spark.createDataFrame(MISSING[1], MISSING[0])
    cases = [
        ("columns: [{name: id, data_type: string}, {name: age, data_type: integer}]", "pass"),
        ("columns: [{name: id}, {name: age}]", "pass"),
        ("columns: [{name: age}, {name: id}]", "fail"),
        ("columns: [{name: id}]", "fail"),
        ("columns: [{name: id}, {name: age}, {name: x}]", "fail"),
        ("columns: [{name: id, data_type: string}, {name: age, data_type: string}]", "fail"),
    ]
    got = [_outcome(f"{c}\nchecks: [schema: ]", df) for c, _ in cases]
    assert got == [want for _, want in cases]
    assert _outcome("columns: [{name: age}, {name: id}]\nchecks: [schema: {"
                    "allow_other_column_order: true}]", df) == "pass"  # fmt: skip
    assert _outcome("columns: [{name: id}]\nchecks: [schema: {allow_extra_columns: true}]",
                    df) == "pass"  # fmt: skip


def test_soda_contract_rules_flag_the_rows_soda_counts(spark: Any) -> None:
    text = ("columns: [{name: id, checks: [missing: ]}, {name: age, valid_min: 1, checks: "
            "[invalid: ]}]\nchecks: [failed_rows: {expression: age > 1}]")  # fmt: skip
    ruleset = loads_ruleset_file(import_text(text, "soda-contract", "c.yml").text, variables={})
    df = spark.createDataFrame([(i, *r) for i, r in enumerate(MISSING[1])], f"i int, {MISSING[0]}")
    # the null id; the age -1 (the null age is missing, not invalid); the age 2
    assert failing_rows(ruleset.suite, df, "i") == [[1], [1], [3]]


def test_soda_contract_reference_data(spark: Any) -> None:
    """``invalidity_check.py``, ``InvalidReferenceCountQuery``: a value that is not missing
    and has no equal value in the reference column is invalid (by hand: 'X' of 1, null, 3, X;
    the reference holds 1, 2, 3 twice and a null). The rule flags those rows; its tolerance
    is the check's threshold."""
    spark.createDataFrame([("1",), ("2",), ("3",), ("3",), (None,)], "v string") \
        .createOrReplaceTempView("valid_ids")  # fmt: skip
    df = spark.createDataFrame([(i, *r) for i, r in enumerate(MISSING[1])], f"i int, {MISSING[0]}")
    ref = "valid_reference_data: {dataset: ds/db/s/valid_ids, column: v}"
    cases = [  # (the check's other keys, its rule's tolerance, the rows it fails)
        ("", {"fail_if": "> 0"}, [3]),
        ("threshold: {must_be_less_than: 2}", {"fail_if": ">= 2"}, [3]),
        ("threshold: {metric: percent, must_be_less_than_or_equal: 25, level: warn}",
         {"warn_if": "> 25 %"}, [3]),
        ("missing_values: ['X']", {"fail_if": "> 0"}, []),
        ("valid_values: ['1']", {"fail_if": "> 0"}, [2, 3]),  # 3 is in the reference, not valid
    ]  # fmt: skip
    for keys, tolerance, rows in cases:
        text = f"columns: [{{name: id, checks: [invalid: {{{ref}{', ' + keys if keys else ''}}}]}}]"
        result = import_text(text, "soda-contract", "c.yml")
        assert result.unmapped == () and result.checks == 0, result.summary()
        ruleset = loads_ruleset_file(result.text, variables={})
        suite = ruleset.suite.with_policy(RulePolicy().with_views("valid_ids"))
        (rule,) = [r for _, r in suite.iter_rules()]
        assert {k: v for k, v in (("fail_if", rule.fail_if), ("warn_if", rule.warn_if)) if v} \
            == tolerance, keys  # fmt: skip
        assert failing_rows(suite, df, "i") == [rows], keys
