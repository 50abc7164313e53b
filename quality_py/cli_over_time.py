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
from typing import Any


def _progress(message: str) -> None:
    from quality_py.progress import step

    step(message)


def profile_record(prof: Any, run_id: str, tags: dict[str, str], suite: str | None) -> Any:
    """A run record (source ``profile``) of a dataset profile: one metric per statistic, and
    the value counts of low-cardinality columns (``value:<v>``)."""
    from quality_py.history import Metric, RunRecord

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
        for value, count in (c.histogram or {}).items():
            metrics.append(Metric("profile", c.name, f"value:{value}", float(count)))
    now = datetime.now(timezone.utc)
    return RunRecord(run_id, now, "profile", suite, "success", tags, tuple(metrics))


def profile_command(args: argparse.Namespace) -> int:
    """``profile``: profile the input, suggest checks, keep the profile."""
    from quality_py.cli import _read_input, _session, _tags
    from quality_py.profile import evaluate, profile, suggest, suggested_ruleset

    spark = _session(args.master, args.remote)
    df = _read_input(spark, args.input, args.format)
    if args.where:
        df = df.where(args.where)
    from quality_py.progress import watching

    started = time.perf_counter()
    with watching(spark, "profiling (at most three passes over the data)"):
        prof = profile(df, max_categories=args.max_categories)
    _progress(
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
        _progress("evaluating the suggestions on a held-out 30% of the rows")
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
        from quality_py.history import open_repository

        repo = open_repository(args.history, spark)
        repo.save(
            profile_record(prof, args.run_id or uuid.uuid4().hex, _tags(args.tag), args.suite)
        )
        print(f"kept the profile in {args.history}")
    return 0


def report_command(args: argparse.Namespace) -> int:
    """``report``: the HTML report of a history."""
    from quality_py.history import open_repository
    from quality_py.report import write_report

    spark = None
    if args.history.startswith("table:"):
        from quality_py.cli import _session

        spark = _session(args.master, args.remote)
    if spark is None and "://" not in args.history and not Path(args.history).is_dir():
        print(f"error: no history at {args.history}: the folder does not exist", file=sys.stderr)
        return 2
    repo = open_repository(args.history, spark)
    records = repo.records(since=args.since, until=args.until)
    if not records:
        print(f"error: no runs in {args.history} (in the given time range)", file=sys.stderr)
        return 1
    write_report(records, args.out, title=args.title)
    print(f"wrote {args.out} ({len(records)} runs)")
    return 0


def add_parsers(sub: Any) -> None:
    """The ``profile`` and ``report`` sub-commands."""
    from quality_py.cli import FORMATS

    p = sub.add_parser("profile", help="profile data, suggest checks (YAML), keep the profile")
    p.add_argument("--input", required=True, help="parquet/CSV path, or sample:flights")
    p.add_argument("--format", choices=FORMATS, help="input format (default: by suffix)")
    p.add_argument("--where", help="profile only the rows matching this SQL condition")
    p.add_argument("--suggest", help="write the suggested ruleset (YAML) here")
    p.add_argument("--evaluate", action="store_true", help="test suggestions on held-out rows")
    p.add_argument("--max-categories", type=int, default=120, help="value counts up to N values")
    p.add_argument("--history", help="keep the profile in this history (path or table:NAME)")
    p.add_argument("--tag", action="append", help="tag the kept profile KEY=VALUE")
    p.add_argument("--suite", help="the suite the profile belongs with (e.g. 1.1)")
    p.add_argument("--run-id", help="the kept profile's id")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--remote", help="Spark Connect URL instead of a local session")
    p.set_defaults(func=profile_command)
    r = sub.add_parser("report", help="write the HTML report of a metrics history")
    r.add_argument("--history", required=True, help="the history (path or table:NAME)")
    r.add_argument("--out", required=True, help="the HTML file to write")
    r.add_argument("--since", help="only runs from this time (ISO date or time)")
    r.add_argument("--until", help="only runs before this time")
    r.add_argument("--title", default="Data quality report")
    r.add_argument("--master", default="local[2]")
    r.add_argument("--remote", help="Spark Connect URL instead of a local session")
    r.set_defaults(func=report_command)
