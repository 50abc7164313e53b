"""Quality runs: drop / quarantine / fail semantics, conservation, outputs, jobs, notifiers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import Id, OverTime, Rule, RuleSet, RuleSuite
from quality_py.actions import (
    CallbackNotifier,
    JsonLinesNotifier,
    QualityRunFailed,
    WebhookNotifier,
    foreach_batch,
    run_quality,
    with_quality,
)
from quality_py.dataset.checks import Check
from quality_py.errors import ModelError
from tests.spark.jobs import jobs_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ROWS = [(1, 5.0, "a"), (2, -1.0, "b"), (3, None, "c"), (4, 50.0, None), (5, float("nan"), "e")]
SCHEMA = "id int, x double, s string"


def _suite(*rules: Rule) -> RuleSuite:
    return RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), list(rules))])


@pytest.fixture
def df(spark: Any) -> Any:
    return spark.createDataFrame(ROWS, SCHEMA)


def test_drop_and_ignore_semantics_and_quarantine_metadata(df: Any) -> None:
    suite = _suite(
        Rule(Id(100, 1), "x >= 0", action_if_failed="drop", description="non-negative"),
        Rule(Id(101, 2), "s IS NOT NULL", description="has s"),
    )
    run = run_quality(df, suite, run_id="r1")
    valid = sorted(r.id for r in run.valid.collect())
    # x >= 0: -1 fails, null -> null -> Failed, NaN >= 0 is true in Spark
    assert valid == [1, 4, 5]
    assert run.valid.columns == ["id", "x", "s"]
    rows = {r.id: r for r in run.quarantine.collect()}
    assert sorted(rows) == [2, 3, 4]
    assert rows[4].qp_kept_in_valid and not rows[2].qp_kept_in_valid
    assert rows[4].qp_run_id == "r1" and rows[4].qp_run_time is not None
    failed = [tuple(f) for f in rows[2].qp_failed_rules]
    assert failed == [(10, 1, 100, 1)]  # rule set 10.1, rule 100.1
    assert [f.ruleId for f in rows[4].qp_failed_rules] == [101]
    assert rows[2].DataQuality.overallResult == 0


def test_a_lean_quarantine_names_failed_rules_by_packed_id(df: Any, tmp_path: Path) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(Id(10, 1), [Rule(Id(100, 1), "x >= 0", action_if_failed="drop")]),
            RuleSet(Id(11, 1), [Rule(Id(101, 2), "s IS NOT NULL"), Rule(Id(102, 1), "id < 4")]),
        ],
    )
    run = run_quality(df, suite, run_id="lean")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"), quarantine_detail="ids")
    quarantine = df.sparkSession.read.parquet(str(tmp_path / "q"))
    assert "DataQuality" not in quarantine.columns and "qp_failed_rules" not in quarantine.columns
    got = {r.id: [Id.unpack(p) for p in r.qp_failed_rule_ids] for r in quarantine.collect()}
    # by hand from ROWS: -1 and null fail x >= 0 (NaN >= 0 is true in Spark); s null on id 4;
    # id < 4 fails 4 and 5
    assert got == {
        2: [Id(100, 1)],
        3: [Id(100, 1)],
        4: [Id(101, 2), Id(102, 1)],
        5: [Id(102, 1)],
    }
    assert (summary.valid_rows, summary.quarantined_rows) == (3, 4)
    assert Id(100, 1).packed == (100 << 32) | 1  # the original's packing, independently
    with pytest.raises(ValueError, match="'names', 'ids' or 'full'"):
        run.write(str(tmp_path / "v2"), quarantine_detail="slim")
    assert not (tmp_path / "v2").exists()
    twice = RuleSuite(
        Id(1, 1),
        [
            RuleSet(Id(10, 1), [Rule(Id(7, 1), "x > 0")]),
            RuleSet(Id(11, 1), [Rule(Id(7, 1), "id > 0")]),
        ],
    )
    both = run_quality(df, twice)
    both.write(str(tmp_path / "v3"), str(tmp_path / "q3"))  # full reasons tell them apart
    with pytest.raises(ModelError, match="packed rule id"):
        both.write(str(tmp_path / "v4"), str(tmp_path / "q4"), quarantine_detail="ids")
    assert not (tmp_path / "v4").exists() and not (tmp_path / "q4").exists()


def test_a_fail_rule_fails_the_run_and_writes_nothing(df: Any, tmp_path: Path) -> None:
    suite = _suite(
        Rule(Id(100, 1), "id < 4", action_if_failed="fail", description="small ids"),
        Rule(Id(101, 1), "x > 0", action_if_failed="drop"),
    )
    events: list[dict[str, Any]] = []
    with pytest.raises(QualityRunFailed) as err:
        run_quality(
            df,
            suite,
            run_id="bad",
            keys=["id"],
            notifiers=[CallbackNotifier(on_failure=events.append)],
        )
    summary = err.value.summary
    assert err.value.code == "QUALITY_RUN_FAILED"
    assert [(r.rule, n) for r, n in summary.failing_rules] == [(Id(100, 1), 2)]
    assert sorted(k["id"] for k in summary.sample_keys) == [4, 5]
    assert "small ids" in str(err.value)
    assert events and events[0]["event"] == "failure" and events[0]["run_id"] == "bad"
    assert not (tmp_path / "valid").exists()


def test_dataset_checks_fail_or_are_recorded(df: Any, tmp_path: Path) -> None:
    suite = _suite(Rule(Id(100, 1), "id > 0"))
    failing = Check("error", "size").has_size("> 100")
    with pytest.raises(QualityRunFailed) as err:
        run_quality(df, suite, [failing])
    assert any("size" in m for m in err.value.summary.failed_checks)
    soft = Check("warning", "soft").has_size("> 100").is_complete("id")
    run = run_quality(df, suite, [soft], run_id="soft")
    summary = run.write(str(tmp_path / "valid"), stats=str(tmp_path / "stats"))
    assert summary.status == "success" and len(summary.failed_checks) == 1
    stats = run.valid.sparkSession.read.parquet(str(tmp_path / "stats"))
    checks = {r.name: r.status for r in stats.where("kind = 'check'").collect()}
    assert checks == {"size > 100": "failed", "id is complete": "passed"}


def test_write_counts_and_jobs(no_aqe: Any, tmp_path: Path) -> None:
    spark = no_aqe
    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite(
        Rule(Id(100, 1), "x >= 0", action_if_failed="drop"),
        Rule(Id(101, 1), "s IS NOT NULL"),
    )
    run = run_quality(df, suite, run_id="j1")
    jobs, summary = jobs_of(spark, lambda: run.write(str(tmp_path / "v"), str(tmp_path / "q")))
    assert jobs == 2  # quarantine write + valid write (counts ride on it)
    assert (
        summary.input_rows,
        summary.valid_rows,
        summary.quarantined_rows,
        summary.dropped_rows,
    ) == (5, 3, 3, 2)
    assert summary.rules is not None and [r.failed for r in summary.rules.rules] == [2, 1]
    assert spark.read.parquet(str(tmp_path / "v")).count() == 3
    # with a fail rule, one aggregation runs first
    with_fail = _suite(
        *suite.rule_sets[0].rules, Rule(Id(102, 1), "id > 0", action_if_failed="fail")
    )
    jobs, _ = jobs_of(
        spark,
        lambda: run_quality(df, with_fail, run_id="j2").write(
            str(tmp_path / "v2"), str(tmp_path / "q2")
        ),
    )
    assert jobs == 3


def test_rerunning_a_run_id_replaces_only_its_outputs(df: Any, tmp_path: Path) -> None:
    spark = df.sparkSession
    suite = _suite(Rule(Id(100, 1), "x >= 0", action_if_failed="drop"))
    q, s = str(tmp_path / "q"), str(tmp_path / "s")
    run_quality(df, suite, run_id="a").write(str(tmp_path / "v"), q, s)
    run_quality(df, suite, run_id="b").write(str(tmp_path / "v"), q, s)
    run_quality(df.where("id > 2"), suite, run_id="a").write(str(tmp_path / "v"), q, s)
    counts = {
        r.qp_run_id: r["count"]
        for r in spark.read.parquet(q).groupBy("qp_run_id").count().collect()
    }
    assert counts == {"a": 1, "b": 2}  # run a replaced (only id 3 fails among ids > 2)
    stats = spark.read.parquet(s).where("kind = 'rows' AND name = 'input_rows'")
    assert {r.qp_run_id: r.value for r in stats.collect()} == {"a": 3.0, "b": 5.0}


@pytest.mark.parametrize("publish", ["atomic", "direct", "table"])
def test_a_rerun_that_quarantines_nothing_empties_its_quarantine(
    df: Any, tmp_path: Path, publish: str
) -> None:
    """Run a quarantines ids 2 and 3 (x < 0 and x null); its re-run on fixed data quarantines
    nothing, so no row may stay in run a's quarantine (a row in valid and in quarantine),
    and the stats of every run agree with its quarantine. Run b is untouched."""
    spark = df.sparkSession
    suite = _suite(Rule(Id(100, 1), "x >= 0", action_if_failed="drop"))
    if publish == "table":
        names = [f"qp_rerun_{n}_{tmp_path.name[-6:]}".replace("-", "_") for n in "vqs"]
        v, q, s = (f"table:{n}" for n in names)  # a table, whatever the session's catalog
        mode = "direct"
    else:
        v, q, s = (str(tmp_path / n) for n in "vqs")
        mode = publish
    fixed = spark.createDataFrame([(i, 1.0, "a") for i in (1, 2, 3)], SCHEMA)
    run_quality(df, suite, run_id="a").write(v, q, s, publish=mode)
    run_quality(df, suite, run_id="b").write(v, q, s, publish=mode)
    summary = run_quality(fixed, suite, run_id="a").write(v, q, s, publish=mode)
    assert summary.quarantined_rows == 0

    def read(name: str) -> Any:
        if publish == "table":
            return spark.table(name.removeprefix("table:"))
        return spark.read.parquet(name)

    quarantined = {r.qp_run_id: r["count"] for r in read(q).groupBy("qp_run_id").count().collect()}
    assert quarantined == {"b": 2}  # ids 2 and 3 of run b; nothing of run a
    stats = read(s).where("kind = 'rows' AND name = 'quarantined_rows'")
    assert {r.qp_run_id: r.value for r in stats.collect()} == {"a": 0.0, "b": 2.0}
    if publish == "table":
        for name in names:
            spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_a_rule_id_in_two_sets_is_refused_where_the_history_would_mix_them(
    df: Any, tmp_path: Path
) -> None:
    from quality_py.errors import ModelError
    from quality_py.history import FileMetricsRepository

    twice = RuleSuite(
        Id(1, 1),
        [
            RuleSet(Id(10, 1), [Rule(Id(100, 1), "x >= 0")]),
            RuleSet(Id(11, 1), [Rule(Id(100, 1), "s IS NOT NULL")]),
        ],
    )
    with pytest.raises(ModelError) as err:
        run_quality(df, twice, over_time=OverTime(history=FileMetricsRepository(tmp_path / "h")))
    assert err.value.code == "DUPLICATE_ID" and "Id(10, 1)" in str(err.value)
    assert not (tmp_path / "h").exists() or not any((tmp_path / "h").rglob("*.json"))
    run_quality(df, twice)  # no history: each rule's own counts stay apart in the stats


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True, width=32)),
            st.one_of(st.none(), st.integers(-3, 3)),
        ),
        max_size=25,
    ),
    st.lists(
        st.tuples(
            st.sampled_from(["x > 0", "y <> 0", "x < y", "y IS NOT NULL", "x = x", "1 / y > 0"]),
            st.sampled_from(["ignore", "drop"]),
        ),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 4),
)
def test_conservation_of_rows(
    spark: Any, rows: list[Any], rules: list[Any], partitions: int
) -> None:
    """Every row is in valid or quarantine (both only for ignore-only failures), once each."""
    data = [(i, x, y) for i, (x, y) in enumerate(rows)]
    df = spark.createDataFrame(data, "id int, x double, y int").repartition(partitions)
    suite = _suite(
        *[Rule(Id(100 + i, 1), text, action_if_failed=a) for i, (text, a) in enumerate(rules)]
    )
    run = run_quality(df, suite)
    valid = [r.id for r in run.valid.collect()]
    action = {100 + i: a for i, (_, a) in enumerate(rules)}  # what the suite says
    quarantine = [
        (r.id, r.qp_kept_in_valid, [action[f.ruleId] for f in r.qp_failed_rules])
        for r in run.quarantine.collect()
    ]
    ids = [i for i, _, _ in quarantine]
    assert len(valid) == len(set(valid)) and len(ids) == len(set(ids))
    assert set(valid) | set(ids) == {d[0] for d in data}
    both = set(valid) & set(ids)
    assert both == {i for i, kept, actions in quarantine if kept}
    assert all(
        actions and set(actions) == {"ignore"} for i, kept, actions in quarantine if i in both
    )
    assert all("drop" in actions for i, kept, actions in quarantine if i not in both)


def test_decorator_and_foreach_batch_are_idempotent(spark: Any, tmp_path: Path) -> None:
    suite = _suite(Rule(Id(100, 1), "x >= 0", action_if_failed="drop"))
    target = str(tmp_path / "v")

    @with_quality(suite, target=target, quarantine=str(tmp_path / "q"))
    def produce() -> Any:
        return spark.createDataFrame(ROWS, SCHEMA)

    run = produce(run_id="deco")
    assert run.summary is not None and run.summary.valid_rows == 3
    assert spark.read.parquet(target).count() == 3

    handler = foreach_batch(suite, target=str(tmp_path / "sv"), quarantine=str(tmp_path / "sq"))
    batch = spark.createDataFrame(ROWS, SCHEMA)
    handler(batch, 7)
    handler(batch, 7)  # a replayed batch replaces itself
    handler(batch.where("id > 3"), 8)
    out = spark.read.parquet(str(tmp_path / "sv"))
    assert {r.qp_run_id: r["count"] for r in out.groupBy("qp_run_id").count().collect()} == {
        "batch-7": 3,
        "batch-8": 2,
    }
    # and in a real stream
    src = tmp_path / "src"
    batch.write.parquet(str(src))
    stream = spark.readStream.schema(SCHEMA).parquet(str(src))
    query = (
        stream.writeStream.foreachBatch(
            foreach_batch(suite, target=str(tmp_path / "rv"), run_prefix="s")
        )
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert spark.read.parquet(str(tmp_path / "rv")).count() == 3


class _Hook(BaseHTTPRequestHandler):
    received: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        _Hook.received.append(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_notifiers_file_and_webhook(df: Any, tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/hook"

        class Broken:
            def notify(self, event: dict[str, Any]) -> None:
                raise RuntimeError("down")

        notifiers = [JsonLinesNotifier(tmp_path / "events.jsonl"), WebhookNotifier(url), Broken()]
        suite = _suite(Rule(Id(100, 1), "x >= 0", action_if_failed="drop"))
        run = run_quality(df, suite, run_id="n1", notifiers=notifiers)
        run.write(str(tmp_path / "v"))
        with pytest.raises(QualityRunFailed):
            run_quality(
                df,
                suite,
                [Check("error", "big").has_size("> 10")],
                run_id="n2",
                notifiers=notifiers,
            )
    finally:
        server.shutdown()
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [(e["event"], e["run_id"]) for e in lines] == [
        ("start", "n1"),
        ("success", "n1"),
        ("start", "n2"),
        ("failure", "n2"),
    ]
    assert lines[1]["valid_rows"] == 3 and lines[1]["dropped_rows"] == 2
    assert [(e["event"], e["run_id"]) for e in _Hook.received] == [
        (e["event"], e["run_id"]) for e in lines
    ]


def test_outputs_to_tables_replace_only_their_run(df: Any) -> None:
    spark = df.sparkSession
    suite = _suite(Rule(Id(100, 1), "x >= 0", action_if_failed="drop"))
    names = ("qp_test_valid", "qp_test_quarantine", "qp_test_stats")
    for name in names:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    try:
        tables = [f"table:{n}" for n in names]  # a table, whatever the session's catalog
        run_quality(df, suite, run_id="t1").write(*tables)
        run_quality(df, suite, run_id="t2").write(*tables)
        run_quality(df.where("id = 2"), suite, run_id="t1").write(*tables)
        counts = spark.table(names[1]).groupBy("qp_run_id").count().collect()
        assert {r.qp_run_id: r["count"] for r in counts} == {"t1": 1, "t2": 2}
        assert spark.table(names[0]).count() == 0  # overwrite mode: the last run's valid rows
        assert spark.table(names[2]).where("kind = 'rows'").count() == 10  # 5 counts x 2 runs
    finally:
        for name in names:
            spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_delta_without_delta_spark_is_a_clear_error(df: Any, tmp_path: Path) -> None:
    import importlib.util

    from quality_py.actions import RunOutputError

    if importlib.util.find_spec("delta") is not None:
        pytest.skip("delta-spark is installed here")
    run = run_quality(df, _suite(Rule(Id(100, 1), "x >= 0")), run_id="d")
    with pytest.raises(RunOutputError) as err:
        run.write(str(tmp_path / "v"), format="delta")
    assert "delta-spark" in str(err.value) and err.value.code == "RUN_OUTPUT"
    assert not (tmp_path / "v").exists()


def test_a_run_with_many_rules_plans_and_counts(spark: Any, tmp_path: Path) -> None:
    """120 rules with every action: guards against plans that grow with each use of a code
    (an earlier flag design never finished optimizing at 27 rules)."""
    n = 120
    data = [(i, i % 7, i % 11) for i in range(50)]
    df = spark.createDataFrame(data, "id int, a int, b int")
    actions = ["ignore", "drop", "fail"]
    rules = [
        Rule(
            Id(1000 + k, 1),
            f"a <> {k % 7} OR b <> {k % 11}" if k % 3 != 2 else f"id >= {-k}",
            action_if_failed=actions[k % 3],
        )
        for k in range(n)
    ]
    run = run_quality(df, _suite(*rules), run_id="many")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"))
    failing = {
        i: [k for k in range(n) if k % 3 != 2 and a == k % 7 and b == k % 11] for i, a, b in data
    }
    dropped = {i for i, ks in failing.items() if any(k % 3 == 1 for k in ks)}
    assert summary.dropped_rows == len(dropped)
    assert summary.quarantined_rows == sum(1 for ks in failing.values() if ks)
    assert sorted(r.id for r in run.valid.collect()) == sorted(set(range(50)) - dropped)


def test_samples_without_declared_keys_show_what_the_failed_rules_read(
    spark: Any, tmp_path: Path
) -> None:
    """No keys declared: a failing row is shown by the columns its failed rules read, never by
    the input's leading columns (here `id`, which no rule reads). By hand: `s` is null on row 4
    only; `x > 0` fails -1.0 and the null (NaN is above every number in Spark: it passes)."""
    from quality_py import run_quality
    from quality_py.history import FileMetricsRepository

    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite(Rule(Id(100, 1), "s IS NOT NULL", action_if_failed="fail"))
    with pytest.raises(QualityRunFailed) as err:
        run_quality(df, suite)
    assert list(err.value.summary.sample_keys) == [{"s": None}]
    repo = FileMetricsRepository(tmp_path / "h")
    checked = _suite(Rule(Id(101, 1), "x > 0"))
    run_quality(df, checked, run_id="r", over_time=OverTime(history=repo)).write()
    (record,) = repo.records()
    kept = [json.loads(m.message or "{}") for m in record.metrics if m.kind == "sample"]
    assert sorted(json.dumps(k["keys"]) for k in kept) == ['{"x": -1.0}', '{"x": null}']
