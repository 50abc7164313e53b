"""``run``: add the DataQuality column and write it, or a quality run with actions (valid rows,
quarantine with reasons, stats, history, anomaly and SQL checks, notifications).

Parse, build the job, call, print: the job (quality_py.jobs) is what a notebook or an
orchestrator runs too.
"""

from __future__ import annotations

import argparse
import sys

from quality_py.actions import QualityRunFailed
from quality_py.cli.common import job_of, write_json
from quality_py.dataset.checks import format_verification
from quality_py.errors import item_text
from quality_py.jobs import JobResult, QualityJob
from quality_py.jobs.running import failed_result, require_runnable, run_prepared
from quality_py.runners.summary import format_summary


def run(args: argparse.Namespace) -> int:
    """The ``run`` command."""
    return _run(args, job_of(args))


def job_command(args: argparse.Namespace) -> int:
    """The ``job`` command: run the job a YAML file describes (its fields are QualityJob's)."""
    return _run(args, QualityJob.from_yaml(args.file))


def _run(args: argparse.Namespace, job: QualityJob) -> int:
    require_runnable(job)  # before Spark starts
    prepared = job.prepare(also_writes=[("--json", args.json)] if args.json else [])
    try:
        result = run_prepared(prepared)
    except QualityRunFailed as err:
        print(err.summary.describe(), file=sys.stderr)
        if err.summary.checks is not None:
            print(format_verification(err.summary.checks), file=sys.stderr)
        print("quality run failed: nothing was written", file=sys.stderr)
        _undelivered(err.summary.undelivered)
        _write_result(args, failed_result(prepared, err.summary))
        return 1
    _print(result, job)
    _undelivered(result.summary.undelivered if result.summary else ())
    _write_result(args, result)
    return result.exit_code


def _undelivered(lines: tuple[str, ...]) -> None:
    """One line on stderr per alert or notification that could not be delivered (the run's
    outcome and exit code are unchanged)."""
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)


def _print(result: JobResult, job: QualityJob) -> None:
    suite = result.suite
    named = item_text("suite", suite.id, suite.name)
    print(f"{named}: {suite.rule_count} rules in {len(suite.rule_sets)} rule sets")
    if result.stats is not None:
        print(format_summary(result.stats))
    if result.checks is not None:
        print(format_verification(result.checks))
    elapsed = f"{result.elapsed_seconds:.1f} s"
    if result.summary is None:
        print(f"wrote {job.outputs.output} ({job.layout} layout) in {elapsed}")
        return
    print(result.summary.describe())
    written = ", ".join(f"{k} -> {v}" for k, v in result.outputs.items())
    print(f"wrote {written} in {elapsed}")


def _write_result(args: argparse.Namespace, result: JobResult) -> None:
    """The run's whole result for an orchestrator (``--json FILE``)."""
    if args.json:
        write_json(args.json, result.to_dict())
