"""One run's numbers, read from every surface that shows them, mean what docs/glossary.md says
(expected values by hand)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from quality_py import read_outputs
from quality_py.cli import main
from quality_py.history import FileMetricsRepository

pytestmark = pytest.mark.wiring  # one run's numbers on every surface

RULES = """
suite: {id: 7, version: 2, name: orders}
rule_sets:
  - id: 10
    rules:
      - {id: 100, name: positive_amount, expression: "amount > 0", action_if_failed: drop}
      - {id: 101, name: known_currency, expression: "currency IN ('EUR', 'USD')"}
"""
ROWS = [(-1, "EUR"), (-1, "GBP"), (-1, "USD"), (0, "GBP"), (5, "GBP"), *[(5, "EUR")] * 5]
# by hand: amount > 0 fails 4 rows (dropped); currency fails the 3 GBP rows, one of them with
# amount 5; so 5 rows are quarantined, 4 dropped, 6 valid, 5 pass every rule
EXPECTED = {
    "input_rows": 10,
    "valid_rows": 6,
    "dropped_rows": 4,
    "quarantined_rows": 5,
    "passing_rows": 5,
    "pass_rate": 0.5,
    "valid_share": 0.6,
    "failing_rule_results": 7,
}


def test_every_surface_says_the_same_numbers(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.csv").write_text("amount,currency\n" + "".join(f"{a},{c}\n" for a, c in ROWS))
    places = {n: str(tmp_path / n) for n in ("v", "q", "s", "h")}
    args = ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.csv"),
            "--valid", places["v"], "--quarantine", places["q"], "--stats", places["s"],
            "--history", places["h"], "--run-id", "r1", "--json", str(tmp_path / "r.json")]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    # the command line
    assert "rows: 10 in, 6 valid, 5 quarantined, 4 dropped; pass rate 50.00 %" in printed
    # --json
    document = json.loads((tmp_path / "r.json").read_text())
    assert {k: document[k] for k in EXPECTED} == EXPECTED
    assert {r["rule"]: r["rows"] for r in document["failing_rules"]} == {"100.1": 4, "101.1": 3}
    # the stats
    _, _, stats = read_outputs(spark, None, None, places["s"])
    stored = {r.name: r.value for r in stats.where("kind IN ('rows', 'share', 'rules')").collect()}
    assert {k: stored[k] for k in EXPECTED} == pytest.approx(EXPECTED)
    rules = {r.rule: r.failing_rows for r in stats.where("kind = 'rule'").collect()}
    assert rules == {"100.1": 4, "101.1": 3}
    # the history
    (record,) = FileMetricsRepository(places["h"]).records()
    for key in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        assert record.value("rows", "run", key) == EXPECTED[key]
    assert record.value("rule", "100.1", "failing") == 4
    assert record.value("rule", "100.1", "failed_share") == pytest.approx(0.4)
    # the report site: the front page's cards, the run page's counts, each with its definition
    site = tmp_path / "site"
    assert main(["report", "--history", places["h"], "--site", str(site)]) == 0
    index = (site / "index.html").read_text("utf-8")
    assert 'data-pass-rate="0.5"' in index and 'data-valid-share="0.6"' in index
    assert 'title="pass rate: passing rows divided by input rows"' in index
    (page,) = [p.read_text("utf-8") for p in (site / "runs").glob("*.html")]
    cells = dict(re.findall(r'data-(?:metric|share)="([a-z_]+)"[^>]*>([^<]+)<', page))
    assert cells["pass_rate"] == "50.00 %" and cells["valid_share"] == "60.00 %"
    assert cells["passing_rows"] == "5" and cells["quarantined_rows"] == "5"
    assert 'title="valid share: valid rows divided by input rows"' in page
    # the one-page report: the same counts, shares and names, from the site's page model
    one = tmp_path / "report.html"
    assert main(["report", "--history", places["h"], "--out", str(one)]) == 0
    html = one.read_text("utf-8")
    cells = dict(re.findall(r'data-(?:metric|share)="([a-z_]+)"[^>]*>([^<]+)<', html))
    assert cells["pass_rate"] == "50.00 %" and cells["valid_share"] == "60.00 %"
    assert cells["passing_rows"] == "5" and cells["quarantined_rows"] == "5"
    shares = dict(re.findall(r'data-rule="([\d.]+)".*?data-count="failed_share">([^<]+)<', html))
    assert shares == {"100.1": "40.00 %", "101.1": "30.00 %"}  # 4 and 3 of 10 rows
    assert "data-name>positive_amount</span>" in html
    assert 'title="pass rate: passing rows divided by input rows"' in html
