"""``run``: add the DataQuality column and write it, or a quality run with actions (valid rows,
quarantine with reasons, stats, history, anomaly and SQL checks, notifications)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from quality_py.actions import QualityRunFailed, RunSummary
from quality_py.actions.outputs import write_frame
from quality_py.cli.common import (
    keys,
    load_reference,
    notifiers,
    read_input,
    run_inputs,
    session_facts,
    tags,
    warn_if_unhardened,
    write_json,
)
from quality_py.dataset.checks import ConstraintResult, format_verification
from quality_py.dataset.observe import observe_checks
from quality_py.errors import InputError
from quality_py.history import MetricsRepository, open_repository
from quality_py.io.ruleset_file import RulesetFile
from quality_py.io.views import filter_sql
from quality_py.model.types import SparkSession
from quality_py.progress import watching
from quality_py.runners.data_quality import add_data_quality
from quality_py.runners.summary import (
    RuleStats,
    format_summary,
    layout_of,
    stats_from_row,
    summary_columns,
)
from quality_py.version import __version__


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
    outputs = {"valid": args.valid, "quarantine": args.quarantine, "stats": args.stats}
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
            hide_columns=keys(args.hide_column),
        )
        with watching(spark, f"quality run of {args.input}: checking and writing"):
            summary = run.write(
                args.valid,
                args.quarantine,
                args.stats,
                format=args.output_format or "auto",
                publish=args.publish,
                quarantine_detail=args.quarantine_detail,
            )
    except QualityRunFailed as err:
        print(err.summary.describe(), file=sys.stderr)
        if err.summary.checks is not None:
            print(format_verification(err.summary.checks), file=sys.stderr)
        print("quality run failed: nothing was written", file=sys.stderr)
        _result(args, err.summary, {}, started, 1, session_facts(spark))
        return 1
    print(f"suite {suite.id!r}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    if summary.rules is not None:
        print(format_summary(summary.rules))
    if summary.checks is not None:
        print(format_verification(summary.checks))
    print(summary.describe())
    written = {k: v for k, v in outputs.items() if v}
    elapsed = time.perf_counter() - started
    print(f"wrote {', '.join(f'{k} -> {v}' for k, v in written.items())} in {elapsed:.1f} s")
    code = 3 if args.strict and summary.failed_checks else 0
    _result(args, summary, written, started, code, session_facts(spark))
    return code


def _result(
    args: argparse.Namespace,
    summary: RunSummary,
    written: dict[str, str],
    started: float,
    code: int,
    spark_facts: dict[str, Any],
) -> None:
    """The run's whole result for an orchestrator (``--json FILE``)."""
    if not args.json:
        return
    document = {
        "command": "run",
        "status": str(summary.status),
        "exit_code": code,
        "input": args.input,
        "outputs": written,
        "elapsed_seconds": round(time.perf_counter() - started, 3),
        **summary.to_dict(),
        "rules": [_rule_result(r) for r in (summary.rules.rules if summary.rules else ())],
        "checks": _check_results(summary.checks.results if summary.checks else ()),
        "spark": spark_facts,
        "quality_py": __version__,
    }
    write_json(args.json, document)


def _check_results(results: Sequence[ConstraintResult]) -> list[dict[str, Any]]:
    return [
        {
            "check": c.check,
            "level": c.level,
            "constraint": c.constraint,
            "passed": c.passed,
            "value": c.metric if isinstance(c.metric, (int, float, str)) else str(c.metric),
            "message": c.message,
        }
        for c in results
    ]


def _rule_result(stats: RuleStats) -> dict[str, Any]:
    return {
        "rule_set": f"{stats.rule_set_id.id}.{stats.rule_set_id.version}",
        "rule": f"{stats.rule_id.id}.{stats.rule_id.version}",
        "passed": stats.passed,
        "failed": stats.failed,
        "soft_failed": stats.soft_failed,
        "disabled": stats.disabled,
        "probability": stats.probability,
        "failing": stats.failing,
        "null_values": stats.null_values,
    }


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
        raise InputError(
            "run: give --output, or --valid/--quarantine/--stats for a quality run",
            item_kind="option",
        )
    from pyspark.sql import Observation

    ruleset, compiled, _, df, started = _prepared(args)
    suite, checks = ruleset.suite, ruleset.checks
    checked = add_data_quality(df, suite, args.name, layout=args.layout, compiled=compiled)
    observation = Observation("quality_py_summary")
    observed = checked.observe(
        observation, *summary_columns(suite, args.name, layout_of(checked, args.name))
    )
    observed, finish_checks = observe_checks(observed, checks, policy=suite.policy)
    write_frame(observed, args.output, "overwrite", args.output_format or "auto")
    stats = stats_from_row(suite, observation.get)
    verification = finish_checks() if checks else None
    elapsed = time.perf_counter() - started
    print(f"suite {suite.id!r}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    print(format_summary(stats))
    if verification is not None:
        print(format_verification(verification))
    print(f"wrote {args.output} ({args.layout} layout) in {elapsed:.1f} s")
    status = "success" if verification is None else verification.status
    code = {"error": 1, "warning": 3 if args.strict else 0}.get(status, 0)
    if args.json:
        document = {
            "command": "run",
            "status": status,
            "exit_code": code,
            "input": args.input,
            "outputs": {"output": args.output},
            "elapsed_seconds": round(elapsed, 3),
            "input_rows": stats.rows,
            "rules": [_rule_result(r) for r in stats.rules],
            "checks": _check_results(verification.results if verification else ()),
            "spark": session_facts(df.sparkSession),
            "quality_py": __version__,
        }
        write_json(args.json, document)
    return code
