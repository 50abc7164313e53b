"""Top failing values: counted in the run's own pass, checked against pandas' value counts of
the same rows, in the summary, the stats, the history, the alert event and the site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from quality_py import Id, Rule, RulePolicy, RuleSet, RuleSuite, read_outputs, run_quality
from quality_py.history import FileMetricsRepository, OverTime
from quality_py.spark.capabilities import has_function

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

RULES = [
    Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="drop"),
    Rule(Id(101, 1), "currency IN ('EUR', 'USD')", name="known_currency"),
    Rule(Id(102, 1), "amount < 40 OR currency = 'EUR'", name="small_or_eur"),
    Rule(Id(103, 1), "length(secret) = 4", name="secret_shape"),
]
SUITE = RuleSuite(Id(7, 1), [RuleSet(Id(1, 1), RULES)], name="orders")


def _data() -> pd.DataFrame:
    currencies = ["EUR", "USD", "GBP", "CHF", None]
    rows = []
    for i in range(3000):
        amount = None if i % 97 == 0 else (i * 7919) % 61 - 8  # -8..52, some null
        rows.append((i, amount, currencies[(i * 31) % 5 if i % 3 else 0], f"s{i % 11:02d}x"))
    return pd.DataFrame(rows, columns=["id", "amount", "currency", "secret"])


def _expected(data: pd.DataFrame) -> dict[str, list[tuple[str, str | None, int]]]:
    """pandas' reading of each rule's failing rows and their value counts (top 5 over the
    columns the rule reads; ties by value, null last)."""
    amount, currency = data["amount"], data["currency"]
    fails = {
        "100.1": ~(amount > 0).fillna(False),
        "101.1": ~currency.isin(["EUR", "USD"]),
        "102.1": ~((amount < 40).fillna(False) | (currency == "EUR")),
    }
    reads = {"100.1": ["amount"], "101.1": ["currency"], "102.1": ["amount", "currency"]}
    out = {}
    for entity, mask in fails.items():
        found = []
        for column in reads[entity]:
            counts = data.loc[mask, column].astype("object").value_counts(dropna=False)
            for value, rows in counts.items():
                text = None if pd.isna(value) else str(int(value) if column == "amount" else value)
                found.append((column, text, int(rows)))
        found.sort(key=lambda t: (-t[2], t[1] is None, t[1] or "", t[0]))
        out[entity] = found[:5]
    return out


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    data = _data()
    schema = "id INT, amount INT, currency STRING, secret STRING"
    rows = [tuple(None if pd.isna(v) else v for v in r) for r in data.itertuples(index=False)]
    rows = [(r[0], None if r[1] is None else int(r[1]), r[2], r[3]) for r in rows]
    return spark.createDataFrame(rows, schema)


@pytest.mark.parametrize("quarantine", [True, False])
def test_top_failing_values_match_pandas(frame: Any, tmp_path: Path, quarantine: bool) -> None:
    if not has_function(frame.sparkSession, "approx_top_k(id, 1, 8)"):
        pytest.skip("approx_top_k needs Spark 4.1 or later")
    history = FileMetricsRepository(tmp_path / "h")
    over_time = OverTime(history=history, hide_columns=["secret"])
    run = run_quality(frame, SUITE, run_id="r1", over_time=over_time)
    q = str(tmp_path / "q") if quarantine else None
    summary = run.write(str(tmp_path / "v"), q, str(tmp_path / "s"))
    expected = _expected(_data())
    got = {e: [(v.column, v.value, v.rows) for v in vs] for e, vs in summary.top_values.items()}
    assert got == expected  # the hidden column's rule (103) keeps none
    # the alert event carries them beside each failing rule
    event = {r["rule"]: r.get("top_values") for r in summary.to_dict()["failing_rules"]}
    assert event["100.1"] == [{"column": c, "value": v, "rows": n} for c, v, n in expected["100.1"]]
    assert event.get("103.1") is None
    # the stats, in order
    _, _, stats = read_outputs(frame.sparkSession, None, None, str(tmp_path / "s"))
    rows = stats.where("kind = 'top_value'").collect()
    stored: dict[str, list[tuple[str, str | None, int]]] = {}
    for r in rows:
        stored.setdefault(r.rule, []).append((r.name, r.message, r.failing_rows))
    assert stored == expected
    # the history, ranked
    (record,) = history.records()
    kept = sorted((m.entity, int(m.name), m.value, json.loads(m.message or "{}"))
                  for m in record.metrics if m.kind == "top")  # fmt: skip
    assert [(e, n, int(v), d["column"], d["value"]) for e, n, v, d in kept] == [
        (e, i, rows, c, v) for e in sorted(expected) for i, (c, v, rows) in
        enumerate(expected[e], 1)
    ]  # fmt: skip
    assert "secret" not in json.dumps([m.message for m in record.metrics if m.kind == "top"])


def test_a_misspelt_hidden_column_keeps_no_value(frame: Any, tmp_path: Path) -> None:
    over_time = OverTime(hide_columns=["secrets"])  # not a column: nothing may leak
    summary = run_quality(frame, SUITE, run_id="r2", over_time=over_time).write(
        str(tmp_path / "v"), str(tmp_path / "q"), str(tmp_path / "s")
    )
    assert summary.top_values == {}


def test_the_site_shows_and_charts_them(frame: Any, tmp_path: Path) -> None:
    if not has_function(frame.sparkSession, "approx_top_k(id, 1, 8)"):
        pytest.skip("approx_top_k needs Spark 4.1 or later")
    from quality_py.cli import main

    history = FileMetricsRepository(tmp_path / "h")
    for n, part in enumerate((frame.where("id < 1500"), frame.where("id >= 1500"))):
        run_quality(part, SUITE, run_id=f"r{n}", over_time=OverTime(history=history)).write(
            str(tmp_path / "v"), str(tmp_path / "q"), str(tmp_path / "s")
        )
    site = tmp_path / "site"
    assert main(["report", "--history", str(tmp_path / "h"), "--site", str(site)]) == 0
    runs = [p.read_text("utf-8") for p in (site / "runs").glob("*.html")]
    assert all('class="top-values"' in page for page in runs) and len(runs) == 2
    rule = next(p.read_text("utf-8") for p in site.rglob("*.html") if "Rule <code" in
                p.read_text("utf-8") and "positive" in p.read_text("utf-8"))  # fmt: skip
    assert "Top failing values" in rule and 'data-metric="top.amount=' in rule
    one_page = tmp_path / "report.html"
    assert main(["report", "--history", str(tmp_path / "h"), "--out", str(one_page)]) == 0
    assert 'class="top-values"' in one_page.read_text("utf-8")


def test_the_telling_columns_are_counted(spark: Any, tmp_path: Path) -> None:
    """A key rule's top values are its keys (not the key's first column), a lookup's the
    column it tests, and ``report_columns`` overrides; counts from pandas."""
    if not has_function(spark, "approx_top_k(id, 1, 8)"):
        pytest.skip("approx_top_k needs Spark 4.1 or later")
    rows = [(i, 2013, f"T{i % 7 if i % 3 else 0}", i % 4, f"c{i % 5}") for i in range(600)]
    data = pd.DataFrame(rows, columns=["id", "year", "tail", "day", "code"])
    frame = spark.createDataFrame(pd.DataFrame(rows, columns=data.columns))
    spark.createDataFrame([("c1",), ("c2",)], "code string").createOrReplaceTempView("codes")
    suite = RuleSuite(Id(8, 1), [RuleSet(Id(1, 1), [
        Rule(Id(1, 1), "count(*) OVER (PARTITION BY year, tail, day) <= 20", name="per_day"),
        Rule(Id(2, 1), "in_reference('codes', 'code', code)", name="known_code"),
        Rule(Id(3, 1), "year = 2013 AND day < 3", name="early", report_columns=["day", "tail"]),
    ])]).with_policy(RulePolicy().with_views("codes"))  # fmt: skip
    summary = run_quality(frame, suite, run_id="t1").write(str(tmp_path / "v"))
    got = {e: [(v.column, v.value, v.rows) for v in vs] for e, vs in summary.top_values.items()}

    def top(mask: Any, columns: list[str]) -> list[tuple[str, str, int]]:
        keys = data.loc[mask, columns].astype(str).agg(", ".join, axis=1).value_counts()
        ranked = sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        return [(", ".join(columns), k, int(n)) for k, n in ranked]

    group = data.groupby(["year", "tail", "day"])["id"].transform("count")
    assert got["1.1"] == top(group > 20, ["year", "tail", "day"])
    assert got["2.1"] == top(~data["code"].isin(["c1", "c2"]), ["code"])
    assert got["3.1"] == top(~(data["day"] < 3), ["day", "tail"])
    assert all(c != "year" for c, _, _ in got["1.1"])  # never year = 2013 alone
