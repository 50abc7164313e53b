"""Command line: ``python -m quality_py run RULESET --input PATH_OR_SAMPLE --output DIR``.

``run`` reads parquet or CSV (or ``sample:flights``), adds the DataQuality column, writes the
result as parquet and prints per-rule counts gathered during that same write.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from quality_py.errors import QualityError, escape_text


def _session(master: str, remote: str | None) -> Any:
    if remote:
        from pyspark.sql import SparkSession

        return SparkSession.builder.remote(remote).getOrCreate()
    from quality_py.session import local_session

    return local_session(master)


def _read_input(spark: Any, source: str, fmt: str | None) -> Any:
    if source.startswith("sample:"):
        from quality_py.samples import load_sample

        return load_sample(spark, source.split(":", 1)[1])
    kind = fmt or ("csv" if source.lower().endswith((".csv", ".csv.gz")) else "parquet")
    if kind == "csv":
        return spark.read.option("header", True).option("inferSchema", True).csv(source)
    return spark.read.parquet(source)


def _register_views(spark: Any, views: Sequence[str], fmt: str | None) -> None:
    for item in views:
        name, _, path = item.partition("=")
        if not name or not path:
            raise SystemExit(f"--view expects NAME=PATH, got {item!r}")
        _read_input(spark, path, fmt).createOrReplaceTempView(name)


def run(args: argparse.Namespace) -> int:
    """The ``run`` command."""
    from pyspark.sql import Observation

    from quality_py.compile import compile_suite
    from quality_py.io.yaml_rulesets import load_ruleset
    from quality_py.runners.data_quality import add_data_quality
    from quality_py.summary import format_summary, stats_from_row, summary_columns

    suite = load_ruleset(args.ruleset)
    compile_suite(suite)  # syntax and lambda errors surface before a JVM starts
    spark = _session(args.master, args.remote)
    started = time.perf_counter()
    _register_views(spark, args.view or [], args.format)
    df = _read_input(spark, args.input, args.format)
    checked = add_data_quality(df, suite, args.name, layout=args.layout)
    from quality_py.summary import layout_of

    observation = Observation("quality_py_summary")
    observed = checked.observe(
        observation, *summary_columns(suite, args.name, layout_of(checked, args.name))
    )
    observed.write.mode("overwrite").parquet(args.output)
    stats = stats_from_row(suite, observation.get)
    elapsed = time.perf_counter() - started
    print(f"suite {suite.id!r}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    print(format_summary(stats))
    print(f"wrote {args.output} ({args.layout} layout) in {elapsed:.1f} s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m quality_py``."""
    parser = argparse.ArgumentParser(prog="python -m quality_py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="add the DataQuality column, write it, print per-rule counts")
    r.add_argument("ruleset", help="YAML ruleset file")
    r.add_argument("--input", required=True, help="parquet/CSV path, or sample:flights")
    r.add_argument("--output", required=True, help="output directory (parquet)")
    r.add_argument("--format", choices=["parquet", "csv"], help="input format (default: by suffix)")
    r.add_argument("--layout", choices=["map", "compact"], default="map")
    r.add_argument("--name", default="DataQuality", help="name of the result column")
    r.add_argument("--view", action="append", help="register NAME=PATH as a view for subqueries")
    r.add_argument("--master", default="local[2]")
    r.add_argument("--remote", help="Spark Connect URL instead of a local session")
    r.set_defaults(func=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except QualityError as err:
        print(f"error: {escape_text(str(err))}", file=sys.stderr)
        return 2
