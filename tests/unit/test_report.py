"""The report's HTML from hand-made records: every section, numbers in data attributes, the
anomalous runs marked, nothing fetched from the network."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from quality_py.history import Metric, RunRecord
from quality_py.report import render_report
from tests.browser import Elements

T0 = datetime(2026, 2, 1, tzinfo=timezone.utc)


def _run(i: int, rows: float, anomalous: bool = False) -> RunRecord:
    metrics = [
        Metric("rows", "run", "input_rows", rows),
        Metric("rows", "run", "valid_rows", rows - 3),
        Metric("rule", "7.1", "failed", 3.0, group="1.1"),
        Metric("rule", "7.1", "failed_share", 3 / rows, group="1.1"),
        Metric("rule", "7.1", "action", None, "drop", "amount is positive", group="1.1"),
        Metric("rule", "7.1", "name", None, None, "positive_amount", group="1.1"),
        Metric("rule", "8.1", "failed_share", 0.0, group="1.1"),
        Metric("sample", "row 1", "keys", None, None, '{"id": 42}'),
    ]
    if anomalous:
        metrics.append(
            Metric("anomaly", "volume", "rows.run.input_rows", rows, "failed", "volume: drop",
                   group="error")
        )  # fmt: skip
    status = "failed" if anomalous else "success"
    return RunRecord(
        f"d{i}", T0 + timedelta(days=i), "quality_run", "1.1", status, {}, tuple(metrics)
    )


def test_every_section_and_its_numbers() -> None:
    verification = RunRecord(
        "v1", T0, "verify", "orders", "warning", {},
        (Metric("check", "basic", "size >= 10", 12.0, "passed", "ok", "error"),
         Metric("metric", "Size()", "value", 12.0)),
    )  # fmt: skip
    profiled = RunRecord(
        "p1", T0, "profile", "1.1", "success", {},
        (Metric("profile", "*", "rows", 12.0),
         Metric("profile", "origin", "completeness", 0.75, group="string"),
         Metric("profile", "origin", "value:EWR", 6.0), Metric("profile", "origin", "value:JFK", 3.0)),
    )  # fmt: skip
    runs = [_run(0, 100), _run(1, 110), _run(2, 20, anomalous=True)]
    page = render_report([*runs, verification, profiled])
    dom = Elements(page)
    (latest,) = dom.find("section", id="latest-run")
    assert latest["attrs"]["data-run-id"] == "d2"
    assert dom.find("td", data_metric="input_rows")[0]["text"] == "20"
    assert [e["text"] for e in dom.find("li")] == ["volume: drop"]
    assert [e["text"] for e in dom.find("tr", **{"class": "sample"})] == [""]
    marked = [
        c["attrs"]["data-run"] for c in dom.find("circle") if "anomaly" in c["attrs"]["class"]
    ]
    assert marked == ["d2"]  # only on the input rows trend, only the anomalous run
    assert dom.find("svg", data_metric="rule.7.1.failed_share")
    assert not dom.find("svg", data_metric="rule.8.1.failed_share")  # never failed: a line
    assert "8.1" in dom.find("p", id="clean-rules")[0]["text"]
    assert dom.find("section", id="latest-verification") and dom.find(
        "tr", data_constraint="size >= 10"
    )
    assert [b["attrs"]["data-value"] for b in dom.find("rect")] == ["EWR", "JFK"]
    assert dom.find("td", data_stat="completeness")[0]["text"] == "75.00 %"  # 0.75
    # the site's words and numbers: the rule's name beside its id, shares as percentages
    assert dom.find("tr", data_rule="7.1") and "data-name>positive_amount</span>" in page
    assert dom.find("td", data_count="failed_share")[0]["text"] == "15.00 %"  # 3 of 20
    assert dom.find("td", data_share="pass_rate")  # the counts table, with its rates
    # the latest run failed: not published, and the latest published run named
    assert "not published: this run changed none of its outputs" in page
    assert "the latest published run is <code data-published>d1</code>" in page
    assert dom.find("td", data_status="failed")[0]["text"] == "failed, not published"
    # every time chart's value axis starts at zero
    charts = re.findall(r'<svg class="chart".*?</svg>', page)
    assert charts and all('text-anchor="end">0</text>' in c for c in charts)
    # self-contained: no URL is loaded
    assert not re.search(r"(src|href)=\"?https?:", page) and "<script" not in page


def test_text_is_escaped() -> None:
    evil = RunRecord("<b>x</b>", T0, "quality_run", "1.1", "success", {"t": "<script>"}, ())
    page = render_report([evil])
    assert "<b>x</b>" not in page and "<script>" not in page and "&lt;script&gt;" in page


def test_report_command_names_a_missing_or_empty_history(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from quality_py.cli import main

    page = tmp_path / "r.html"
    assert main(["report", "--history", str(tmp_path / "nope"), "--out", str(page)]) == 2
    assert "no history at" in capsys.readouterr().err and not page.exists()
    (tmp_path / "empty").mkdir()
    assert main(["report", "--history", str(tmp_path / "empty"), "--out", str(page)]) == 1
    assert "no runs in" in capsys.readouterr().err and not page.exists()


def test_a_check_the_history_could_not_judge_is_said_apart_and_version_changes_show() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    waiting = Metric(
        "anomaly", "volume", "rows.run.input_rows", 5.0, "not_judged",
        "volume: not judged: RelativeRateOfChange needs 1 earlier run(s) and the history has 0",
        group="warning",
    )  # fmt: skip
    first = RunRecord("r1", t0, "quality_run", "7.1", "success", {}, (waiting,))
    second = RunRecord("r2", t0 + timedelta(days=1), "quality_run", "7.2", "success", {}, ())
    html = render_report([first])
    assert "not judged yet: volume: not judged" in html and "anomalous" not in html.lower()
    both = render_report([first, second])
    assert 'data-version-change="7.1"' in both and "7.2 (was 7.1)" in both
