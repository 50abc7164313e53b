"""``run``: add the DataQuality column and write it, or a quality run with actions (valid rows,
quarantine with reasons, stats, history, anomaly and SQL checks, notifications)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from typing import Any

from quality_py.actions import QualityRunFailed
from quality_py.cli.common import (
    keys,
    load_reference,
    notifiers,
    read_input,
    run_inputs,
    tags,
    warn_if_unhardened,
)
from quality_py.dataset.checks import format_verification
from quality_py.dataset.observe import observe_checks
from quality_py.history import MetricsRepository, open_repository
from quality_py.io.ruleset_file import RulesetFile
from quality_py.io.views import filter_sql
from quality_py.model.types import SparkSession
from quality_py.progress import watching
from quality_py.runners.data_quality import add_data_quality
from quality_py.runners.summary import format_summary, layout_of, stats_from_row, summary_columns


def _prepared(args: argparse.Namespace) -> tuple[RulesetFile, Any, SparkSession, Any, float]:
    """The ruleset (read once, compiled before Spark starts when it is YAML), its compilation,
    the session, the input (``--where`` applied through the rule policy) and the start time."""
    ruleset, compiled, spark = run_inputs(args)
    warn_if_unhardened(spark)
    started = time.perf_counter()
    load_reference(spark, args)
    df = read_input(spark, args.input, args.format)
    if args.where:  # through the rule policy, as every SQL text we accept
        df = df.where(filter_sql(args.where, what="--where", policy=ruleset.suite.policy))
    return ruleset, compiled, spark, df, started


def quality_run(args: argparse.Namespace) -> int:
    """``run`` with ``--valid`` / ``--quarantine`` / ``--stats``: a quality run with actions."""
    ruleset, compiled, spark, df, started = _prepared(args)
    suite = ruleset.suite
    history, ruleset = _history(args, spark, ruleset)
    try:
        run = ruleset.run(
            df,
            args.run_id,
            history=history,
            tags=tags(args.tag),
            compiled=compiled,
            name=args.name,
            layout=args.layout,
            notifiers=notifiers(args),
            keys=keys(args.key),
        )
        with watching(spark, f"quality run of {args.input}: checking and writing"):
            summary = run.write(args.valid, args.quarantine, args.stats)
    except QualityRunFailed as err:
        print(err.summary.describe(), file=sys.stderr)
        if err.summary.checks is not None:
            print(format_verification(err.summary.checks), file=sys.stderr)
        print("quality run failed: nothing was written", file=sys.stderr)
        return 1
    print(f"suite {suite.id!r}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    if summary.rules is not None:
        print(format_summary(summary.rules))
    if summary.checks is not None:
        print(format_verification(summary.checks))
    print(summary.describe())
    written = [
        f"{k} -> {v}"
        for k, v in (("valid", args.valid), ("quarantine", args.quarantine), ("stats", args.stats))
        if v
    ]
    print(f"wrote {', '.join(written)} in {time.perf_counter() - started:.1f} s")
    return 0


def _history(
    args: argparse.Namespace, spark: SparkSession, ruleset: RulesetFile
) -> tuple[MetricsRepository | None, RulesetFile]:
    """The run's metrics repository (``--history``), and the ruleset without its anomaly checks
    when there is none (they are noted as not judged)."""
    if args.history:
        return open_repository(args.history, spark), ruleset
    if ruleset.anomaly_checks:
        print(
            f"note: {len(ruleset.anomaly_checks)} anomaly check(s) need a history (--history): "
            "not judged",
            file=sys.stderr,
        )
    return None, replace(ruleset, anomaly_checks=())


def run(args: argparse.Namespace) -> int:
    """The ``run`` command."""
    if args.valid or args.quarantine or args.stats or args.history:
        return quality_run(args)
    if not args.output:
        raise SystemExit("run: give --output, or --valid/--quarantine/--stats for a quality run")
    from pyspark.sql import Observation

    ruleset, compiled, _, df, started = _prepared(args)
    suite, checks = ruleset.suite, ruleset.checks
    checked = add_data_quality(df, suite, args.name, layout=args.layout, compiled=compiled)
    observation = Observation("quality_py_summary")
    observed = checked.observe(
        observation, *summary_columns(suite, args.name, layout_of(checked, args.name))
    )
    observed, finish_checks = observe_checks(observed, checks, policy=suite.policy)
    observed.write.mode("overwrite").parquet(args.output)
    stats = stats_from_row(suite, observation.get)
    verification = finish_checks() if checks else None
    elapsed = time.perf_counter() - started
    print(f"suite {suite.id!r}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    print(format_summary(stats))
    if verification is not None:
        print(format_verification(verification))
    print(f"wrote {args.output} ({args.layout} layout) in {elapsed:.1f} s")
    return 1 if verification is not None and verification.status == "error" else 0
