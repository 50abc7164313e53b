"""The command line's argument parser: every command and its options, each shared option
declared once (``_source``, ``_reference``, ``_spark`` ...)."""

from __future__ import annotations

import argparse

from quality_py.cli.common import FORMATS
from quality_py.cli.convert import convert_command
from quality_py.cli.over_time import profile_command, report_command
from quality_py.cli.rules import docs_command, explain_command, validate_command
from quality_py.cli.run import run

USAGE = """Command line of quality_py.

* ``run RULESET --input PATH_OR_SAMPLE --output DIR``: add the DataQuality column, write parquet,
  print per-rule counts gathered during that same write, and the ruleset's dataset checks;
* ``run RULESET --input ... --valid DIR --quarantine DIR --stats DIR``: a quality run (rule
  actions drop / fail / ignore): valid rows, quarantined rows with reasons, stats; exits 1 and
  prints the summary when a ``fail`` rule or check fails (nothing is written then);
* ``validate SOURCE (--schema DDL | --input PATH) [--view NAME=PATH] [--sample N]``: report
  every problem of the rules and of the YAML's dataset checks, exit 1
  on errors;
* ``docs SOURCE --out FILE.md|FILE.html [--schema DDL | --input PATH]``: documentation;
* ``convert SOURCE DEST``: a YAML ruleset to a folder of rule tables (parquet), or back.

SOURCE is a YAML ruleset or a folder holding ``rules`` (and optionally ``lambdas``,
``outputs``, ``meta_rule_sets``) tables as parquet; ``--suite ID[.VERSION]`` picks a suite
from tables (default: the latest version of the only suite id).
"""

_SOURCE_HELP = (
    "YAML ruleset, or rule tables: rules.csv (a spreadsheet export), a parquet or Delta folder, "
    "a folder of tables, or table:NAME"
)
_INPUT_HELP = "parquet/CSV/JSON path, or sample:flights"


def _source(p: argparse.ArgumentParser, name: str = "source") -> None:
    """The ruleset: a YAML file or rule tables, and which suite and tables of them."""
    p.add_argument(name, help=_SOURCE_HELP)
    p.add_argument("--suite", help="ID or ID.VERSION of the suite to use from tables")
    p.add_argument("--lambdas", help="the lambdas table (same forms as the rules table)")
    p.add_argument("--outputs", help="the output expressions table")
    p.add_argument("--meta-rule-sets", help="the meta rule sets table")


def _input(p: argparse.ArgumentParser, required: bool, help_text: str = _INPUT_HELP) -> None:
    p.add_argument("--input", required=required, help=help_text)
    p.add_argument("--format", choices=FORMATS, help="input format (default: by suffix)")


def _reference(p: argparse.ArgumentParser) -> None:
    """Reference data rules may read."""
    p.add_argument("--view", action="append", help="register NAME=PATH as a view for lookups")
    p.add_argument("--views", help="YAML of reference views and lookup maps to load first")


def _spark(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", default="local[2]")
    p.add_argument("--remote", help="Spark Connect URL instead of a local session")


def _history(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--history", help=f"{what} (path or table:NAME)")
    p.add_argument("--tag", action="append", help="tag the kept metrics KEY=VALUE")
    p.add_argument("--run-id", help="the id of what is kept (re-running an id replaces it)")


def _with_data(p: argparse.ArgumentParser) -> None:
    """The data a ruleset is checked against: a schema, or an input (and reference data)."""
    p.add_argument("--schema", help="the data's schema as DDL, e.g. 'a INT, b STRING'")
    _input(p, False, "take the schema from this input (or sample:...)")
    _reference(p)


def _run_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    r = sub.add_parser("run", help="add the DataQuality column, write it, print per-rule counts")
    _source(r, "ruleset")
    _input(r, True)
    r.add_argument("--output", help="write the data with the DataQuality column here (parquet)")
    r.add_argument("--valid", help="quality run: write rows passing drop rules here")
    r.add_argument("--quarantine", help="quality run: write failing rows with reasons here")
    r.add_argument("--stats", help="quality run: write the run's stats here")
    r.add_argument("--where", help="check only the input rows matching this SQL condition")
    _history(r, "quality run: keep its metrics here")
    r.add_argument(
        "--key",
        action="append",
        help="quality run: a column identifying a row, shown for sample failing rows "
        "(repeat or comma-separate; default: the first three columns)",
    )
    r.add_argument("--notify", action="append", help="quality run: append events (JSON lines)")
    r.add_argument("--webhook", action="append", help="quality run: POST events to this URL")
    r.add_argument("--layout", choices=["map", "compact"], default="map")
    r.add_argument("--name", default="DataQuality", help="name of the result column")
    _reference(r)
    _spark(r)
    r.set_defaults(func=run)


def _rule_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    v = sub.add_parser("validate", help="report every problem of a suite; exit 1 on errors")
    _source(v)
    _with_data(v)
    v.add_argument("--sample", type=int, default=0, help="also run on N rows of --input")
    _spark(v)
    v.set_defaults(func=validate_command)
    d = sub.add_parser("docs", help="write documentation (.md or .html)")
    _source(d)
    _with_data(d)
    d.add_argument("--out", required=True, help="output file: .md or .html")
    _spark(d)
    d.set_defaults(func=docs_command)
    e = sub.add_parser("explain", help="show each rule's compiled SQL (and Spark's plan)")
    _source(e)
    _with_data(e)
    e.add_argument("--rule", help="only this rule: ID or ID.VERSION")
    e.add_argument(
        "--mode",
        default="simple",
        choices=["simple", "extended", "codegen", "cost", "formatted"],
        help="Spark's explain mode for the plan (with --input or --schema)",
    )
    _spark(e)
    e.set_defaults(func=explain_command)
    c = sub.add_parser("convert", help="YAML ruleset <-> folder of rule tables")
    _source(c)
    c.add_argument("dest", help="a .yaml file or a folder for the tables")
    c.add_argument(
        "--rules-only",
        action="store_true",
        help="to tables: write the rules and leave behind what tables cannot hold (checks, "
        "anomaly and SQL checks, error rates, suite and rule set descriptions); without it "
        "such a ruleset is refused",
    )
    _spark(c)
    c.set_defaults(func=convert_command)


def _over_time_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("profile", help="profile data, suggest checks (YAML), keep the profile")
    _input(p, True)
    p.add_argument("--where", help="profile only the rows matching this SQL condition")
    p.add_argument("--suggest", help="write the suggested ruleset (YAML) here")
    p.add_argument("--evaluate", action="store_true", help="test suggestions on held-out rows")
    p.add_argument("--max-categories", type=int, default=120, help="value counts up to N values")
    _history(p, "keep the profile in this history")
    p.add_argument("--suite", help="the suite the profile belongs with (e.g. 1.1)")
    _spark(p)
    p.set_defaults(func=profile_command)
    r = sub.add_parser("report", help="write the HTML report of a metrics history")
    r.add_argument("--history", required=True, help="the history (path or table:NAME)")
    r.add_argument("--out", required=True, help="the HTML file to write")
    r.add_argument("--since", help="only runs from this time (ISO date or time)")
    r.add_argument("--until", help="only runs before this time")
    r.add_argument("--title", default="Data quality report")
    _spark(r)
    r.set_defaults(func=report_command)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m quality_py``.

    >>> args = build_parser().parse_args(["validate", "rules.yaml", "--schema", "a INT"])
    >>> args.source, args.schema, args.master
    ('rules.yaml', 'a INT', 'local[2]')
    """
    parser = argparse.ArgumentParser(prog="python -m quality_py", description=USAGE)
    sub = parser.add_subparsers(dest="command", required=True)
    _run_parser(sub)
    _rule_parsers(sub)
    _over_time_parsers(sub)
    return parser
