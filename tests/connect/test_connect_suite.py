"""One full suite on Spark Connect: the same results as on a classic session."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pyspark.sql import functions as F

from quality_py import (
    FAILED,
    PASSED,
    CompactLayout,
    Id,
    LambdaFunction,
    OverTime,
    Rule,
    RuleAnalysisError,
    RuleSet,
    RuleSuite,
    add_data_quality,
    add_overall_results_and_details,
    layout_of_field,
    rule_runner,
)
from quality_py import functions as Q
from quality_py.model.policy import RulePolicy
from quality_py.spark.session import register_sql_functions

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(Id(50, 1), [Rule(Id(100, 1), "a % 2 == 0"), Rule(Id(100, 2), "isPositive(b)")]),
        RuleSet(
            Id(51, 1),
            [
                Rule(Id(101, 1), "exists(SELECT 1 FROM qp_connect_ref r WHERE r.k = main.a)"),
                Rule(Id(102, 1), "soft_fail(b > 5)"),
                Rule(Id(103, 1), "0.9"),
            ],
        ),
    ],
    lambdas=[LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))],
).with_policy(RulePolicy().with_views("qp_connect_ref"))
EXPECTED = {  # a -> (overall, set 50 overall, set 51 codes)
    2: (PASSED, PASSED, [PASSED, -1, 90000]),
    3: (FAILED, FAILED, [FAILED, -1, 90000]),
    4: (PASSED, PASSED, [PASSED, PASSED, 90000]),
}


def _data(connect: Any) -> Any:
    connect.createDataFrame([(2,), (4,)], "k int").createOrReplaceTempView("qp_connect_ref")
    return connect.createDataFrame([(2, 1), (3, 1), (4, 9)], "a int, b int")


def test_map_layout_on_connect(connect: Any) -> None:
    df = _data(connect)
    rows = add_data_quality(df, SUITE).collect()
    got = {}
    for r in rows:
        sets = r.DataQuality.ruleSetResults
        s51 = sets[Id(51, 1).packed].ruleResults
        got[r.a] = (
            r.DataQuality.overallResult,
            sets[Id(50, 1).packed].overallResult,
            [s51[Id(i, 1).packed] for i in (101, 102, 103)],
        )
    assert got == EXPECTED


def test_compact_layout_and_library_functions_on_connect(connect: Any) -> None:
    df = _data(connect)
    checked = add_data_quality(df, SUITE, layout="compact")
    lay = layout_of_field(checked.schema["DataQuality"])
    assert lay == CompactLayout.of(SUITE)
    flat = checked.select(
        "a", F.explode(Q.flatten_results(F.col("DataQuality"), layout=lay)).alias("f")
    )
    assert flat.count() == 3 * 5
    r = checked.select(
        "a",
        Q.rule_result(
            "DataQuality", Id(1, 1).packed, Id(50, 1).packed, Id(100, 2).packed, layout=lay
        ).alias("r"),
    )
    assert {x.a: x.r for x in r.collect()} == {2: PASSED, 3: PASSED, 4: PASSED}
    overall = add_overall_results_and_details(df, SUITE)
    assert {x.a: x.DQ_overallResult for x in overall.collect()} == {2: PASSED, 3: FAILED, 4: PASSED}


def test_large_suite_stays_below_the_protobuf_depth_limit(connect: Any) -> None:
    rules = [Rule(Id(i, 1), f"(a + {i}) % 3 <> 0 OR b > {i}") for i in range(300)]
    suite = RuleSuite(
        Id(9, 1), [RuleSet(Id(j, 1), rules[j * 30 : (j + 1) * 30]) for j in range(10)]
    )
    df = _data(connect)
    checked = add_data_quality(df, suite, layout="compact")
    assert checked.count() == 3
    assert [len(r.DataQuality.ruleResults) for r in checked.collect()] == [300, 300, 300]
    # The single-expression runner (no schema, type-generic coding) on a smaller suite.
    small = RuleSuite(Id(9, 1), [RuleSet(Id(1, 1), rules[:40])])
    generic = df.select(rule_runner(small, layout="compact"))
    assert [len(r.DataQuality.ruleResults) for r in generic.collect()] == [40, 40, 40]


def test_one_projection_on_connect(connect: Any) -> None:
    """Under a method limit of 8000 the struct is one projection from the input
    (runners.one_projection), on Connect as on a classic session. By hand: a % 2 == 0 holds
    for 2 and 4, b > 5 for 4 only; '0.9' is the probability 90000, above 0.8."""
    from quality_py.runners.one_projection import session_form
    from quality_py.runners.staging import stage_rule_codes
    from quality_py.sql.codegen_limits import METHOD_LIMIT

    plain = RuleSuite(
        Id(1, 1),
        [
            RuleSet(Id(60, 1), [Rule(Id(1, 1), "a % 2 == 0"), Rule(Id(2, 1), "b > 5")]),
            RuleSet(Id(61, 1), [Rule(Id(3, 1), "0.9")]),
        ],
    )
    df = _data(connect)
    before = connect.conf.get(METHOD_LIMIT)
    connect.conf.set(METHOD_LIMIT, "8000")
    try:
        assert session_form(connect) == (True, False)  # settings read over Connect
        assert stage_rule_codes(df, plain, one_projection=True).inline is not None
        got = {
            r.a: (r.DataQuality.overallResult, r.DataQuality.ruleResults)
            for r in add_data_quality(df, plain, layout="compact").collect()
        }
    finally:
        connect.conf.set(METHOD_LIMIT, before)
    assert got == {
        2: (FAILED, [PASSED, FAILED, 90000]),
        3: (FAILED, [FAILED, FAILED, 90000]),
        4: (PASSED, [PASSED, PASSED, 90000]),
    }


def test_errors_and_sql_functions_on_connect(connect: Any) -> None:
    df = _data(connect)
    bad = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 4), "no_such_column > 1")])])
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(df, bad)
    assert err.value.item_id == Id(3, 4)
    register_sql_functions(connect)
    checked = add_data_quality(df, SUITE)
    assert [r.a for r in checked.filter("DataQuality.overallResult = passed()").collect()] == [2, 4]


def test_rule_engine_on_connect(connect: Any) -> None:
    from quality_py import OutputExpression, rule_engine_with_struct

    high = OutputExpression(Id(1, 1), "concat('big-', CAST(a AS STRING))")
    low = OutputExpression(Id(2, 1), "'small'")
    suite = RuleSuite(
        Id(5, 1),
        [
            RuleSet(
                Id(1, 1),
                [
                    Rule(Id(1, 1), "a > 2", salience=1, output=high),
                    Rule(Id(2, 1), "a > 0", salience=2, output=low),
                ],
            )
        ],
    )
    out = rule_engine_with_struct(_data(connect), suite, "string", layout="compact")
    assert {r.a: r.ruleEngine.result for r in out.collect()} == {2: "small", 3: "big-3", 4: "big-4"}
    debug = rule_engine_with_struct(_data(connect), suite, "string", debug=True)
    assert {r.a: [x.salience for x in r.ruleEngine.result] for r in debug.collect()} == {
        2: [2],
        3: [1, 2],
        4: [1, 2],
    }


def test_rule_folder_on_connect(connect: Any) -> None:
    from quality_py import OutputExpression, fold_and_replace_fields

    bump = OutputExpression(Id(1, 1), "x -> update_field(x, 'b', x.b + 100)")
    mark = OutputExpression(Id(2, 1), "set(b = currentResult.b * -1)")
    suite = RuleSuite(
        Id(6, 1),
        [
            RuleSet(
                Id(1, 1),
                [
                    Rule(Id(1, 1), "a > 2", salience=2, output=mark),
                    Rule(Id(2, 1), "a >= 3", salience=1, output=bump),
                ],
            )
        ],
    )
    out = fold_and_replace_fields(_data(connect), suite, ["b"])
    assert out.columns == ["a", "b", "foldedFields"]
    assert {r.a: r.b for r in out.collect()} == {2: None, 3: -101, 4: -109}


def test_quality_run_and_dataset_checks_on_connect(connect: Any, tmp_path: Any) -> None:
    """Actions, observed counts and analyzers need no JVM access: they work over Connect."""
    from quality_py import Check, run_quality
    from quality_py.dataset import ApproxCountDistinct, Size, Uniqueness, run_analyzers

    df = connect.createDataFrame([(1, 5.0), (2, -1.0), (3, None)], "id int, x double")
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(100, 1), "x >= 0", action_if_failed="drop")])]
    )
    run = run_quality(df, suite, [Check("warning", "n").has_size("== 3")], run_id="c1")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"), str(tmp_path / "s"))
    assert (summary.input_rows, summary.valid_rows, summary.dropped_rows) == (3, 1, 2)
    assert sorted(r.id for r in run.quarantine.collect()) == [2, 3]
    metrics = run_analyzers(df, [Size(), Uniqueness("id"), ApproxCountDistinct("id")]).metrics
    assert metrics[Size()] == 3.0 and metrics[Uniqueness("id")] == 1.0
    assert metrics[ApproxCountDistinct("id")] == 3.0


def test_the_originals_functions_on_connect(connect: Any) -> None:
    """Ids, digests, lookup maps, blooms and the expression runner on Spark Connect."""
    import hashlib
    import struct
    import uuid

    from quality_py import expression_runner
    from quality_py.io.blooms import build_bloom, register_bloom
    from quality_py.io.views import MapConfig, load_views

    connect.createDataFrame([("AA", "American"), ("UA", "United")], "c string, n string")\
        .createOrReplaceTempView("qp_connect_airlines")  # fmt: skip
    loaded = load_views(
        connect, (), (MapConfig("qp_connect_names", "qp_connect_airlines", "c", "n"),)
    )
    bloom = build_bloom(connect.range(100).selectExpr("id * 2 AS k"), "k", "qp_connect_evens")
    register_bloom(connect, bloom)
    df = connect.createDataFrame(
        [("UA", 4, 1, 2), ("ZZ", None, -1, 0)], "c string, k bigint, lo bigint, hi bigint"
    )
    policy = RulePolicy().with_views(*loaded.names).with_blooms(bloom.spec)
    rows = df.select(
        Q.expr("map_lookup('qp_connect_names', c)", policy=policy).alias("name"),
        Q.expr("bloom_contains(k, 'qp_connect_evens')", policy=policy).alias("even"),
        Q.expr("as_uuid(lo, hi)").alias("u"),
        Q.expr("digest_to_longs('MD5', c)", over=df).alias("d"),
        Q.expr("murmur3_id('m', c)", over=df).alias("m"),
    ).collect()
    assert [r.name for r in rows] == ["United", None]
    assert [r.even for r in rows] == [True, None]  # 4 was added; a null value is unknown
    assert rows[0].u == str(uuid.UUID(int=(2 << 64) | 1))
    digest = hashlib.md5(b"UA").digest()
    assert rows[0].d == list(struct.unpack(">qq", digest))
    import mmh3

    murmur = struct.unpack(">qq", mmh3.hash_bytes(b"UA", 0, True))
    assert (rows[0].m.m_base, rows[0].m.m_i0, rows[0].m.m_i1) == (2, *murmur)
    by_code = "agg_expr('MAP<STRING, BIGINT>', 1 > 0, map_with(c, e -> e + lo), return_sum())"
    measures = RuleSuite(
        Id(3, 1), [RuleSet(Id(30, 1), [Rule(Id(300, 1), "sum(k)"), Rule(Id(301, 1), by_code)])]
    )
    result = df.select(expression_runner(df, measures)).first().expressionResults
    assert result.ruleSetResults[Id(30, 1).packed][Id(300, 1).packed].result == "4"
    sums = result.ruleSetResults[Id(30, 1).packed][Id(301, 1).packed].result
    assert json.loads(sums) == {"UA": 1, "ZZ": -1}
    (mm,) = df.where("c = 'UA'").select(Q.expr("za_hash_with('MURMUR3_64', c)", over=df)).first()
    assert mm == [mmh3.hash64(b"UA", 0, True)[0]]
    import xxhash

    (x3,) = df.where("c = 'UA'").select(Q.expr("za_hash_longs_with('XXH3', c)", over=df)).first()
    both = xxhash.xxh3_128_intdigest(b"UA", 0)
    want = [both & (2**64 - 1), both >> 64]
    assert x3 == [v - 2**64 if v >= 2**63 else v for v in want]


def test_quality_over_time_on_connect(connect: Any, tmp_path: Any) -> None:
    """A history, an anomaly check, a SQL check and a profile through Spark Connect."""
    from quality_py import QualityRunFailed, run_quality
    from quality_py.actions.sql_checks import SqlCheck
    from quality_py.history import AnomalyCheck, FileMetricsRepository, RelativeRateOfChange
    from quality_py.profile import profile

    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(101, 1), "a >= 0", action_if_failed="drop")])]
    )
    repo = FileMetricsRepository(tmp_path / "history")
    volume = AnomalyCheck("input_rows", RelativeRateOfChange(max_decrease=0.5), name="volume")
    lost = SqlCheck("no row lost", "SELECT (SELECT count(*) FROM valid) + (SELECT count_if(NOT "
                    "qp_kept_in_valid) FROM quarantine) = (SELECT count(*) FROM source)")  # fmt: skip
    for n in (100, 90):
        frame = connect.range(n).selectExpr("CAST(id - 5 AS INT) AS a")
        summary = run_quality(
            frame, suite, [lost], over_time=OverTime(history=repo, anomaly_checks=[volume])
        ).write(str(tmp_path / "valid"))
        # the first run has no earlier one: "not judged", never "normal", never a failure
        waiting = [m for m in summary.not_judged if "not judged" in m]
        assert summary.dropped_rows == 5 and len(waiting) == (n == 100)
        assert summary.failed_checks == ()
    small = run_quality(
        connect.range(10).selectExpr("CAST(id AS INT) AS a"), suite,
        over_time=OverTime(history=repo, anomaly_checks=[volume]),
    )  # fmt: skip
    with pytest.raises(QualityRunFailed, match="volume"):
        small.write()
    assert [r.status for r in repo.records()] == ["success", "success", "failed"]
    learned = profile(connect.range(50).selectExpr("CAST(id % 3 AS INT) AS k"))
    assert learned.rows == 50 and learned.column("k").histogram == {"0": 17, "1": 17, "2": 16}


def test_progress_of_a_phase_on_connect(connect: Any, capsys: Any) -> None:
    """``watching`` listens to the server's progress reports while its block runs and stops
    listening after it. (How many reports a query gets depends on its duration, so the test
    counts the last one every query sends; the lines they print are in ConnectProgress's
    example.)"""
    from quality_py.progress import ConnectProgress, watching

    watcher = ConnectProgress.on(connect)
    assert watcher is not None
    assert connect.range(0, 1000, 1, 4).selectExpr("sum(id)").first()[0] == 499500
    heard = watcher.reports
    assert heard >= 1
    watcher.close()
    connect.range(10).count()
    assert watcher.reports == heard  # no longer listening
    with watching(connect, "checking and writing", every=0.05):
        assert connect.range(0, 1000, 1, 4).count() == 1000
    err = capsys.readouterr().err
    assert "checking and writing: done in" in err and "Traceback" not in err
