"""Screenshots of each page kind of a report site, for docs/images (README, docs/over-time.md).

    bash scripts/run-sample.sh                 # writes out/flights/site from the flights history
    .venv/bin/python scripts/site_screenshots.py out/flights/site docs/images

Takes the overview, the dataset page, the broken April run, the page of rule 401 (flights to
airports the reference data lacks) and the page of the volume anomaly check, in headless
Chromium (tests/browser.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser import screenshot


def _find(folder: Path, text: str) -> Path:
    for page in sorted(folder.iterdir()):
        if text in page.read_text(encoding="utf-8"):
            return page
    raise SystemExit(f"no page in {folder} holds {text!r}")


def main(site: Path, out: Path) -> None:
    pages = {
        "site-overview": site / "index.html",
        "site-dataset": next((site / "datasets").iterdir()),
        "site-run": _find(site / "runs", "<code>2013-04</code>"),
        "site-rule": next(p for p in (site / "rules").iterdir() if "-401-" in p.name),
        "site-check": _find(site / "checks", "flights per month"),
    }
    for name, page in pages.items():
        print(screenshot(page, name, height=1100, into=out))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
