"""The report site: static, self-contained pages generated from a metrics history (and,
optionally, the ruleset), that open from disk or object storage and need no server or network.

Layout of the folder it writes::

    index.html                    every dataset: latest status, pass rate, anomalies, changes
    datasets/<dataset>.html       its rules and checks (sortable, filterable) and its runs
    runs/<run>.html               one run: counts, rules, checks, anomalies, sample rows
    rules/<dataset>-<rule>.html   one rule: definition, history chart, failing sample rows
    checks/<dataset>-<check>.html one check: definition, history chart with its bound

The folder is replaced whole: pages are written beside it and switched in at the end, so a
reader (or a sync to object storage started after the switch) never sees half a site.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from quality_py.history.records import RunRecord
from quality_py.model.rules import RuleSuite
from quality_py.report.detail_pages import check_page, definitions, rule_page
from quality_py.report.pages import dataset_page, overview, run_page
from quality_py.report.site_model import Dataset, check_key, datasets


def render_site(
    records: Sequence[RunRecord],
    title: str = "Data quality",
    suite: RuleSuite | None = None,
    columns: Sequence[str] = (),
    dataset_tags: Sequence[str] = (),
) -> dict[str, str]:
    """Every page of the site, by its path in the folder. ``suite``: the ruleset whose rule
    texts, lambdas and actions the rule pages show (for the datasets of its suite id);
    ``columns``: the input's columns, to show only the values a rule reads; ``dataset_tags``:
    the tags that tell datasets of one suite apart (``["table"]``; by default a suite's runs
    are one dataset, and tags such as a month label its runs).

    >>> from quality_py.history.records import Metric
    >>> run = RunRecord("r1", datetime(2026, 1, 2), "quality_run", "1.1", "success", {},
    ...                 (Metric("rows", "run", "input_rows", 7.0),))
    >>> sorted(p.split("/")[0] for p in render_site([run]))
    ['datasets', 'index.html', 'runs']
    """
    sets = datasets(records, dataset_tags)
    now = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    pages = {"index.html": overview(sets, title, now)}
    for ds in sets:
        known = definitions(suite, tuple(columns)) if _owns(suite, ds) else {}
        described = {k: d.description or "" for k, d in known.items()}
        pages[f"datasets/{ds.slug}.html"] = dataset_page(ds, title, described)
        for i, run in enumerate(ds.runs):
            pages[run.page] = run_page(ds, run, ds.runs[i - 1] if i else None, title)
        for key in sorted({k for r in ds.runs for k in r.rule_entities}):
            pages[ds.rule_page(key)] = rule_page(ds, key, title, known.get(key))
        for key in sorted({check_key(m) for r in ds.runs for m in r.checks()}):
            pages[ds.check_page(key)] = check_page(ds, key, title)
    return pages


def _owns(suite: RuleSuite | None, ds: Dataset) -> bool:
    return suite is not None and str(suite.id.id) == ds.suite


def write_site(
    records: Sequence[RunRecord],
    out: str | Path,
    title: str = "Data quality",
    suite: RuleSuite | None = None,
    columns: Sequence[str] = (),
    dataset_tags: Sequence[str] = (),
) -> Path:
    """Write :func:`render_site` into the folder ``out`` (replaced whole, atomically for
    readers: see the module's note) and return the path of its ``index.html``.

    >>> from quality_py.history.records import Metric
    >>> run = RunRecord("r1", datetime(2026, 1, 2), "quality_run", "1.1", "success", {},
    ...                 (Metric("rows", "run", "input_rows", 7.0),))
    >>> import tempfile
    >>> index = write_site([run], f"{tempfile.mkdtemp()}/site")
    >>> page = next((index.parent / "datasets").iterdir()).read_text()
    >>> index.name, 'data-metric="input_rows">7<' in page
    ('index.html', True)
    """
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for path, text in render_site(records, title, suite, columns, dataset_tags).items():
            file = staging / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        os.chmod(staging, 0o755)
        _switch(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target / "index.html"


def _switch(staging: Path, target: Path) -> None:
    """Put ``staging`` where ``target`` is: the old folder is moved aside first (a rename) and
    removed after, so ``target`` is always a whole site or briefly absent, never half one."""
    if target.exists() and not (target / "index.html").exists() and any(target.iterdir()):
        raise FileExistsError(
            f"{target} exists and is not a report site (no index.html): not replacing it"
        )
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
        os.rename(target, old / "site")
    os.rename(staging, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


__all__ = ["render_site", "write_site"]
