"""The command line's argument parser: every command and its options, each shared option
declared once (``_source``, ``_reference``, ``_spark`` ...)."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from typing import Any

from quality_py.actions.flags import QUARANTINE_DETAIL
from quality_py.cli.common import FORMATS, OUTPUT_FORMATS
from quality_py.cli.convert import convert_command
from quality_py.cli.over_time import profile_command, report_command
from quality_py.cli.rules import (
    diff_command,
    docs_command,
    explain_command,
    release_command,
    schema_command,
    validate_command,
)
from quality_py.cli.run import job_command, run
from quality_py.errors import ModelError
from quality_py.gate.numbers import number
from quality_py.io.imports import FORMATS as IMPORT_FORMATS
from quality_py.version import __version__

DESCRIPTION = """Run versioned SQL data-quality rules on Spark data: check a dataset with a
ruleset (YAML or rule tables), write its valid rows, its quarantined rows with the reasons and
its stats, keep metrics over time, and document or convert rulesets."""

EXIT_CODES = """exit codes:
  0  success (warnings are printed; with --strict they exit 3)
  1  the run failed: a fail rule, an error-level check, anomaly or SQL check (nothing is
     published), or validate found errors in the rules
  2  a mistake in what was given: the ruleset, an option, an input that cannot be read
  3  success with warnings, under --strict
  4  Spark could not be had or stopped the command (no PySpark, a refused session, a failed job)
  70 an internal error of quality_py (a bug: the traceback is printed; please report it)"""

EXAMPLES = (
    """examples:
  %(prog)s run rulesets/flights.yaml --input sample:flights --valid out/valid \\
      --quarantine out/quarantine --stats out/stats --json out/run.json
  %(prog)s run rules.yaml --input main.sales.orders --valid main.dq.orders_valid \\
      --quarantine main.dq.orders_quarantine --history table:main.dq.history
  %(prog)s job orders-job.yaml --json out/run.json
  %(prog)s validate rules.yaml --schema 'id INT, amount DOUBLE'
  %(prog)s docs rules.yaml --out rules.html

"""
    + EXIT_CODES
)

_SOURCE_HELP = (
    "YAML ruleset, or rule tables: rules.csv (a spreadsheet export), a parquet or Delta folder, "
    "a folder of tables, or table:NAME"
)
_INPUT_HELP = (
    "the data: a parquet/CSV/JSON/Delta path or URI, a table (catalog.schema.table or "
    "table:NAME), or sample:flights"
)


def count(low: int) -> Callable[[str], int]:
    """An option's whole number of at least ``low``, read by the one typed parser of numbers
    (:func:`quality_py.gate.numbers.number`): ``--samples nan`` or ``-3`` is refused."""

    def parse(text: str) -> int:
        try:
            return int(number(text, name="the value", low=low, integer=True))
        except ModelError as err:
            raise argparse.ArgumentTypeError(err.message) from None

    return parse


def _source(p: argparse.ArgumentParser, name: str = "source", many: bool = False) -> None:
    """The ruleset: a YAML file or rule tables, and which suite and tables of them (``many``:
    one or more rulesets, each checked alone)."""
    p.add_argument(name, help=_SOURCE_HELP, nargs="+" if many else None)
    p.add_argument("--suite", help="ID or ID.VERSION of the suite to use from tables")
    p.add_argument("--lambdas", help="the lambdas table (same forms as the rules table)")
    p.add_argument("--outputs", help="the output expressions table")
    p.add_argument("--meta-rule-sets", help="the meta rule sets table")
    p.add_argument(
        "--var",
        action="append",
        metavar="NAME=VALUE",
        help="the value of ${NAME} in a YAML ruleset (repeatable; else QUALITY_PY_VAR_NAME)",
    )


def _input(p: argparse.ArgumentParser, required: bool, help_text: str = _INPUT_HELP) -> None:
    p.add_argument("--input", required=required, help=help_text)
    p.add_argument("--format", choices=FORMATS, help="input format (default: by suffix)")


def _reference(p: argparse.ArgumentParser) -> None:
    """Reference data rules may read."""
    p.add_argument(
        "--view",
        action="append",
        help="register NAME=PATH as a view for lookups (validate without --input also takes "
        "NAME=DDL, e.g. 'faa STRING, name STRING', and reads a file's columns without Spark)",
    )
    p.add_argument("--views", help="YAML of reference views and lookup maps to load first")


def _spark(p: argparse.ArgumentParser) -> None:
    """Which Spark: the one the environment supplies, else a local one."""
    g = p.add_argument_group(
        "Spark",
        "By default the Spark the environment supplies (SPARK_REMOTE, spark-submit, a "
        "Databricks runtime), else a local one on local[2].",
    )
    g.add_argument("--master", help="start a local Spark on this master (e.g. local[4])")
    g.add_argument("--remote", help="a Spark Connect server, e.g. sc://host:15002")
    g.add_argument(
        "--conf",
        action="append",
        metavar="KEY=VALUE",
        help="a Spark setting (repeat); one the server refuses is a warning",
    )


def _table_state(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--table-state",
        metavar="LOCATION",
        help="quality run: the input is a partition of a growing table whose partitions' "
        "states are kept here (a folder or URI): every dataset check answers for the table, and "
        "a published run keeps the input's state for its partition (docs/growing-tables.md)",
    )
    p.add_argument(
        "--partition",
        metavar="KEY=VALUE",
        help="quality run, with --table-state: the input's partition of the table "
        "(day=2026-11-28, or year=2026,month=11); a re-run replaces its state",
    )
    p.add_argument(
        "--table-view",
        metavar="NAME",
        help="quality run, with --table-state: the name the rules give the table itself "
        "(in_reference('NAME', 'key', column): a foreign key into the table, answered from its "
        "key indexes and the input, never its rows)",
    )


def _lineage(p: argparse.ArgumentParser) -> None:
    """A quality run's OpenLineage events (docs/lineage.md)."""
    for flag, meta, text in (
        ("--openlineage", None, "emit OpenLineage run events (START, then COMPLETE or FAIL, with "
         "each rule's and check's outcome) through the OpenLineage client's own configuration "
         "(OPENLINEAGE_URL, OPENLINEAGE_CONFIG); on whenever OPENLINEAGE_URL is set"),
        ("--no-openlineage", None, "no OpenLineage events, even with OPENLINEAGE_URL set"),
        ("--openlineage-namespace", "NAMESPACE", "the job's namespace (default: quality_py)"),
        ("--openlineage-job", "NAME", "the job's name (default: the suite's name)"),
    ):  # fmt: skip
        kwargs: dict[str, Any] = {"action": "store_true"} if meta is None else {"metavar": meta}
        p.add_argument(flag, help=f"quality run: {text}", **kwargs)


def _history(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--history", help=f"{what} (path or table:NAME)")
    p.add_argument("--tag", action="append", help="tag the kept metrics KEY=VALUE")
    p.add_argument("--run-id", help="the id of what is kept (re-running an id replaces it)")
    p.add_argument(
        "--data-time",
        help="the time of the data checked (ISO date or time; the tag data_time): the report's "
        "charts place the run at it",
    )


def _with_data(p: argparse.ArgumentParser) -> None:
    """The data a ruleset is checked against: a schema, or an input (and reference data)."""
    p.add_argument(
        "--schema",
        help="the data's columns: DDL ('a INT, b STRING') or a sample file (.csv header, "
        ".parquet, .json lines); validate reads it without Spark",
    )
    _input(p, False, "take the schema from this input (or sample:...)")
    _reference(p)


class _Formatter(argparse.HelpFormatter):
    """Paragraphs wrapped to the terminal; the examples and exit codes kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in text.split("\n\n"):
            if block.startswith(("examples:", "exit codes:")):
                blocks.append(block)
            else:
                blocks.append(
                    textwrap.fill(
                        " ".join(block.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                    )
                )
        return "\n\n".join(blocks)


def _command(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    summary: str,
    description: str,
) -> argparse.ArgumentParser:
    """One command: a line for the list of commands, a paragraph and the exit codes for its help."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=EXIT_CODES,
        formatter_class=_Formatter,
    )
    return parser


def _alert_timing(r: argparse.ArgumentParser) -> None:
    """``--alert-when`` and ``--alert-every`` (one alert per incident)."""
    r.add_argument(
        "--alert-when",
        choices=["problems", "failure", "always", "change"],
        help="quality run: when alerts are sent (default problems); change: once per incident "
        "(a first failure, a recovery), decided from --history",
    )
    r.add_argument(
        "--alert-every",
        metavar="DURATION",
        help="quality run, with --alert-when change: alert a lasting problem again after this "
        "long ('1 day', '6 hours')",
    )


def _run_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    r = _command(
        sub,
        "run",
        "check data with a ruleset and write the results",
        "Check the input with a ruleset. With --valid/--quarantine/--stats: a quality run (rule "
        "actions drop / fail / ignore; nothing is published when it fails). With --output: the "
        "input with the DataQuality column added. Prints the counts per rule.",
    )
    _source(r, "ruleset")
    _input(r, True)
    r.add_argument("--output", help="write the data with the DataQuality column here (parquet)")
    r.add_argument("--valid", help="quality run: write rows passing drop rules here")
    r.add_argument("--quarantine", help="quality run: write failing rows with reasons here")
    r.add_argument("--stats", help="quality run: write the run's stats here")
    r.add_argument("--where", help="check only the input rows matching this SQL condition")
    r.add_argument(
        "--quarantine-detail",
        choices=list(QUARANTINE_DETAIL),
        default=None,
        help="quality run: what a quarantined row says of the rules it failed: their names "
        "(names), their packed ids (ids), or the DataQuality column with every rule's code and "
        "each failed rule's four ids (full: up to twice as slow to write where most rows fail "
        "many rules); default: the form the quarantine holds, else names",
    )
    _history(r, "quality run: keep its metrics here")
    _table_state(r)
    _lineage(r)
    r.add_argument(
        "--key",
        action="append",
        help="quality run: a column identifying a row, shown for sample failing rows "
        "(repeat or comma-separate; default: the first three columns)",
    )
    r.add_argument(
        "--hide-column",
        action="append",
        help="quality run: a column the history's sample failing rows never show (sensitive "
        "data; repeat or comma-separate)",
    )
    r.add_argument("--notify", action="append", help="quality run: append events (JSON lines)")
    r.add_argument("--webhook", action="append", help="quality run: POST events to this URL")
    r.add_argument(
        "--alert",
        action="append",
        metavar="KIND=TARGET",
        help="quality run: alert on failing rules, failed checks or a failed run: "
        "slack=ENV_VAR, teams=ENV_VAR, webhook=ENV_VAR (the variable holding the URL) or "
        "email=ADDRESS[,ADDRESS] (SMTP from QP_SMTP_* variables); repeatable",
    )
    _alert_timing(r)
    r.add_argument("--report-url", help="quality run: the report site's URL, linked by alerts")
    r.add_argument(
        "--layout",
        choices=["map", "compact"],
        default="map",
        help="the result column's layout: map (the original's) or compact (positional arrays)",
    )
    r.add_argument("--name", default="DataQuality", help="name of the result column")
    r.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="format of the outputs: parquet, delta, or auto (the default: an existing table "
        "keeps its format, a new table is Delta where the server has Delta, paths parquet)",
    )
    r.add_argument(
        "--publish",
        choices=["atomic", "direct"],
        default="atomic",
        help="atomic (the default): output paths switch in together at the end, on a "
        "filesystem of this machine; direct: write in place (object stores, shared storage)",
    )
    r.add_argument("--json", metavar="FILE", help="write the run's whole result here as JSON")
    r.add_argument("--strict", action="store_true", help="exit 3 when the run has warnings")
    _reference(r)
    _spark(r)
    r.set_defaults(func=run)


def _job_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    j = _command(
        sub,
        "job",
        "run the quality job a YAML file describes",
        "Run a quality job: a YAML file of QualityJob's fields (ruleset, input, views, outputs, "
        "history, tags, spark, ...: docs/jobs.md). A notebook or an orchestrator that calls "
        "QualityJob.from_yaml(FILE).run() runs exactly this.",
    )
    j.add_argument("file", help="the job's YAML file")
    j.add_argument("--json", metavar="FILE", help="write the run's whole result here as JSON")
    j.set_defaults(func=job_command)


def _rule_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    v = _command(
        sub,
        "validate",
        "report every problem of a ruleset; exit 1 on errors",
        "Compile every rule, lambda and output of a ruleset and check its dataset checks against "
        "a schema (--schema, or --input's). Without --input or --analyse no Spark starts: "
        "syntax, the policy, lambdas, variables and names are checked here (YAML or CSV and "
        "parquet rule tables), as in a pre-commit hook. --analyse also has Spark analyse every "
        "rule against --schema (types, functions); --sample N runs the rules on N rows.",
    )
    _source(v, many=True)
    _with_data(v)
    v.add_argument(
        "--analyse",
        action="store_true",
        help="start Spark to analyse every rule against --schema: types and functions",
    )
    v.add_argument("--sample", type=count(0), default=0, help="also run on N rows of --input")
    _spark(v)
    v.set_defaults(func=validate_command)
    e = _command(
        sub,
        "explain",
        "show each rule's compiled SQL (and Spark's plan)",
        "Show the Spark SQL each rule compiles to, and with --input or --schema the plan Spark "
        "makes of it.",
    )
    _source(e)
    _with_data(e)
    e.add_argument("--rule", help="only this rule: its name, ID or ID.VERSION")
    e.add_argument(
        "--mode",
        default="simple",
        choices=["simple", "extended", "codegen", "cost", "formatted"],
        help="Spark's explain mode for the plan (with --input or --schema)",
    )
    _spark(e)
    e.set_defaults(func=explain_command)
    _convert_parser(sub)


def _convert_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = _command(
        sub,
        "convert",
        "convert a YAML ruleset to rule tables, or back",
        "Convert a YAML ruleset into a folder of rule tables (parquet), or rule tables into YAML.",
    )
    _source(c)
    c.add_argument("dest", help="a .yaml file or a folder for the tables")
    c.add_argument(
        "--rules-only",
        action="store_true",
        help="to tables: write the rules and leave behind what tables cannot hold (checks, "
        "anomaly and SQL checks, error rates, suite and rule set descriptions); without it "
        "such a ruleset is refused",
    )
    c.add_argument(
        "--from",
        dest="from_format",
        choices=IMPORT_FORMATS,
        help="SOURCE is another tool's rules (DQX, Spark-Expectations, SodaCL, a Soda v4 "
        "contract, a GX suite, an ODCS contract): write them as our YAML ruleset, list what did "
        "not map and validate the result (exit 1 when validate would refuse something converted)",
    )
    c.add_argument("--to", dest="to_format", choices=("odcs",),
                   help="write the YAML ruleset SOURCE as an ODCS v3 contract DEST (read back "
                   "by --from odcs); what has no ODCS form is listed")  # fmt: skip
    c.add_argument("--dqx-version", help="with --from dqx: the DQX version whose meaning "
                   "applies (default 0.16; before 0.16 list entries were literals)")  # fmt: skip
    c.add_argument(
        "--dq-env",
        help="with --from spark-expectations: the dq_env environment whose defaults apply",
    )
    c.add_argument(
        "--table", "--se-table", dest="se_table",
        help="the table whose rules to convert: with --from spark-expectations, the rules' "
        "table_name (needed when they name several); with --from odcs, the schema object",
    )  # fmt: skip
    _with_data(c)
    _spark(c)
    c.set_defaults(func=convert_command)


def _diff_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    d = _command(
        sub,
        "diff",
        "preview an edit: run an old and a new ruleset on the same data and compare",
        "Run the OLD and the NEW ruleset (YAML files or rule tables) on the same input in one "
        "pass and report, per rule, the rows that newly fail and newly pass (with samples), "
        "and the rows each would quarantine, drop and publish as valid.",
    )
    _source(d, "old")
    d.add_argument("new", help="the edited ruleset: a YAML file or rule tables")
    _input(d, True)
    d.add_argument("--where", help="compare only on the input rows matching this SQL condition")
    _reference(d)
    d.add_argument("--key", action="append", help="columns sample rows show (repeatable, a,b)")
    d.add_argument("--samples", type=count(0), default=5, help="sample rows per rule and direction")
    d.add_argument("--json", help="also write the preview as JSON to this file")
    _spark(d)
    d.set_defaults(func=diff_command)


def _release_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    r = _command(
        sub,
        "release",
        "release quarantined rows that the current rules pass",
        "Re-evaluate the RULESET over the rows run RUN_ID dropped into the QUARANTINE, with "
        "that run's VALID rows (rules over rows compare them), and move the rows that now fail "
        "no drop or fail rule into VALID, once: both outputs change in one atomic publication "
        "(local or file:// paths; not Delta or tables). A second release moves nothing.",
    )
    _source(r)
    r.add_argument("--quarantine", required=True, help="the quarantine output")
    r.add_argument("--valid", required=True, help="the valid output the rows go to")
    r.add_argument("--run-id", required=True, help="the run whose dropped rows are released")
    r.add_argument("--history", help="keep a release record in this history")
    r.add_argument("--output-format", default="parquet", help="the outputs' format")
    r.add_argument(
        "--where",
        help="release only the dropped rows matching this SQL condition (the others stay)",
    )
    r.add_argument(
        "--dry-run",
        action="store_true",
        help="say, rule by rule, what would move and what holds the rest back; move nothing",
    )
    r.add_argument("--json", help="also write the result as JSON to this file")
    _reference(r)
    _spark(r)
    r.set_defaults(func=release_command)


def _docs_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    d = _command(
        sub,
        "docs",
        "write a ruleset's documentation (.md or .html)",
        "Write the documentation of a ruleset: every rule with its text, description, action "
        "and the lambdas it calls, and every dataset, SQL and anomaly check and error rate.",
    )
    _source(d)
    _with_data(d)
    d.add_argument("--out", required=True, help="output file: .md or .html")
    d.add_argument(
        "--previous",
        help="an earlier version of the ruleset: the docs then list what changed since it",
    )
    d.add_argument(
        "--site-url",
        help="where the report site of the suite's runs is: rules and checks link "
        "to their pages there (report --site)",
    )
    d.add_argument(
        "--site-dataset",
        action="append",
        help="with --site-url: a TAG=VALUE that tells the dataset apart, as report "
        "--dataset-tag groups it (e.g. table=flights)",
    )
    _spark(d)
    d.set_defaults(func=docs_command)


def _schema_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    j = _command(
        sub,
        "schema",
        "print where the JSON Schema of rulesets is (editors complete and check with it)",
        "Print the path of the ruleset JSON Schema installed with this package. Put "
        "'# yaml-language-server: $schema=PATH' at the top of a ruleset for completion and "
        "inline errors in editors. --print writes the schema itself.",
    )
    j.add_argument("--print", action="store_true", help="print the schema, not its path")
    j.set_defaults(func=schema_command)


def _over_time_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = _command(
        sub,
        "profile",
        "profile data and suggest checks",
        "Profile the input in at most three passes, write suggested checks as a YAML ruleset "
        "(--suggest), and keep the profile in a history (--history).",
    )
    _input(p, True)
    p.add_argument("--where", help="profile only the rows matching this SQL condition")
    p.add_argument("--suggest", help="write the suggested ruleset (YAML) here")
    p.add_argument("--evaluate", action="store_true", help="test suggestions on held-out rows")
    p.add_argument(
        "--max-categories", type=count(1), default=120, help="value counts up to N values"
    )
    _history(p, "keep the profile in this history")
    p.add_argument("--suite", help="the suite the profile belongs with (e.g. 1.1)")
    _spark(p)
    p.set_defaults(func=profile_command)
    r = _command(
        sub,
        "report",
        "write the HTML report of a metrics history",
        "Write the report of the runs a metrics history holds: a static site of pages per "
        "dataset, run, rule and check (--site), or one self-contained HTML page (--out).",
    )
    r.add_argument("--history", required=True, help="the history (path or table:NAME)")
    r.add_argument("--out", help="the one-page HTML file to write")
    r.add_argument("--site", help="the folder of the site to write (replaced whole)")
    r.add_argument(
        "--rules", help="the ruleset (YAML or rule tables) whose rule texts the rule pages show"
    )
    r.add_argument(
        "--dataset-tag",
        action="append",
        help="site: a tag that tells datasets of one suite apart, e.g. table (repeat or "
        "comma-separate; by default each suite is one dataset and tags label its runs)",
    )
    r.add_argument("--since", help="only runs from this time (ISO date or time)")
    r.add_argument("--until", help="only runs before this time")
    r.add_argument("--title", default="Data quality report")
    _spark(r)
    r.set_defaults(func=report_command)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the command line; ``prog``: the program's name as invoked.

    >>> args = build_parser().parse_args(["validate", "rules.yaml", "--schema", "a INT"])
    >>> args.source, args.schema, args.master  # validate takes one or more rulesets
    (['rules.yaml'], 'a INT', None)
    """
    parser = argparse.ArgumentParser(
        prog=prog or program_name(),
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _run_parser(sub)
    _job_parser(sub)
    _rule_parsers(sub)
    _docs_parser(sub)
    _schema_parser(sub)
    _diff_parser(sub)
    _release_parser(sub)
    _over_time_parsers(sub)
    return parser


def program_name() -> str:
    """The name the program was invoked by (``python -m quality_py`` for the module).

    >>> import sys; saved = sys.argv[0]; sys.argv[0] = "/usr/bin/quality-py"
    >>> program_name()
    'quality-py'
    >>> sys.argv[0] = saved
    """
    import os
    import sys

    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name in ("", "__main__.py", "-c") or (name.endswith(".py") and "quality_py" in sys.argv[0]):
        return "python -m quality_py"
    return name
