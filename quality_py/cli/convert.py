"""``convert``: between a YAML ruleset and rule tables (a folder of parquet tables, or
``rules.csv`` with the other tables beside it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from quality_py.actions.sql_checks import FRAMES
from quality_py.cli.common import job_of
from quality_py.errors import QualityError, RulesetFormatError, item_text
from quality_py.gate import files
from quality_py.io.imports import import_text
from quality_py.io.odcs_export import export_odcs
from quality_py.io.ruleset_file import is_yaml
from quality_py.io.tables import (
    lambdas_dataframe,
    meta_rule_sets_dataframe,
    outputs_dataframe,
    rules_dataframe,
)
from quality_py.io.variables import parse_assignments
from quality_py.io.yaml_checks import refuse_aliases
from quality_py.io.yaml_rulesets import dumps_ruleset
from quality_py.jobs.prepare import open_session
from quality_py.model.rules import RuleSuite
from quality_py.model.yaml_text import dump_yaml
from quality_py.sql.check_queries import checked_query
from quality_py.validation import validate

TABLES = ("rules", "lambdas", "outputs", "meta_rule_sets")


def _cell(value: Any) -> Any:
    """A CSV cell: lists (tags) as JSON, which the table reader reads back."""
    import json

    if value is None:
        return ""
    return json.dumps(list(value)) if isinstance(value, list | tuple) else value


def _write_csv(frame: Any, path: Path) -> None:
    """A small table as a CSV file with a header row (what a spreadsheet opens)."""
    import csv

    rows = frame.collect()
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(frame.columns)
        writer.writerows([_cell(v) for v in row] for row in rows)


#: YAML sections beside the suite; rule tables hold none of them.
SECTIONS = ("checks", "anomalies", "sql_checks", "error_rates")


def yaml_sections(path: str) -> dict[str, Any]:
    """The sections of a YAML ruleset beside its suite, as data (dataset checks, anomaly checks,
    SQL checks, error rates), in the file's order."""

    text = files.read_text(path)
    refuse_aliases(text, path)
    doc = files.yaml_value(text) or {}
    return {k: doc[k] for k in doc if k in SECTIONS and doc[k] is not None}


def _dump_sections(sections: dict[str, Any]) -> str:

    if not sections:
        return ""
    return dump_yaml(sections)


def untabled(suite: RuleSuite, sections: dict[str, Any]) -> list[str]:
    """What a suite and its YAML sections hold that rule tables cannot: the sections, the
    suite's and rule sets' descriptions and names, a probable_pass other than 0.8.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])],
    ...                   description="orders")
    >>> untabled(suite, {"checks": []})
    ['checks (dataset checks)', 'the description of suite 1.1']
    """
    names = {
        "checks": "checks (dataset checks)",
        "anomalies": "anomalies (anomaly checks)",
        "sql_checks": "sql_checks (SQL checks)",
        "error_rates": "error_rates (alert thresholds)",
    }
    out = [names[k] for k in sections]
    if suite.description is not None:
        out.append(f"the description of {item_text('suite', suite.id)}")
    if suite.probable_pass != 0.8:
        out.append(f"probable_pass {suite.probable_pass}")
    if suite.name is not None:
        out.append(f"the name of {item_text('suite', suite.id)}")
    out += [
        f"the {what} of {item_text('rule set', rs.id)}"
        for rs in suite.rule_sets
        for what, value in (("description", rs.description), ("name", rs.name))
        if value is not None
    ]
    return out


def convert_command(args: argparse.Namespace) -> int:
    """The ``convert`` command: between a YAML ruleset and rule tables (a folder of parquet
    tables, or ``rules.csv`` with ``lambdas.csv``, ``outputs.csv``, ``meta_rule_sets.csv``
    beside it when the suite has them); with ``--from``, another tool's rules into YAML."""
    if args.from_format:
        return _import(args)
    if getattr(args, "to_format", None) == "odcs":
        return _export_odcs(args)
    prepared = job_of(args).prepare(compile=False)
    spark = prepared.spark or open_session(prepared.job.spark)  # the tables are Spark's
    suite = prepared.suite
    sections = yaml_sections(args.source) if is_yaml(args.source) else {}
    if is_yaml(args.dest):
        Path(args.dest).write_text(
            dumps_ruleset(suite) + _dump_sections(sections), encoding="utf-8"
        )
    else:
        left = untabled(suite, sections)
        if left and not args.rules_only:
            raise RulesetFormatError(
                f"{args.source} holds what rule tables cannot: {'; '.join(left)}. Converting "
                "would drop it silently, so nothing was written: keep the ruleset in YAML, or "
                "convert with --rules-only to write the rule tables and leave these behind",
                item_kind="ruleset",
            )
        for item in left:
            print(f"left behind (--rules-only): {item}")
        frames = (
            rules_dataframe(spark, suite),
            lambdas_dataframe(spark, suite),
            outputs_dataframe(spark, suite),
            meta_rule_sets_dataframe(spark, suite),
        )
        dest = Path(args.dest)
        for name, frame in zip(TABLES, frames, strict=True):
            if dest.suffix.lower() == ".csv":
                dest.parent.mkdir(parents=True, exist_ok=True)
                target = dest if name == "rules" else dest.with_name(f"{name}.csv")
                if name == "rules" or frame.count():
                    _write_csv(frame, target)
            else:
                frame.write.mode("overwrite").parquet(str(dest / name))
    print(f"wrote {args.dest}")
    return 0


def _export_odcs(args: argparse.Namespace) -> int:
    """``convert --to odcs RULESET.yaml DEST.yaml``: the ruleset as an ODCS v3 contract."""
    if not is_yaml(args.source) or not is_yaml(args.dest):
        raise RulesetFormatError(
            f"--to odcs writes a YAML ruleset ({args.source}) as a contract (.yaml): "
            f"convert rule tables to YAML first", item_kind="ruleset"
        )  # fmt: skip
    views = [str(v).split("=", 1)[0] for v in getattr(args, "view", None) or []]
    if getattr(args, "views", None):  # the names only: the export reads no reference data
        declared = files.yaml_value(files.read_text(args.views)) or {}
        views += [str(v.get("name")) for v in declared.get("views") or [] if isinstance(v, dict)]
    text = files.read_text(args.source)
    contract, left = export_odcs(
        text, str(args.source), views, parse_assignments(getattr(args, "var", None) or [])
    )
    Path(args.dest).write_text(contract, encoding="utf-8")
    for item in left:
        print(f"no ODCS form (kept for reading back): {item}")
    print(f"wrote {args.dest}")
    return 0


def _import(args: argparse.Namespace) -> int:
    """``convert --from FORMAT SOURCE DEST.yaml`` (one of ``FORMATS``): the ruleset is
    written, then validated as ``validate`` would (the same policy and compiler; against the
    data's schema with ``--schema`` or ``--input``): exit 1 when something mapped would be
    refused, each refusal listed."""
    if not is_yaml(args.dest):
        raise RulesetFormatError(
            f"an import writes a YAML ruleset: {args.dest} is not .yaml", item_kind="ruleset"
        )
    if getattr(args, "se_table", None) and args.from_format not in ("spark-expectations", "odcs"):
        raise RulesetFormatError(
            f"--table chooses the rules of one table of a Spark-Expectations file or one schema "
            f"object of an ODCS contract; a {args.from_format} file has no such choice",
            item_kind="ruleset",
        )
    text = files.read_text(args.source)
    result = import_text(
        text,
        args.from_format,
        str(args.source),
        dqx_version=getattr(args, "dqx_version", None),
        dq_env=getattr(args, "dq_env", None),
        se_table=getattr(args, "se_table", None),
        odcs_object=getattr(args, "se_table", None),
    )
    Path(args.dest).write_text(result.text, encoding="utf-8")
    print(result.summary())
    print(f"wrote {args.dest}")
    refused = converted_refusals(args)
    if refused:
        print(f"{len(refused)} converted item(s) would be refused by validate and run:")
        for line in refused:
            print(f"  {line}")
        return 1
    print("validated: every converted rule and check passes validate")
    return 0


def converted_refusals(args: argparse.Namespace) -> list[str]:
    """What ``validate`` refuses in the converted ruleset at ``args.dest`` (rules, dataset
    checks, SQL checks), under the policy a run of it would have."""
    data = bool(getattr(args, "input", None))  # the data asked for: Spark analyses the rules
    prepared = job_of(args, ruleset=args.dest).prepare(compile=False, static_schema=not data)
    frame = prepared.frame
    schema = frame if data else frame.schema if frame is not None else prepared.paths
    ruleset = prepared.ruleset
    checks = ruleset.checks if ruleset is not None else ()
    report = validate(
        prepared.suite, schema, spark=prepared.spark, checks=checks, views=prepared.view_paths
    )
    out = [f.describe(report.names.get(f.item_id)) for f in report.errors]
    for check in ruleset.sql_checks if ruleset is not None else ():
        try:
            checked_query(check.name, check.sql, check.on, FRAMES, prepared.suite.policy)
        except QualityError as err:
            out.append(f"SQL check {check.name!r}: {err.message}")
    return out
