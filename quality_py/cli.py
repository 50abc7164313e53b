"""Command line of quality_py.

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

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quality_py.errors import QualityError, escape_text
from quality_py.io.views import filter_sql
from quality_py.model.types import SparkSession


def _session(master: str, remote: str | None) -> Any:
    if remote:
        from pyspark.sql import SparkSession

        return SparkSession.builder.remote(remote).getOrCreate()
    from quality_py.spark.session import local_session

    # the command's own session is hardened: rule text can name no file through SQL
    spark = local_session(master, conf={"spark.sql.runSQLOnFiles": "false"})
    if not os.environ.get("QP_TRACEBACK"):
        # a failing task logs its Java stack at ERROR; the command reports every failure itself
        # in one paragraph, so only fatal JVM logs reach the terminal
        spark.sparkContext.setLogLevel("FATAL")
    return spark


#: Input formats by file suffix; anything else (a folder, ``.parquet``) is parquet.
_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json.gz": "json",
}
FORMATS = ("parquet", "csv", "json")


def _input_format(source: str, fmt: str | None) -> str:
    if fmt:
        return fmt
    lowered = source.lower()
    return next((f for s, f in _SUFFIX_FORMATS.items() if lowered.endswith(s)), "parquet")


def _read_input(spark: SparkSession, source: str, fmt: str | None) -> Any:
    """Read an input; a missing path or an unreadable format is an :class:`InputError`."""
    from quality_py.errors import InputError

    if source.startswith("sample:"):
        from quality_py.spark.samples import SAMPLES, load_sample

        name = source.split(":", 1)[1]
        if name not in SAMPLES:
            raise InputError(
                f"unknown sample {name!r}; known: {', '.join(SAMPLES)}", item_kind="input"
            )
        return load_sample(spark, name)
    if "://" not in source and not Path(source).exists():
        raise InputError(f"input {source} does not exist", item_kind="input")
    kind = _input_format(source, fmt)
    reader = spark.read
    if kind == "csv":
        reader = reader.option("header", True).option("inferSchema", True)
    try:
        frame = reader.format(kind).load(source)
        frame.schema  # noqa: B018 - a wrong format fails here, before any rule runs
    except Exception as err:
        if _spark_error(err) is None:
            raise
        raise InputError(
            f"cannot read {source} as {kind}: {_spark_error(err)}; give --format "
            f"{'|'.join(FORMATS)} when the file name's suffix does not say what it holds",
            item_kind="input",
        ) from None
    if not frame.columns:
        raise InputError(f"input {source} has no columns (read as {kind})", item_kind="input")
    return frame


def _spark_error(err: BaseException) -> str | None:
    """The message of a Spark or Py4J error in one line, or None for any other exception."""
    import re

    kinds = {k.__name__ for k in type(err).__mro__}
    spark_kinds = {"PySparkException", "Py4JJavaError", "Py4JError", "CapturedException"}
    if not kinds & spark_kinds:
        return None
    lines = [ln.strip() for ln in str(err).strip().splitlines() if ln.strip()]
    if lines and lines[0].startswith("An error occurred while calling") and len(lines) > 1:
        lines = lines[1:]  # Py4J's own first line names a JVM object, not the problem
    first = lines[0].lstrip(": ") if lines else type(err).__name__
    first = re.sub(r"^([\w.$]+(Exception|Error)): ", "", first)  # the Java class name
    return first[:400]


def _register_views(spark: SparkSession, views: Sequence[str], fmt: str | None) -> list[str]:
    names = []
    for item in views:
        name, _, path = item.partition("=")
        if not name or not path:
            raise SystemExit(f"--view expects NAME=PATH, got {item!r}")
        _read_input(spark, path, fmt).createOrReplaceTempView(name)
        names.append(name)
    return names


def _declared_reference(args: argparse.Namespace) -> Any:
    """The views and maps of ``--views FILE`` (YAML), read before any Spark session."""
    if not getattr(args, "views", None):
        return (), ()
    from quality_py.io.views import load_view_file

    return load_view_file(args.views)


def _declared_blooms(args: argparse.Namespace) -> list[Any]:
    """The blooms of ``--views FILE``, read (checksums checked) before any Spark session."""
    if not getattr(args, "views", None):
        return []
    cached = getattr(args, "_blooms", None)
    if cached is None:
        from dataclasses import replace

        from quality_py.io.blooms import Bloom, read_bloom
        from quality_py.io.views import bloom_files

        cached = []
        for name, file in bloom_files(args.views):
            bloom = read_bloom(file)
            cached.append(Bloom(replace(bloom.spec, name=name), bloom.words))
        args._blooms = cached
    return list(cached)


def _reference_names(args: argparse.Namespace) -> list[str]:
    """Every view a command's rules may read: ``--view NAME=PATH`` and ``--views FILE``."""
    views, maps = _declared_reference(args)
    named = [v.partition("=")[0] for v in getattr(args, "view", None) or []]
    return [*named, *(v.name for v in views), *(m.name for m in maps)]


def _load_reference(spark: SparkSession, args: argparse.Namespace) -> list[str]:
    """Register ``--view`` files and load ``--views`` declarations; the names registered."""
    from quality_py.io.views import load_views

    names = _register_views(spark, getattr(args, "view", None) or [], args.format)
    views, maps = _declared_reference(args)
    if views or maps:
        names += list(load_views(spark, views, maps).names)
    from quality_py.io.blooms import register_bloom

    for bloom in _declared_blooms(args):
        register_bloom(spark, bloom)
    return names


def _policy(args: argparse.Namespace, views: Sequence[str]) -> Any:
    """The safe policy; rules may read only the views this command registered."""
    from quality_py.model.policy import RulePolicy
    from quality_py.spark.samples import SAMPLE_VIEWS

    source = getattr(args, "input", None) or ""
    sample = SAMPLE_VIEWS.get(source.split(":", 1)[1], ()) if source.startswith("sample:") else ()
    blooms = [b.spec for b in _declared_blooms(args)]
    return RulePolicy().with_views(*views, *sample).with_blooms(*blooms)


def _warn_if_unhardened(spark: SparkSession) -> None:
    from quality_py.spark.hardening import check_session

    hardening = check_session(spark)
    if not hardening.hardened:
        print(f"warning: {hardening.describe()}", file=sys.stderr)


def _compile_early(suite: Any) -> Any:
    """Rule errors before a JVM starts or data is read; the run reuses this compile (a suite
    with meta rule sets needs the data's schema, so it is compiled by the run only)."""
    from quality_py.sql.compiler import compile_suite

    return None if suite.meta_rule_sets else compile_suite(suite)


def _run_inputs(args: argparse.Namespace) -> tuple[Any, Any, SparkSession]:
    """The ruleset (every section, from one read), its early compilation and the session of
    ``run``. A YAML ruleset is read and compiled before Spark starts (errors come first); rule
    tables are read with the session."""
    from dataclasses import replace

    from quality_py.io.ruleset_file import load_ruleset_file

    spark = None
    if not _is_yaml(args.ruleset):
        spark = _session(args.master, args.remote)
        _progress(f"reading the rule tables of {args.ruleset}")
    ruleset = load_ruleset_file(args.ruleset, spark=spark, suite=args.suite, others=_others(args))
    suite = ruleset.suite.with_policy(_policy(args, _reference_names(args)))
    compiled = _compile_early(suite)
    return replace(ruleset, suite=suite), compiled, spark or _session(args.master, args.remote)


def _progress(message: str) -> None:
    """A step of a long command, on stderr with the time."""
    from quality_py.progress import step

    step(message)


def quality_run(args: argparse.Namespace) -> int:
    """``run`` with ``--valid`` / ``--quarantine`` / ``--stats``: a quality run with actions."""
    from quality_py.actions import QualityRunFailed, run_quality
    from quality_py.dataset.checks import format_verification
    from quality_py.runners.summary import format_summary

    ruleset, compiled, spark = _run_inputs(args)
    suite, checks = ruleset.suite, ruleset.checks
    _warn_if_unhardened(spark)
    started = time.perf_counter()
    _load_reference(spark, args)
    df = _read_input(spark, args.input, args.format)
    if args.where:  # through the rule policy, as every SQL text we accept
        df = df.where(filter_sql(args.where, what="--where", policy=suite.policy))
    history, anomalies = _history(args, spark, ruleset.anomaly_checks)
    try:
        run = run_quality(
            df,
            suite,
            checks,
            args.run_id,
            name=args.name,
            layout=args.layout,
            compiled=compiled,
            history=history,
            tags=_tags(args.tag),
            anomaly_checks=anomalies,
            sql_checks=ruleset.sql_checks,
            error_rates=ruleset.error_rates,
            notifiers=_notifiers(args),
            keys=_keys(args.key),
        )
        from quality_py.progress import watching

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


def _keys(values: list[str] | None) -> tuple[str, ...]:
    """``--key a,b --key c`` as ``("a", "b", "c")``."""
    return tuple(k.strip() for v in values or () for k in v.split(",") if k.strip())


def _tags(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--tag K=V`` options as a mapping."""
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--tag takes KEY=VALUE, not {pair!r}")
        out[key] = value
    return out


def _notifiers(args: argparse.Namespace) -> list[Any]:
    """``--notify PATH`` (JSON lines) and ``--webhook URL`` notifiers."""
    from quality_py.actions.notify import JsonLinesNotifier, WebhookNotifier

    out: list[Any] = [JsonLinesNotifier(p) for p in args.notify or ()]
    out += [WebhookNotifier(u) for u in args.webhook or ()]
    return out


def _history(
    args: argparse.Namespace, spark: SparkSession, anomalies: tuple[Any, ...]
) -> tuple[Any, tuple[Any, ...]]:
    """The run's metrics repository (``--history``) and the ruleset's anomaly checks."""
    from quality_py.history import open_repository

    if not args.history:
        if anomalies:
            print(
                f"note: {len(anomalies)} anomaly check(s) need a history (--history): not judged",
                file=sys.stderr,
            )
        return None, ()
    return open_repository(args.history, spark), anomalies


def run(args: argparse.Namespace) -> int:
    """The ``run`` command."""
    if args.valid or args.quarantine or args.stats or args.history:
        return quality_run(args)
    if not args.output:
        raise SystemExit("run: give --output, or --valid/--quarantine/--stats for a quality run")
    from pyspark.sql import Observation

    from quality_py.dataset.checks import format_verification
    from quality_py.dataset.observe import observe_checks
    from quality_py.runners.data_quality import add_data_quality
    from quality_py.runners.summary import format_summary, stats_from_row, summary_columns

    ruleset, compiled, spark = _run_inputs(args)
    suite, checks = ruleset.suite, ruleset.checks
    _warn_if_unhardened(spark)
    started = time.perf_counter()
    _load_reference(spark, args)
    df = _read_input(spark, args.input, args.format)
    if args.where:  # through the rule policy, as every SQL text we accept
        df = df.where(filter_sql(args.where, what="--where", policy=suite.policy))
    checked = add_data_quality(df, suite, args.name, layout=args.layout, compiled=compiled)
    from quality_py.runners.summary import layout_of

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


from quality_py.cli_tables import (  # noqa: E402 - the commands above use them at run time
    _is_yaml,
    _load_suite,
    _load_suite_and_checks,
    _others,
    convert_command,
)


def _schema(args: argparse.Namespace, spark: SparkSession) -> Any:
    if getattr(args, "schema", None):
        return spark.createDataFrame([], args.schema).schema
    if getattr(args, "input", None):
        return _read_input(spark, args.input, args.format)
    return None


def validate_command(args: argparse.Namespace) -> int:
    """The ``validate`` command: exit 1 when there is an error."""
    from quality_py.validation import validate

    spark = _session(args.master, args.remote)
    views = _load_reference(spark, args)
    suite, checks = _load_suite_and_checks(args.source, args.suite, spark, _others(args))
    suite = suite.with_policy(_policy(args, views))
    schema = _schema(args, spark)
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
    from quality_py.runners.explain import explain_rules

    needs_spark = not _is_yaml(args.source) or bool(args.schema or args.input)
    spark = _session(args.master, args.remote) if needs_spark else None
    suite = _load_suite(args.source, args.suite, spark, _others(args))
    frame = None
    if spark is not None and (args.schema or args.input):
        views = _load_reference(spark, args)
        suite = suite.with_policy(_policy(args, views))
        schema = _schema(args, spark)
        frame = schema if hasattr(schema, "limit") else spark.createDataFrame([], schema)
    rule_id = _rule_id(args.rule) if args.rule else None
    for explanation in explain_rules(suite, frame, rule_id, mode=args.mode):
        print(explanation.format())
    return 0


def _rule_id(text: str) -> Any:
    """``ID`` (any version) or ``ID.VERSION``."""
    from quality_py.errors import ModelError
    from quality_py.model.ids import Id

    parts = text.split(".")
    if not all(p.strip().lstrip("-").isdigit() for p in parts) or len(parts) > 2:
        raise ModelError(f"--rule takes ID or ID.VERSION, not {text!r}", code="INVALID_ID")
    return Id(int(parts[0]), int(parts[1])) if len(parts) == 2 else int(parts[0])


def docs_command(args: argparse.Namespace) -> int:
    """The ``docs`` command: Markdown or HTML by the output's suffix."""
    from pathlib import Path

    from quality_py.docgen import to_html, to_markdown

    spark = (
        None
        if _is_yaml(args.source) and not (args.schema or args.input)
        else _session(args.master, args.remote)
    )
    suite = _load_suite(args.source, args.suite, spark, _others(args))
    report = None
    if spark is not None and (args.schema or args.input):
        from quality_py.validation import validate

        views = _load_reference(spark, args)
        report = validate(
            suite.with_policy(_policy(args, views)), _schema(args, spark), spark=spark
        )
    out = Path(args.out)
    render = to_html if out.suffix.lower() in (".html", ".htm") else to_markdown
    out.write_text(render(suite, report), encoding="utf-8")
    print(f"wrote {out}")
    return 0


_SOURCE_HELP = (
    "YAML ruleset, or rule tables: rules.csv (a spreadsheet export), a parquet or Delta folder, "
    "a folder of tables, or table:NAME"
)


def _table_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lambdas", help="the lambdas table (same forms as the rules table)")
    p.add_argument("--outputs", help="the output expressions table")
    p.add_argument("--meta-rule-sets", help="the meta rule sets table")


def _common(p: argparse.ArgumentParser, schema: bool) -> None:
    p.add_argument("source", help=_SOURCE_HELP)
    p.add_argument("--suite", help="ID or ID.VERSION of the suite to use from tables")
    _table_options(p)
    if schema:
        p.add_argument("--schema", help="the data's schema as DDL, e.g. 'a INT, b STRING'")
        p.add_argument("--input", help="take the schema from this parquet/CSV (or sample:...)")
        p.add_argument("--format", choices=FORMATS, help="input format")
        p.add_argument("--view", action="append", help="register NAME=PATH for lookups")
        p.add_argument("--views", help="YAML of reference views and lookup maps to load")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--remote", help="Spark Connect URL instead of a local session")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m quality_py``."""
    parser = argparse.ArgumentParser(prog="python -m quality_py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="add the DataQuality column, write it, print per-rule counts")
    r.add_argument("ruleset", help=_SOURCE_HELP)
    r.add_argument("--suite", help="ID or ID.VERSION of the suite to use from tables")
    _table_options(r)
    r.add_argument("--input", required=True, help="parquet/CSV path, or sample:flights")
    r.add_argument("--output", help="write the data with the DataQuality column here (parquet)")
    r.add_argument("--valid", help="quality run: write rows passing drop rules here")
    r.add_argument("--quarantine", help="quality run: write failing rows with reasons here")
    r.add_argument("--stats", help="quality run: write the run's stats here")
    r.add_argument("--run-id", help="quality run id (re-running an id replaces its outputs)")
    r.add_argument("--where", help="check only the input rows matching this SQL condition")
    r.add_argument("--history", help="quality run: keep its metrics here (path or table:NAME)")
    r.add_argument("--tag", action="append", help="quality run: tag its metrics KEY=VALUE")
    r.add_argument(
        "--key",
        action="append",
        help="quality run: a column identifying a row, shown for sample failing rows "
        "(repeat or comma-separate; default: the first three columns)",
    )
    r.add_argument("--notify", action="append", help="quality run: append events (JSON lines)")
    r.add_argument("--webhook", action="append", help="quality run: POST events to this URL")
    r.add_argument("--format", choices=FORMATS, help="input format (default: by suffix)")
    r.add_argument("--layout", choices=["map", "compact"], default="map")
    r.add_argument("--name", default="DataQuality", help="name of the result column")
    r.add_argument("--view", action="append", help="register NAME=PATH as a view for subqueries")
    r.add_argument("--views", help="YAML of reference views and lookup maps to load first")
    r.add_argument("--master", default="local[2]")
    r.add_argument("--remote", help="Spark Connect URL instead of a local session")
    r.set_defaults(func=run)
    v = sub.add_parser("validate", help="report every problem of a suite; exit 1 on errors")
    _common(v, schema=True)
    v.add_argument("--sample", type=int, default=0, help="also run on N rows of --input")
    v.set_defaults(func=validate_command)
    d = sub.add_parser("docs", help="write documentation (.md or .html)")
    _common(d, schema=True)
    d.add_argument("--out", required=True, help="output file: .md or .html")
    d.set_defaults(func=docs_command)
    e = sub.add_parser("explain", help="show each rule's compiled SQL (and Spark's plan)")
    _common(e, schema=True)
    e.add_argument("--rule", help="only this rule: ID or ID.VERSION")
    e.add_argument(
        "--mode",
        default="simple",
        choices=["simple", "extended", "codegen", "cost", "formatted"],
        help="Spark's explain mode for the plan (with --input or --schema)",
    )
    e.set_defaults(func=explain_command)
    c = sub.add_parser("convert", help="YAML ruleset <-> folder of rule tables")
    _common(c, schema=False)
    c.add_argument("dest", help="a .yaml file or a folder for the tables")
    c.add_argument(
        "--rules-only",
        action="store_true",
        help="to tables: write the rules and leave behind what tables cannot hold (checks, "
        "anomaly and SQL checks, error rates, suite and rule set descriptions); without it "
        "such a ruleset is refused",
    )
    c.set_defaults(func=convert_command)
    from quality_py.cli_over_time import add_parsers

    add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code.

    A user's mistake (bad rules, a missing file, an unreadable input, a check on a missing
    column) prints one paragraph and exits 2; ``QP_TRACEBACK=1`` shows the traceback too.
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except QualityError as err:
        if os.environ.get("QP_TRACEBACK"):
            raise
        print(f"error: {escape_text(str(err))}", file=sys.stderr)
        return 2
    except OSError as err:  # a ruleset or output path the command cannot open
        if os.environ.get("QP_TRACEBACK"):
            raise
        where = f" {err.filename}" if getattr(err, "filename", None) else ""
        print(f"error: cannot use{where}: {err.strerror or err}", file=sys.stderr)
        return 2
    except Exception as err:
        message = _spark_error(err)
        if message is None or os.environ.get("QP_TRACEBACK"):
            raise
        print(
            f"error: Spark stopped the command: {escape_text(message)} (QP_TRACEBACK=1 shows "
            "the whole error)",
            file=sys.stderr,
        )
        return 2
