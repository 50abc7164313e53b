"""Where only the Spark Connect client is installed (issue 26): the main Python API and the
command line against a real server, every answer from that server.

The Connect-only tier (``scripts/test-client.sh``) runs these in a venv holding ``pyspark-client``
and no JVM Spark; ``connect_url`` is the server it started. In the main Connect tier the client
starts its own server and the command-line tests are left to the Connect-only tier.
"""

from __future__ import annotations

import importlib.util
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest

from quality_py import (
    Id,
    Rule,
    RuleSet,
    RuleSuite,
    assert_quality,
    load_ruleset_file,
    run_ruleset,
)
from quality_py.cli import main
from quality_py.dataset import Check, verify
from quality_py.spark.capabilities import has_delta
from quality_py.spark.session import is_connect, on_this_machine

RULESET = """
suite: {id: 4, version: 1}
rule_sets:
  - id: 40
    rules:
      - {id: 401, expression: "amount > 0", action_if_failed: drop}
      - {id: 402, expression: "note IS NOT NULL"}
checks:
  - level: error
    description: rows
    constraints: [{has_size: ">= 1"}]
"""
ROWS = [(5, "a"), (-1, "b"), (3, None), (0, None), (7, "e")]
#: by hand: 401 fails -1 and 0 (dropped); 402 fails the two null notes (kept, quarantined)
VALID, QUARANTINED, DROPPED = 3, 3, 2


def _client_only() -> bool:
    return bool(os.environ.get("QP_SPARK_HOME"))


def test_this_tier_has_no_jvm_spark() -> None:
    if not _client_only():
        pytest.skip("the Connect-only tier (scripts/test-client.sh) checks its own venv")
    assert importlib.util.find_spec("py4j") is None
    assert version("pyspark-client").startswith("4.")
    with pytest.raises(PackageNotFoundError):
        version("pyspark")


def test_a_ruleset_runs_in_one_call(connect: Any, tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(RULESET)
    df = connect.createDataFrame(ROWS, "amount int, note string")
    ruleset = load_ruleset_file(tmp_path / "rules.yaml")
    summary = run_ruleset(ruleset, df, "c1").write(str(tmp_path / "valid"), str(tmp_path / "q"))
    assert (summary.valid_rows, summary.quarantined_rows, summary.dropped_rows) == (
        VALID, QUARANTINED, DROPPED,
    )  # fmt: skip
    assert connect.read.parquet(str(tmp_path / "valid")).count() == VALID
    assert is_connect(connect) and on_this_machine(connect)  # a server on loopback
    assert not has_delta(connect)  # asked of the server, which has no Delta
    result = verify(df, [Check("error", "n").has_size("== 5").is_complete("amount")])
    assert result.status == "success"


def test_assert_quality_on_connect(connect: Any) -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(101, 1), "amount > 0")])])
    df = connect.createDataFrame(ROWS, "amount int, note string")
    with pytest.raises(AssertionError, match=r"rule 101\.1 \(set 10\.1\) fails 2 rows"):
        assert_quality(df, suite)
    assert assert_quality(df, suite, allow={"101.1": 2}).input_rows == 5


def test_the_command_line_against_the_server(
    connect: Any, connect_url: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if connect_url is None:
        pytest.skip("the command line's --remote is tested in the Connect-only tier")
    (tmp_path / "rules.yaml").write_text(RULESET)
    data = tmp_path / "in"
    connect.createDataFrame(ROWS, "amount int, note string").write.parquet(str(data))
    args = [
        "run", str(tmp_path / "rules.yaml"), "--input", str(data),
        "--valid", str(tmp_path / "v"), "--quarantine", str(tmp_path / "q"),
        "--json", str(tmp_path / "r.json"),
    ]  # fmt: skip
    assert main([*args, "--remote", connect_url]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert (result["valid_rows"], result["quarantined_rows"], result["dropped_rows"]) == (3, 3, 2)
    # the server named by the environment, as on serverless compute
    monkeypatch.setenv("SPARK_REMOTE", connect_url)
    assert main([*args, "--run-id", "env"]) == 0
    assert connect.read.parquet(str(tmp_path / "v")).count() == VALID


def test_rules_over_more_than_one_row_on_connect(connect: Any, tmp_path: Path) -> None:
    from quality_py import RulePolicy, keep_one_rule, reference_rule, run_quality, unique_rule

    # by hand: key 1 twice (ids 10, 11), key 2 once, a null key (passes: nulls distinct); the
    # reference holds 1 and 3, so key 2 is an orphan; keep-one keeps id 11 of key 1 (latest t)
    rows = [(10, 1, 5), (11, 1, 7), (12, 2, 1), (13, None, 1)]
    df = connect.createDataFrame(rows, "id int, k int, t int")
    connect.createDataFrame([(1,), (3,)], "k int").createOrReplaceTempView("known_keys")
    rules = [
        Rule(Id(1, 1), unique_rule("k")),
        Rule(Id(2, 1), keep_one_rule("k", order_by="t DESC"), action_if_failed="drop"),
        Rule(Id(3, 1), reference_rule("known_keys", ["k"])),
    ]
    suite = RuleSuite(
        Id(9, 1), [RuleSet(Id(90, 1), rules)], policy=RulePolicy().with_views("known_keys")
    )
    run = run_quality(df, suite, run_id="rows")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"))
    assert summary.rules.rules[0].failed == 2 and summary.rules.rules[1].failed == 1
    assert summary.rules.rules[2].failed == 1
    assert sorted(r.id for r in connect.read.parquet(str(tmp_path / "v")).collect()) == [11, 12, 13]


def test_a_misspelt_column_on_connect_prints_our_paragraph_alone(
    connect: Any, connect_url: str | None, tmp_path: Path
) -> None:
    """Issue 42: the command line against a Connect server, in a fresh process: the error the
    server sends for a misspelt column reaches the user as our paragraph (the rule by name,
    the place in the file, the closest column), with nothing of the JVM's stack."""
    import re
    import subprocess
    import sys

    if connect_url is None:
        pytest.skip("the command line's --remote is tested in the Connect-only tier")
    data = tmp_path / "in"
    connect.createDataFrame(ROWS, "amount int, note string").write.parquet(str(data))
    # line 5: 6 spaces, "- {" (cols 7-9), "name: positive, " (10-25), "expression: " (26-37), the
    # quote at col 38: amout at col 39 (by hand)
    (tmp_path / "rules.yaml").write_text(
        "suite: {name: orders}\n"
        "rule_sets:\n"
        "  - name: basics\n"
        "    rules:\n"
        '      - {name: positive, expression: "amout > 0"}\n'
    )
    command = [
        sys.executable, "-m", "quality_py", "run", "rules.yaml", "--input", str(data),
        "--valid", str(tmp_path / "v"), "--remote", connect_url,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "QP_TRACEBACK")}
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 2
    rest = [ln for ln in done.stderr.splitlines() if not re.match(r"\[\d\d:\d\d:\d\d\] ", ln)]
    assert rest[0].startswith("error: rules.yaml:5:39: [RULE_ANALYSIS] 1 rule(s) do not analyse")
    assert "rule 'positive' (" in rest[1]
    assert "column amout is missing (did you mean 'amount'?)" in rest[1]
    assert rest[2:] == ["  amout > 0", "  ^"]


def test_a_growing_table_on_connect(connect: Any, tmp_path: Path) -> None:
    """Issue 55 on a Connect-only client: a table state's checks (a grouping one and a time
    one) and key index over two days; the states are written and read by the server. Counted
    by hand: day 2 repeats day 1's key 2."""
    import datetime as dt

    from quality_py import OverTime, TableState, run_quality

    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "is_unique(k)", action_if_failed="drop")])]
    )
    checks = [Check("warning", "t").has_uniqueness("k", ">= 0").has_no_gaps("d")]

    def day(n: int, keys: list[int]) -> Any:
        rows = [(k, dt.date(2026, 11, n)) for k in keys]
        df = connect.createDataFrame(rows, "k int, d date")
        table = OverTime(table_state=TableState(tmp_path / "states", f"day={n}"))
        return run_quality(df, suite, checks, over_time=table).write(str(tmp_path / f"v{n}"))

    first = day(1, [1, 2])
    assert [r.metric for r in first.checks.results] == [1.0, 0.0]
    second = day(3, [2, 3])  # 11-02 is empty; key 2 is in the table twice
    assert second.dropped_rows == 1
    assert [r.metric for r in second.checks.results] == [0.5, 1.0]  # keys 1 and 3 of 4 rows
    # a batch holding rows of another partition keeps nothing (a date column read by the server)
    from quality_py.dataset.store import StateStoreError

    mixed = connect.createDataFrame([(5, dt.date(2026, 11, 4)), (6, dt.date(2026, 11, 3))],
                                    "k int, d date")  # fmt: skip
    table = OverTime(table_state=TableState(tmp_path / "dated", "d=2026-11-04"))
    with pytest.raises(StateStoreError, match=r"other partitions \(d=2026-11-03\)"):
        run_quality(mixed, suite, checks, over_time=table).write(str(tmp_path / "v4"))


def test_keep_one_over_a_growing_table_on_connect(connect: Any, tmp_path: Path) -> None:
    """Keep-one (each key's latest day) over a table on a Connect-only client: the other days'
    first rows are read from the server's state. By hand: day 3's key 2 is later than day 1's;
    its key 3 twice keeps one; day 1 re-run with key 2 is earlier than day 3's."""
    import datetime as dt

    from quality_py import OverTime, TableState, run_quality

    rule = Rule(Id(3, 1), "row_number() OVER (PARTITION BY k ORDER BY d DESC) = 1",
                action_if_failed="drop")  # fmt: skip
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [rule])])

    def day(n: int, keys: list[int]) -> Any:
        df = connect.createDataFrame([(k, dt.date(2026, 11, n)) for k in keys], "k int, d date")
        table = OverTime(table_state=TableState(tmp_path / "states", f"day={n}"))
        return run_quality(df, suite, over_time=table).write(str(tmp_path / f"v{n}-{len(keys)}"))

    assert day(1, [1, 2]).dropped_rows == 0
    assert day(3, [2, 3, 3]).dropped_rows == 1
    assert day(1, [2]).dropped_rows == 1


def test_a_foreign_key_into_a_growing_table_on_connect(connect: Any, tmp_path: Path) -> None:
    """A foreign key into the table itself on a Connect-only client: the keys are read from the
    other days' key index and the batch (a temporary view on the server). By hand: day 2's
    parent 1 is day 1's key, its parent 9 is nowhere."""
    from quality_py import OverTime, RulePolicy, TableState, run_quality

    rule = Rule(Id(3, 1), "in_reference('t', 'k', p)", action_if_failed="drop")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [rule])]).with_policy(
        RulePolicy().with_views("t")
    )

    def day(n: int, rows: list[tuple[int, int | None]]) -> Any:
        df = connect.createDataFrame(rows, "k int, p int")
        table = OverTime(table_state=TableState(tmp_path / "states", f"day={n}", view="t"))
        return run_quality(df, suite, over_time=table).write(str(tmp_path / f"v{n}"))

    assert day(1, [(1, None), (2, 1)]).dropped_rows == 0
    assert day(2, [(3, 1), (4, 9)]).dropped_rows == 1


def test_the_last_write_on_connect(connect: Any, tmp_path: Path) -> None:
    """``was_written_within`` on a Connect-only client: the server lists the files (its hidden
    ``_metadata``); data built on the client is refused with the check's name. The file's time
    is set by hand: written 2026-11-29 00:00 UTC, judged at 06:00."""

    import pyarrow as pa
    import pyarrow.parquet as pq

    from quality_py.errors import CheckDefinitionError

    folder = tmp_path / "t"
    folder.mkdir()
    pq.write_table(pa.table({"k": pa.array([1, 2], pa.int64())}), folder / "a.parquet")
    written = 20_786 * 86_400  # 2026-11-29 00:00 UTC
    os.utime(folder / "a.parquet", (written, written))
    check = Check("warning", "w").was_written_within("1 hour", now="2026-11-29T06:00:00Z")
    result = verify(connect.read.parquet(str(folder)), [check]).results[0]
    assert (result.passed, result.metric) == (False, 6 * 3600.0)
    with pytest.raises(CheckDefinitionError, match="not read from files"):
        verify(connect.createDataFrame([(1,)], "k int"), [check])
    # the folder made a Delta table (its log written by hand, as the Delta protocol states it,
    # with an in-commit timestamp, 05:00, and the log file's own time 02:00): its commit's time
    log = folder / "_delta_log"
    log.mkdir()
    committed = (written + 5 * 3600) * 1000
    actions = [
        {"commitInfo": {"inCommitTimestamp": committed, "timestamp": committed, "operation": "WRITE"}},
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                      "writerFeatures": ["inCommitTimestamp"]}},
        {"metaData": {"id": "qp-test", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps({"type": "struct", "fields": [
                          {"name": "k", "type": "long", "nullable": True, "metadata": {}}]}),
                      "partitionColumns": [], "configuration": {
                          "delta.enableInCommitTimestamps": "true"}}},
        {"add": {"path": "a.parquet", "partitionValues": {}, "size": 1,
                 "modificationTime": written * 1000, "dataChange": True}},
    ]  # fmt: skip
    (log / "00000000000000000000.json").write_text("\n".join(map(json.dumps, actions)) + "\n")
    os.utime(log / "00000000000000000000.json", (written + 2 * 3600, written + 2 * 3600))
    result = verify(connect.read.parquet(str(folder)), [check]).results[0]
    assert (result.passed, result.metric) == (True, 3600.0)


def test_a_run_tells_its_lineage_on_connect(
    connect: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run on Connect tells its lineage as on a classic session: the places Spark reads and
    writes come from the server; by hand (ROWS): positive fails -1 and 0, has_note the two
    missing notes; 3 valid, 3 quarantined."""
    pytest.importorskip("openlineage.client")
    from quality_py import OpenLineage, run_quality
    from tests.openlineage_schemas import event_errors
    from tests.servers import http_server

    folder = str(tmp_path / "orders")
    connect.createDataFrame(ROWS, "amount INT, note STRING").write.parquet(folder)
    suite = RuleSuite(Id(4, 1), [RuleSet(Id(40, 1), [
        Rule(Id(401, 1), "amount > 0", name="positive", action_if_failed="drop"),
        Rule(Id(402, 1), "note IS NOT NULL", name="has_note")])], name="orders")  # fmt: skip
    with http_server() as (url, record):
        monkeypatch.setenv("DQ_LINEAGE_URL", url)
        setting = OpenLineage(namespace="sales", url_env="DQ_LINEAGE_URL")
        run = run_quality(connect.read.parquet(folder), suite, notifiers=[setting])
        summary = run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
        events = [json.loads(r["body"]) for r in record.requests]
    assert summary.undelivered == ()
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    assert [event_errors(e) for e in events] == [[], []]
    (source,) = events[1]["inputs"]
    assert (source["namespace"], source["name"]) == ("file", os.path.realpath(folder))
    found = source["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert {a["name"]: (a["success"], a["actual"]) for a in found} == {
        "positive": (False, "2"), "has_note": (False, "2")}  # fmt: skip
    assert source["inputFacets"]["dataQualityMetrics"]["rowCount"] == len(ROWS)
    outputs = {d["name"]: d["outputFacets"]["outputStatistics"]["rowCount"]
               for d in events[1]["outputs"]}  # fmt: skip
    assert outputs == {os.path.realpath(tmp_path / "valid"): VALID,
                       os.path.realpath(tmp_path / "quarantine"): QUARANTINED}  # fmt: skip
