"""The command-line commands of quality over time: ``profile`` and ``report``.

``profile --input DATA [--where SQL] [--suggest out.yaml] [--evaluate] [--history H]`` profiles
the data in at most three passes, writes the suggested ruleset, optionally evaluates the
suggestions on a held-out split, and keeps the profile in the history (for the report).

``report --history H --out report.html`` writes the self-contained HTML report of the runs the
history holds.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from quality_py.cli.common import job_of, keys, progress
from quality_py.gate.locations import local_path
from quality_py.history import Metric, RunRecord, open_repository
from quality_py.profile import evaluate, profile, suggest, suggested_ruleset
from quality_py.profile.profiler import DatasetProfile
from quality_py.progress import watching
from quality_py.report import write_report, write_site


def profile_record(
    prof: DatasetProfile, run_id: str, tags: dict[str, str], suite: str | None
) -> RunRecord:
    """A run record (source ``profile``) of a dataset profile: one metric per statistic, and
    the value counts of low-cardinality columns (``value:<v>``)."""
    metrics = [Metric("profile", "*", "rows", float(prof.rows))]
    for c in prof.columns:
        stats = {
            "completeness": c.completeness,
            "approx_distinct": c.approx_distinct,
            "minimum": c.minimum,
            "maximum": c.maximum,
            "mean": c.mean,
            "stddev": c.stddev,
        }
        for name, value in stats.items():
            if value is not None:
                metrics.append(Metric("profile", c.name, name, float(value), group=c.spark_type))
        if c.inferred_type:
            metrics.append(Metric("profile", c.name, "type", None, c.inferred_type))
        for seen, count in (c.histogram or {}).items():
            metrics.append(Metric("profile", c.name, f"value:{seen}", float(count)))
    now = datetime.now(timezone.utc)
    return RunRecord(run_id, now, "profile", suite, "success", tags, tuple(metrics))


def profile_command(args: argparse.Namespace) -> int:
    """``profile``: profile the input, suggest checks, keep the profile."""
    prepared = job_of(args).prepare(compile=False)
    spark, df = prepared.spark, prepared.frame
    assert spark is not None and df is not None
    started = time.perf_counter()
    with watching(spark, "profiling (at most three passes over the data)"):
        prof = profile(df, max_categories=args.max_categories)
    progress(
        f"profiled {prof.rows} rows in {prof.passes} passes, {time.perf_counter() - started:.1f} s"
    )
    for c in prof.columns:
        share = "-" if c.completeness is None else f"{c.completeness:.4f}"
        extra = c.inferred_type or (
            f"{c.minimum:g}..{c.maximum:g}" if c.minimum is not None else ""
        )
        print(
            f"  {c.name:<16} {c.spark_type:<10} complete {share}  "
            f"~{c.approx_distinct} distinct  {extra}"
        )
    suggestions = suggest(prof)
    if args.suggest:
        source = args.input + (f" where {args.where}" if args.where else "")
        text = suggested_ruleset(prof, suggestions, source=source)
        Path(args.suggest).parent.mkdir(parents=True, exist_ok=True)
        Path(args.suggest).write_text(text, encoding="utf-8")
        print(f"wrote {len(suggestions)} suggestions to {args.suggest}")
    if args.evaluate:
        progress("evaluating the suggestions on a held-out 30% of the rows")
        result = evaluate(df)
        held = sum(1 for _, _, ok in result.outcomes if ok)
        print(
            f"suggestions learned on {result.train_rows} rows held on the other "
            f"{result.test_rows}: {held} of {len(result.outcomes)}"
        )
        for constraint, _, ok in result.outcomes:
            if not ok:
                print(f"  did not hold: {constraint}")
    if args.history:
        repo = open_repository(args.history, spark)
        run_id = args.run_id or uuid.uuid4().hex
        repo.save(profile_record(prof, run_id, dict(prepared.job.tags), args.suite))
        print(f"kept the profile in {args.history}")
    return 0


def report_command(args: argparse.Namespace) -> int:
    """``report``: the HTML report of a history."""
    local = local_path(args.history)
    if local is not None and not local.is_dir():
        print(f"error: no history at {args.history}: the folder does not exist", file=sys.stderr)
        return 2
    if not args.out and not args.site:
        print("error: report needs --site FOLDER or --out FILE.html (or both)", file=sys.stderr)
        return 2
    prepared = job_of(args, ruleset=args.rules if args.site else None).prepare(compile=False)
    repo = open_repository(args.history, prepared.spark)
    records = repo.records(since=args.since, until=args.until)
    if not records:
        print(f"error: no runs in {args.history} (in the given time range)", file=sys.stderr)
        return 1
    if args.out:
        write_report(records, args.out, title=args.title)
        print(f"wrote {args.out} ({len(records)} runs)")
    if args.site:
        suite = prepared.ruleset.suite if prepared.ruleset is not None else None
        index = write_site(
            records, args.site, title=args.title, suite=suite, dataset_tags=keys(args.dataset_tag)
        )
        print(f"wrote the site {index} ({len(records)} runs)")
    return 0
