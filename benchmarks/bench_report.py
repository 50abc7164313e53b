"""The report site of a year: 1,000 rules x 365 daily runs (tests/site_history.py's history).

Measured, medians of ``--runs``, with baselines from the same run:

* ``generate``: ``write_site`` of the whole history (render every page and write the folder);
  baseline ``write_bytes``: writing the same pages' bytes to as many files (what any generator
  pays), so the ratio is the cost of rendering;
* ``render``: headless Chromium loading the largest page (a dataset's 1,000 rules and 365 runs)
  until its script has run, dumping its DOM; baseline ``blank``: Chromium loading an empty page
  (the browser's own start-up).

Usage: ``python benchmarks/bench_report.py [--rules 1000] [--runs-per-history 365] [--runs 3]``
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import save

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quality_py.report import render_site, write_site  # noqa: E402
from tests.browser import dump_dom  # noqa: E402
from tests.site_history import history  # noqa: E402


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--runs-per-history", type=int, default=365)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    records = history(args.rules, args.runs_per_history)
    pages = render_site(records, dataset_tags=["table"])
    scratch = Path(tempfile.mkdtemp(prefix="qp-report-"))

    def write_bytes() -> None:
        target = scratch / "plain"
        shutil.rmtree(target, ignore_errors=True)
        for path, text in pages.items():
            file = target / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")

    site = scratch / "site"
    blank = scratch / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    cases = {
        "generate": lambda: write_site(records, site, dataset_tags=["table"]),
        "write_bytes": write_bytes,
    }
    times: dict[str, list[float]] = {k: [] for k in [*cases, "render", "blank"]}
    try:
        for _ in range(args.runs):
            for name, fn in cases.items():
                times[name].append(round(_timed(fn), 3))
            biggest = max(site.rglob("*.html"), key=lambda p: p.stat().st_size)
            times["render"].append(round(_timed(lambda p=biggest: dump_dom(p)), 3))
            times["blank"].append(round(_timed(lambda: dump_dom(blank)), 3))
        med = {k: statistics.median(v) for k, v in times.items()}
        result = {
            "rules": args.rules,
            "runs_per_history": args.runs_per_history,
            "pages": len(pages),
            "megabytes": round(sum(len(t.encode()) for t in pages.values()) / 1e6, 1),
            "largest_page_kb": round(biggest.stat().st_size / 1e3),
            "times": times,
            "medians": med,
            "generate_over_write_bytes": round(med["generate"] / med["write_bytes"], 2),
            "render_over_blank": round(med["render"] / med["blank"], 2),
        }
        print(result)
        print(save("bench_report", result))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
