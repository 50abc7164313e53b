"""``validate``, ``explain`` and ``docs``: what a ruleset's rules are and do, before a run."""

from __future__ import annotations

import argparse
from typing import Any

from quality_py.actions.preview import preview_edit
from quality_py.cli.common import (
    keys,
    load_reference,
    load_suite,
    load_suite_and_checks,
    others,
    pair_values,
    policy_for,
    read_input,
    schema_of,
    session,
    variables,
    write_json,
)
from quality_py.docgen import to_html, to_markdown
from quality_py.docgen.checks import SiteLinks, doc_checks
from quality_py.errors import ModelError
from quality_py.io.ruleset_file import is_yaml, load_ruleset_file
from quality_py.io.schema import SCHEMA_FILE
from quality_py.model.changes import suite_changes
from quality_py.model.ids import Id
from quality_py.runners.explain import explain_rules
from quality_py.validation import validate


def validate_command(args: argparse.Namespace) -> int:
    """The ``validate`` command: exit 1 when there is an error. A YAML ruleset checked without
    data (no --schema, --input or reference views) needs no Spark: its problems come at once."""
    data = args.schema or args.input or getattr(args, "view", None) or getattr(args, "views", None)
    spark = session(args) if data or not is_yaml(args.source) else None
    views = load_reference(spark, args) if spark is not None else []
    suite, checks = load_suite_and_checks(
        args.source, args.suite, spark, others(args), variables(args)
    )
    suite = suite.with_policy(policy_for(args, views))
    schema = schema_of(args, spark) if spark is not None else None
    sample = schema if args.sample and schema is not None and hasattr(schema, "limit") else None
    report = validate(
        suite, schema, spark=spark, sample=sample, sample_rows=args.sample or 20, checks=checks
    )
    print(report.format())
    if report.sample is not None:
        for row in report.sample[: args.sample]:
            print("  ", row)
    return 0 if report.ok else 1


def explain_command(args: argparse.Namespace) -> int:
    """The ``explain`` command: each rule's compiled SQL and, given data, Spark's plan of it."""
    needs_spark = not is_yaml(args.source) or bool(args.schema or args.input)
    spark = session(args) if needs_spark else None
    suite = load_suite(args.source, args.suite, spark, others(args), variables(args))
    frame = None
    if spark is not None and (args.schema or args.input):
        views = load_reference(spark, args)
        suite = suite.with_policy(policy_for(args, views))
        schema = schema_of(args, spark)
        frame = schema if hasattr(schema, "limit") else spark.createDataFrame([], schema)
    rule_id = parse_rule_id(args.rule) if args.rule else None
    for explanation in explain_rules(suite, frame, rule_id, mode=args.mode):
        print(explanation.format())
    return 0


def parse_rule_id(text: str) -> Any:
    """``ID`` (any version) or ``ID.VERSION``."""
    parts = text.split(".")
    if not all(p.strip().lstrip("-").isdigit() for p in parts) or len(parts) > 2:
        raise ModelError(f"--rule takes ID or ID.VERSION, not {text!r}", code="INVALID_ID")
    return Id(int(parts[0]), int(parts[1])) if len(parts) == 2 else int(parts[0])


def docs_command(args: argparse.Namespace) -> int:
    """The ``docs`` command: Markdown or HTML by the output's suffix."""
    from pathlib import Path

    spark = None if is_yaml(args.source) and not (args.schema or args.input) else session(args)
    ruleset = load_ruleset_file(
        args.source,
        spark=spark,
        suite=args.suite,
        others=others(args),
        variables=variables(args),
    )
    suite = ruleset.suite
    checks = doc_checks(
        ruleset.checks, ruleset.sql_checks, ruleset.anomaly_checks, ruleset.error_rates
    )
    links = None
    if args.site_url:
        tags = tuple(pair_values(args.site_dataset, "--site-dataset"))
        links = SiteLinks(args.site_url, str(suite.id.id), tags)
    report = None
    if spark is not None and (args.schema or args.input):
        views = load_reference(spark, args)
        report = validate(
            suite.with_policy(policy_for(args, views)), schema_of(args, spark), spark=spark
        )
    changes = None
    if args.previous:
        old = load_suite(args.previous, args.suite, spark, others(args), variables(args))
        changes = (suite_changes(old, suite), f"{old.id.id}.{old.id.version}")
    out = Path(args.out)
    render = to_html if out.suffix.lower() in (".html", ".htm") else to_markdown
    out.write_text(render(suite, report, checks, links, changes), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def schema_command(args: argparse.Namespace) -> int:
    """``schema``: the path of the ruleset JSON Schema, or (``--print``) the schema."""
    print(SCHEMA_FILE.read_text(encoding="utf-8") if args.print else SCHEMA_FILE)
    return 0


def diff_command(args: argparse.Namespace) -> int:
    """``diff OLD NEW --input DATA``: what the edit would do to the data (exit 0; 2 on bad
    input)."""
    spark = session(args)
    views = load_reference(spark, args)
    policy = policy_for(args, views)
    old = load_suite(args.old, args.suite, spark, others(args), variables(args))
    new = load_suite(args.new, args.suite, spark, others(args), variables(args))
    df = read_input(spark, args.input, args.format)
    preview = preview_edit(
        df, old.with_policy(policy), new.with_policy(policy), keys=keys(args.key),
        samples=args.samples,
    )  # fmt: skip
    print(preview.describe())
    if args.json:
        write_json(args.json, preview.to_dict())
    return 0
