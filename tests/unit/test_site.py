"""The report site from a made-up history (tests/site_history.py): every page kind, numbers on
the pages equal to the formulas the history was made from, every link resolving to a page of
the site, nothing fetched from a network, text escaped, the folder replaced whole."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, LambdaFunction, Rule, RuleSet, RuleSuite
from quality_py.history import Metric, RunRecord
from quality_py.report import render_site, write_site
from tests.browser import Elements
from tests.site_history import T0, failed, history, input_rows

RULES, RUNS = 12, 6
LAST = RUNS - 1


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return render_site(history(RULES, RUNS), title="Orders", dataset_tags=["table"])


def _having(dom: Elements, tag: str, attr: str) -> list[dict[str, Any]]:
    """The ``tag`` elements that carry attribute ``attr`` (with or without a value)."""
    return [e for e in dom.find(tag) if attr in e["attrs"]]


def _one(pages: dict[str, str], prefix: str, contains: str = "") -> str:
    found = [p for p in pages if p.startswith(prefix) and contains in p]
    assert len(found) == 1, found
    return found[0]


def test_every_page_kind_is_there(pages: dict[str, str]) -> None:
    kinds = sorted({p.split("/")[0] for p in pages})
    assert kinds == ["checks", "datasets", "index.html", "rules", "runs"]
    assert sum(p.startswith("runs/") for p in pages) == 2 * RUNS  # quality runs, verifications
    assert sum(p.startswith("rules/") for p in pages) == RULES
    assert sum(p.startswith("datasets/") for p in pages) == 2


def test_every_link_resolves_and_nothing_is_fetched(pages: dict[str, str]) -> None:
    for path, text in pages.items():
        assert not re.search(r"(src|href)=\"?(https?:|//)", text), path
        for href in re.findall(r'href="([^"#]+)', text):
            target = (Path("/site") / path).parent / href
            resolved = str(target.resolve().relative_to("/site"))
            assert resolved in pages, f"{path} links to {href}"


def test_the_overview_says_status_pass_rate_anomalies_and_changes(pages: dict[str, str]) -> None:
    dom = Elements(pages["index.html"])
    (orders,) = dom.find("section", data_dataset="1 (table=orders)")
    assert orders
    # the last run failed (site_history: an error anomaly): it published nothing, so the
    # dataset's pass rate is the run before's, and the page says so
    shown = LAST - 1
    rows = input_rows(shown)
    quarantined = max([failed(k, shown, LAST) for k in range(RULES)] + [0])  # overlapping rows
    (rate,) = dom.find("div", data_pass_rate=repr((rows - quarantined) / rows))
    assert rate["text"] == f"{100 * (rows - quarantined) / rows:.2f} %"
    (note,) = _having(dom, "p", "data-not-published")
    assert "nothing was published" in note["text"]
    assert "day-004</a>, the latest published" in pages["index.html"]
    assert _having(dom, "div", "data-open-anomalies")[0]["text"] == "1"
    changes = [e["attrs"]["data-change"] for e in dom.find("li")]
    # rule 3 (entity 103) fails on the last day only; the suite went 1.1 -> 1.2
    assert changes.count("rule-failing") == 1 and "version" in changes
    newly = [e for e in dom.find("a") if e["text"] == "103"]
    assert newly


def test_the_dataset_page_lists_every_rule_with_its_latest_numbers(pages: dict[str, str]) -> None:
    dom = Elements(pages[_one(pages, "datasets/", "orders")])
    for k in range(RULES):
        (row,) = dom.find("tr", data_rule=f"{100 + k}.1")
        n = failed(k, LAST, LAST)
        assert row["attrs"]["data-status"] == ("failing" if n else "clean")
    cells = dom.find("td", data_count="failing")
    assert [float(c["text"]) for c in cells] == [failed(k, LAST, LAST) for k in range(RULES)]


def test_a_run_page_has_counts_that_add_up_and_every_rule(pages: dict[str, str]) -> None:
    page = next(t for p, t in pages.items() if p.startswith("runs/") and "day-002" in t)
    dom = Elements(page)
    day, rows = 2, input_rows(2)
    dropped = max([failed(k, day, LAST) for k in range(1, RULES, 2)] + [0])
    got = {e["attrs"]["data-metric"]: float(e["text"]) for e in dom.find("td") if
           "data-metric" in e["attrs"]}  # fmt: skip
    assert got["input_rows"] == rows and got["dropped_rows"] == dropped
    assert got["valid_rows"] == rows - dropped
    assert dom.find("p", data_adds_up="true")
    shares = {
        e["attrs"].get("data-sort"): e["text"] for e in dom.find("td", data_count="failed_share")
    }
    assert len(dom.find("tr")) >= RULES
    assert repr(failed(5, day, LAST) / rows) in shares  # rule 5 fails a few rows every day
    assert dom.find("span", data_timing="write_seconds")[0]["text"] == "1.5"
    assert dom.find("code", data_output="valid")[0]["text"] == "main.orders_valid"


def test_a_rule_page_has_its_definition_chart_band_and_failing_rows() -> None:
    suite = RuleSuite(
        Id(1, 2),
        [
            RuleSet(
                Id(10, 1),
                [
                    Rule(
                        Id(103, 1),
                        "positive(amount)",
                        action_if_failed="drop",
                        description="amounts are positive",
                    )
                ],
            )
        ],
        lambdas=[LambdaFunction("positive", "x -> x > 0", Id(9, 1))],
    )
    pages = render_site(
        history(RULES, RUNS),
        suite=suite,
        columns=["id", "amount", "ssn_hash"],
        dataset_tags=["table"],
    )
    dom = Elements(pages[_one(pages, "rules/", ".103.html")])
    assert _having(dom, "pre", "data-rule-text")[0]["text"] == "positive(amount)"
    assert dom.find("pre", data_lambda="positive")[0]["text"] == "x -> x > 0"
    assert _having(dom, "span", "data-action")[0]["text"] == "drop"
    # the chart: one point per run, the last one anomalous, the recorded band drawn
    points = dom.find("circle")
    assert [p["attrs"]["data-run"] for p in points] == [f"day-{d:03d}" for d in range(RUNS)]
    assert [p["attrs"]["data-run"] for p in points if "anomaly" in p["attrs"]["class"]] == [
        f"day-{LAST:03d}"
    ]
    assert dom.find("polygon", **{"class": "band"})
    # the sample row: its key, the value of the column the rule reads (not of the others)
    heads = [e["text"] for e in dom.find("th")]
    assert "amount" in heads and "ssn_hash" not in heads
    assert len(dom.find("tr", **{"class": "sample"})) == 1
    cells = [e["text"] for e in dom.find("td")]
    assert "7" in cells and "-5" in cells and "ab" not in cells


def test_a_check_page_draws_its_threshold(pages: dict[str, str]) -> None:
    dom = Elements(pages[_one(pages, "checks/", "_completeness")])
    (line,) = dom.find("line", **{"class": "threshold"})
    assert float(line["attrs"]["data-threshold"]) == 0.9
    values = [float(c["attrs"]["data-value"]) for c in dom.find("circle")]
    assert values == [0.95, 0.96, 0.8, 0.95, 0.96, 0.97]  # completeness(day), by hand
    failed_runs = [c["attrs"]["data-run"] for c in dom.find("circle")
                   if "anomaly" in c["attrs"]["class"]]  # fmt: skip
    assert failed_runs == ["v-002"]


def test_a_bound_only_a_failure_message_states_is_drawn() -> None:
    """A constraint named without its bound (``approx count distinct(tailnum)``) has it drawn
    from the message of a run it failed (Deequ's words: ``fails between 2500 and 4500``)."""
    from datetime import timedelta

    def run(i: int, value: float, passed: bool) -> RunRecord:
        message = f"approx count distinct(tailnum): metric {value:g} fails between 2500 and 4500"
        metric = Metric("check", "year", "approx count distinct(tailnum)", value,
                        "passed" if passed else "failed", None if passed else message)  # fmt: skip
        return RunRecord(f"v{i}", T0 + timedelta(days=i), "verify", "1.1", "success", {},
                         (metric,))  # fmt: skip

    pages = render_site([run(0, 3000, True), run(1, 1864, False), run(2, 3100, True)])
    dom = Elements(pages[_one(pages, "checks/")])  # the only check
    lines = dom.find("line", **{"class": "threshold"})
    assert sorted(float(x["attrs"]["data-threshold"]) for x in lines) == [2500.0, 4500.0]


def test_text_is_escaped_everywhere() -> None:
    evil = RunRecord("<b>x</b>", T0, "quality_run", "1.1", "success", {"t": "<script>"},
                     (Metric("rule", "7.1", "failed", 1.0, group="<i>"),))  # fmt: skip
    pages = render_site([evil])
    for text in pages.values():
        assert "<b>x</b>" not in text and "<i>" not in text
        assert "<script>" not in text.replace("<script>(function", "")  # only our own script
    assert any("&lt;b&gt;x&lt;/b&gt;" in t for t in pages.values())


def test_the_folder_is_replaced_whole(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site(history(RULES, RUNS), site)
    first = {p.relative_to(site) for p in site.rglob("*.html")}
    write_site(history(RULES, 2), site)  # fewer runs: old run pages must not linger
    second = {p.relative_to(site) for p in site.rglob("*.html")}
    assert len(second) < len(first)
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging folder left
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.csv").write_text("x")
    with pytest.raises(FileExistsError, match="not a report site"):
        write_site(history(RULES, 2), tmp_path / "other")
    assert (tmp_path / "other" / "data.csv").exists()


def test_an_edited_rule_is_a_change_and_keeps_its_page() -> None:
    """Rule 7 goes from version 1 to 2 between two runs: the overview says so, and its one page
    charts both runs."""
    runs = [
        RunRecord(
            f"r{v}",
            T0.replace(day=v),
            "quality_run",
            f"1.{v}",
            "success",
            {},
            (
                Metric("rule", f"7.{v}", "failed", float(v)),
                Metric("rule", f"7.{v}", "failed_share", v / 10),
            ),
        )
        for v in (1, 2)
    ]
    pages = render_site(runs)
    dom = Elements(pages["index.html"])
    changes = {e["attrs"]["data-change"]: e["text"] for e in dom.find("li")}
    assert "rule-version" in changes and "version" in changes
    (rule,) = [p for p in pages if p.startswith("rules/")]
    values = [float(c["attrs"]["data-value"]) for c in Elements(pages[rule]).find("circle")]
    assert values == [0.1, 0.2]


def test_a_failed_run_says_it_published_nothing(pages: dict[str, str]) -> None:
    failed_page = next(t for p, t in pages.items() if p.startswith("runs/") and "day-005" in t)
    good_page = next(t for p, t in pages.items() if p.startswith("runs/") and "day-004" in p)
    (banner,) = _having(Elements(failed_page), "p", "data-not-published")
    assert "not published" in banner["text"] and "would have written" in banner["text"]
    assert not _having(Elements(good_page), "p", "data-not-published")
    assert "every input row is valid or dropped" in good_page  # words, not "rows in = ..."
