"""``validate``, ``explain`` and ``docs``: what a ruleset's rules are and do, before a run."""

from __future__ import annotations

import argparse
import sys

from quality_py.actions.preview import preview_edit
from quality_py.actions.release import release_quarantine
from quality_py.cli.common import job_of, pair_values, write_json
from quality_py.docgen import to_html, to_markdown
from quality_py.docgen.checks import SiteLinks, doc_checks
from quality_py.errors import QualityError, escape_text
from quality_py.history import open_repository
from quality_py.io.schema import SCHEMA_FILE
from quality_py.jobs.prepare import open_session
from quality_py.model.changes import suite_changes
from quality_py.runners.explain import explain_rules
from quality_py.validation import validate


def validate_command(args: argparse.Namespace) -> int:
    """The ``validate`` command: every ruleset named, each alone (a pre-commit hook passes
    several); exit 1 when one has an error, 2 when one cannot be read. Without --input or
    --analyse (and without rule tables only Spark reads) no Spark starts: a YAML file or local
    rule tables are checked against --schema's names at once, and the columns the rules read
    from reference views against the views' own (``--view NAME=FILE|DDL``, a views file's file
    sources, a sample's views)."""
    sources = args.source if isinstance(args.source, list) else [args.source]
    code = 0
    for source in sources:
        one = argparse.Namespace(**{**vars(args), "source": source})
        try:
            code = max(code, _validate_one(one))
        except QualityError as err:
            if len(sources) == 1:
                raise
            print(f"error: {escape_text(str(err))}", file=sys.stderr)
            code = max(code, 2)
    return code


def _validate_one(args: argparse.Namespace) -> int:
    static = not (args.input or args.analyse)
    prepared = job_of(args).prepare(compile=False, static_schema=static)
    frame = prepared.frame
    schema = frame if args.input else frame.schema if frame is not None else prepared.paths
    sample = frame if args.sample and args.input else None
    report = validate(
        prepared.suite, schema, spark=prepared.spark, sample=sample,
        sample_rows=args.sample or 20, checks=prepared.ruleset.checks if prepared.ruleset else (),
        views=prepared.view_paths,
    )  # fmt: skip
    print(report.format(prepared.ruleset.locator() if prepared.ruleset else None))
    if report.sample is not None:
        for row in report.sample[: args.sample]:
            print("  ", row)
    return 0 if report.ok else 1


def explain_command(args: argparse.Namespace) -> int:
    """The ``explain`` command: each rule's compiled SQL and, given data, Spark's plan of it."""
    prepared = job_of(args).prepare(compile=False)
    for explanation in explain_rules(prepared.suite, prepared.frame, args.rule, mode=args.mode):
        print(explanation.format())
    return 0


def docs_command(args: argparse.Namespace) -> int:
    """The ``docs`` command: Markdown or HTML by the output's suffix."""
    from pathlib import Path

    prepared = job_of(args).prepare(compile=False)
    ruleset, suite = prepared.ruleset, prepared.suite
    assert ruleset is not None
    checks = doc_checks(
        ruleset.checks, ruleset.sql_checks, ruleset.anomaly_checks, ruleset.error_rates
    )
    links = None
    if args.site_url:
        tags = tuple(pair_values(args.site_dataset, "--site-dataset"))
        links = SiteLinks(args.site_url, str(suite.id.id), tags)
    report = None
    if prepared.frame is not None:
        schema = prepared.frame if args.input else prepared.frame.schema
        report = validate(suite, schema, spark=prepared.spark)
    changes = None
    if args.previous:
        old = prepared.other_ruleset(args.previous).suite
        changes = (suite_changes(old, suite), f"{old.id.id}.{old.id.version}")
    out = Path(args.out)
    render = to_html if out.suffix.lower() in (".html", ".htm") else to_markdown
    text = render(suite, report, checks, links, changes, variables=ruleset.variables)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def schema_command(args: argparse.Namespace) -> int:
    """``schema``: the path of the ruleset JSON Schema, or (``--print``) the schema."""
    print(SCHEMA_FILE.read_text(encoding="utf-8") if args.print else SCHEMA_FILE)
    return 0


def release_command(args: argparse.Namespace) -> int:
    """``release RULESET --quarantine Q --valid V --run-id R``: move the quarantined rows the
    rules now pass into valid, once (exit 0; 2 on bad input)."""
    prepared = job_of(args).prepare(compile=False)
    spark = prepared.spark or open_session(prepared.job.spark)
    history = open_repository(args.history, spark) if args.history else None
    result = release_quarantine(
        spark, prepared.suite, args.run_id, args.valid, args.quarantine,
        format=args.output_format, history=history, dry_run=args.dry_run, where=args.where,
    )  # fmt: skip
    print(result.describe())
    if args.json:
        write_json(args.json, result.to_dict())
    return 0


def diff_command(args: argparse.Namespace) -> int:
    """``diff OLD NEW --input DATA``: what the edit would do to the data (exit 0; 2 on bad
    input)."""
    prepared = job_of(args, ruleset=args.new).prepare(compile=False)
    assert prepared.frame is not None
    old = prepared.other_ruleset(args.old).suite
    preview = preview_edit(
        prepared.frame, old, prepared.suite, keys=prepared.job.keys, samples=args.samples
    )
    print(preview.describe())
    if args.json:
        write_json(args.json, preview.to_dict())
    return 0
