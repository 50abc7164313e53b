"""The report site in a real headless Chromium: every page kind renders with its script run and
nothing on the console, the numbers a browser shows equal the history's formulas, filters and
sorting work (driven through the address's fragment, as a shared link would), and a history of
1,000 rules x 365 runs generates and renders."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from quality_py.report import write_site
from tests.browser import Elements, console_checked_dom, screenshot
from tests.site_history import failed, history

pytestmark = pytest.mark.browser

RULES, RUNS = 12, 6
LAST = RUNS - 1


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_site(
        history(RULES, RUNS), tmp_path_factory.mktemp("site") / "site", dataset_tags=["table"]
    ).parent


def _page(site: Path, folder: str, contains: str) -> Path:
    (found,) = [p for p in (site / folder).iterdir() if contains in p.name]
    return found


def _ready(dom: Elements) -> None:
    (body,) = dom.find("body")
    assert body["attrs"].get("data-ready") == "1", "the page's script did not finish"


@pytest.mark.parametrize(
    ("folder", "contains"),
    [
        ("", "index"),
        ("datasets", "orders"),
        ("runs", ""),
        ("rules", ".103.html"),
        ("checks", "_comp"),
    ],
)
def test_every_page_kind_renders_without_console_output(
    site: Path, folder: str, contains: str
) -> None:
    page = site / "index.html" if not folder else sorted((site / folder).iterdir())[0]
    if folder and contains:
        page = _page(site, folder, contains)
    _ready(Elements(console_checked_dom(page)))


def test_the_browser_shows_the_history_numbers(site: Path) -> None:
    dom = Elements(console_checked_dom(_page(site, "datasets", "orders")))
    shown = [float(c["text"]) for c in dom.find("td", data_count="failing")]
    assert shown == [failed(k, LAST, LAST) for k in range(RULES)]


def _visible_rules(dom: Elements) -> list[str]:
    return [
        r["attrs"]["data-rule"]
        for r in dom.find("tr")
        if "data-rule" in r["attrs"] and "hidden" not in r["attrs"]
    ]


def test_filters_and_sorting_work_in_the_browser(site: Path) -> None:
    page = _page(site, "datasets", "orders")
    failing = [f"{100 + k}.1" for k in range(RULES) if failed(k, LAST, LAST)]
    dom = Elements(console_checked_dom(page, "#status=failing"))
    assert _visible_rules(dom) == failing
    (count,) = [e for e in dom.find("span") if e["attrs"].get("data-count-for") == "rules"]
    assert count["text"] == str(len(failing))
    dom = Elements(console_checked_dom(page, "#q=rule%2011%20holds"))
    assert _visible_rules(dom) == ["111.1"]
    # sorted by the failed column (the fifth), largest first
    dom = Elements(console_checked_dom(page, "#sort=4d"))
    by_failed = sorted(range(RULES), key=lambda k: -failed(k, LAST, LAST))
    assert _visible_rules(dom)[0] == f"{100 + by_failed[0]}.1" == "103.1"
    counts = [float(c["text"]) for c in dom.find("td", data_count="failing")]
    assert counts == sorted(counts, reverse=True)


def test_a_year_of_a_thousand_rules(tmp_path: Path) -> None:
    """1,000 rules x 365 runs: generated, and its largest pages render (times are printed;
    benchmarks/bench_report.py measures them as medians)."""
    records = history(1000, 365)
    started = time.perf_counter()
    index = write_site(records, tmp_path / "site", dataset_tags=["table"])
    generated = time.perf_counter() - started
    site = index.parent
    biggest = max((p for p in site.rglob("*.html")), key=lambda p: p.stat().st_size)
    for page in (index, biggest, _page(site, "rules", ".103.html")):
        started = time.perf_counter()
        _ready(Elements(console_checked_dom(page)))
        print(f"{page.name}: {page.stat().st_size // 1000} KB, rendered in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    print(f"generated in {generated:.1f} s")
    dom = Elements(console_checked_dom(_page(site, "datasets", "orders"), "#status=failing"))
    assert len(_visible_rules(dom)) == sum(1 for k in range(1000) if failed(k, 364, 364))


def test_screenshots_of_each_page_kind(site: Path) -> None:
    for name, page in [
        ("site-overview", site / "index.html"),
        ("site-dataset", _page(site, "datasets", "orders")),
        ("site-rule", _page(site, "rules", ".103.html")),
        ("site-check", _page(site, "checks", "_comp")),
    ]:
        assert screenshot(page, name, height=1200).stat().st_size > 20_000
