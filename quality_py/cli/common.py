"""What the commands share: the Spark session, reading inputs and reference data, the rule
policy of a command, the ruleset, tags and keys. Every name here is public to the package's
command modules; none of them imports another command module."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quality_py.actions.notify import JsonLinesNotifier, WebhookNotifier
from quality_py.errors import InputError, QualityError
from quality_py.gate import reads
from quality_py.gate.locations import has_scheme, local_path
from quality_py.io.blooms import Bloom, read_bloom, register_bloom
from quality_py.io.ruleset_file import is_yaml, load_ruleset_file
from quality_py.io.variables import parse_assignments
from quality_py.io.views import bloom_files, load_view_file, load_views
from quality_py.model.policy import RulePolicy
from quality_py.model.types import SparkSession
from quality_py.progress import step
from quality_py.spark.capabilities import has_delta
from quality_py.spark.hardening import check_session
from quality_py.spark.samples import SAMPLE_VIEWS, SAMPLES, load_sample
from quality_py.spark.session import is_connect, job_session, supplied_by_environment
from quality_py.sql.compiler import compile_suite
from quality_py.version import __version__

if TYPE_CHECKING:
    from quality_py.dataset.checks import Check
    from quality_py.model.policy import RulePolicy
    from quality_py.model.rules import RuleSuite
    from quality_py.sql.compiler import CompiledSuite


def session(args: argparse.Namespace) -> SparkSession:
    """The command's session: the Spark the environment supplies (``--remote``, ``SPARK_REMOTE``,
    spark-submit, a Databricks runtime) or a local one (``--master``, else ``local[2]``), with
    ``--conf`` settings; a setting the server refuses is a warning, not a failure."""
    conf = dict(pair_values(getattr(args, "conf", None), "--conf"))
    spark, refused = job_session(master=args.master, remote=args.remote, conf=conf, say=progress)
    for warning in refused:
        print(f"warning: {warning}", file=sys.stderr)
    if not (is_connect(spark) or supplied_by_environment() or os.environ.get("QP_TRACEBACK")):
        # a failing task logs its Java stack at ERROR; the command reports every failure itself
        # in one paragraph, so only fatal JVM logs reach the terminal
        spark.sparkContext.setLogLevel("FATAL")
    return spark


def pair_values(pairs: Sequence[str] | None, option: str) -> list[tuple[str, str]]:
    """``KEY=VALUE`` options as pairs; one without ``=`` or a key stops the command.

    >>> pair_values(["a=1", "b=x=y"], "--conf")
    [('a', '1'), ('b', 'x=y')]
    """
    out = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{option} takes KEY=VALUE, not {pair!r}", item_kind="option")
        out.append((key.strip(), value))
    return out


#: Input formats by file suffix; anything else (a folder, ``.parquet``) is parquet.
_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json.gz": "json",
}


FORMATS = ("parquet", "csv", "json", "delta", "orc")
#: ``--output-format``: what a quality run's outputs are written as (actions.outputs).
OUTPUT_FORMATS = ("auto", "parquet", "delta")
#: A table named without ``table:``: two or three dotted parts (``schema.table``,
#: ``catalog.schema.table``), no path separators, no file suffix.
_TABLE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*){1,2}$")
_FILE_SUFFIXES = (".parquet", ".csv", ".json", ".jsonl", ".ndjson", ".gz", ".orc", ".txt", ".yaml")


def input_table(source: str) -> str | None:
    """The table ``source`` names (``table:NAME``, or ``catalog.schema.table`` that is no
    existing path), or None for a path.

    >>> input_table("main.sales.orders"), input_table("table:orders"), input_table("data/x")
    ('main.sales.orders', 'orders', None)
    >>> input_table("flights.parquet") is None
    True
    """
    if source.startswith("table:"):
        return source[len("table:") :]
    looks_like_table = _TABLE.match(source) and not source.lower().endswith(_FILE_SUFFIXES)
    return source if looks_like_table and not Path(source).exists() else None


def input_format(source: str, fmt: str | None) -> str:
    if fmt:
        return fmt
    lowered = source.lower()
    return next((f for s, f in _SUFFIX_FORMATS.items() if lowered.endswith(s)), "parquet")


def read_input(spark: SparkSession, source: str, fmt: str | None) -> Any:
    """Read an input; a missing path or an unreadable format is an :class:`InputError`."""
    progress(f"reading {source}")
    if source.startswith("sample:"):
        name = source.split(":", 1)[1]
        if name not in SAMPLES:
            raise InputError(
                f"unknown sample {name!r}; known: {', '.join(SAMPLES)}", item_kind="input"
            )
        return load_sample(spark, name)
    table = input_table(source)
    if table is not None:
        return _read_table(spark, table)
    if not has_scheme(source) and not Path(source).exists():
        raise InputError(
            f"input {source} does not exist (a table is named catalog.schema.table or table:NAME)",
            item_kind="input",
        )
    kind = input_format(source, fmt)
    if fmt is None and kind == "parquet" and _is_delta(spark, source):
        kind = "delta"  # read as parquet, a Delta folder would also give its removed rows
    options = {"header": True, "inferSchema": True} if kind == "csv" else None
    try:
        frame = reads.files(spark, kind, source, options=options)
        frame.schema  # noqa: B018 - a wrong format fails here, before any rule runs
    except Exception as err:
        if spark_error(err) is None:
            raise
        raise InputError(
            f"cannot read {source} as {kind}: {spark_error(err)}; give --format "
            f"{'|'.join(FORMATS)} when the file name's suffix does not say what it holds",
            item_kind="input",
        ) from None
    if not frame.columns:
        raise InputError(f"input {source} has no columns (read as {kind})", item_kind="input")
    return frame


def _is_delta(spark: SparkSession, source: str) -> bool:
    """Whether the folder ``source`` holds a Delta table: its log, on this machine; elsewhere,
    asked of a server that has Delta."""
    local = local_path(source)
    if local is not None:
        return (local / "_delta_log").is_dir()
    if not has_delta(spark):
        return False
    try:
        reads.files(spark, "delta", source).schema  # noqa: B018 - analysed on the server
    except Exception:
        return False
    return True


def _read_table(spark: SparkSession, name: str) -> Any:
    try:
        frame = reads.table(spark, name)
        frame.schema  # noqa: B018 - a missing table fails here, before any rule runs
    except Exception as err:
        if spark_error(err) is None:
            raise
        raise InputError(
            f"cannot read the table {name}: {spark_error(err)}", item_kind="input"
        ) from None
    return frame


def spark_error(err: BaseException) -> str | None:
    """The message of a Spark or Py4J error in one line, or None for any other exception."""

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


def register_views(spark: SparkSession, views: Sequence[str], fmt: str | None) -> list[str]:
    names = []
    for item in views:
        name, _, path = item.partition("=")
        if not name or not path:
            raise InputError(f"--view takes NAME=PATH, not {item!r}", item_kind="option")
        read_input(spark, path, fmt).createOrReplaceTempView(name)
        names.append(name)
    return names


def declared_reference(args: argparse.Namespace) -> Any:
    """The views and maps of ``--views FILE`` (YAML), read before any Spark session."""
    if not getattr(args, "views", None):
        return (), ()
    return load_view_file(args.views)


def declared_blooms(args: argparse.Namespace) -> list[Any]:
    """The blooms of ``--views FILE``, read (checksums checked) before any Spark session."""
    if not getattr(args, "views", None):
        return []
    cached = getattr(args, "_blooms", None)
    if cached is None:
        from dataclasses import replace

        cached = []
        for name, file in bloom_files(args.views):
            bloom = read_bloom(file)
            cached.append(Bloom(replace(bloom.spec, name=name), bloom.words))
        args._blooms = cached
    return list(cached)


def reference_names(args: argparse.Namespace) -> list[str]:
    """Every view a command's rules may read: ``--view NAME=PATH`` and ``--views FILE``."""
    views, maps = declared_reference(args)
    named = [v.partition("=")[0] for v in getattr(args, "view", None) or []]
    return [*named, *(v.name for v in views), *(m.name for m in maps)]


def load_reference(spark: SparkSession, args: argparse.Namespace) -> list[str]:
    """Register ``--view`` files and load ``--views`` declarations; the names registered."""
    names = register_views(spark, getattr(args, "view", None) or [], args.format)
    views, maps = declared_reference(args)
    if views or maps:
        names += list(load_views(spark, views, maps).names)
    for bloom in declared_blooms(args):
        register_bloom(spark, bloom)
    return names


def policy_for(args: argparse.Namespace, views: Sequence[str]) -> RulePolicy:
    """The safe policy; rules may read only the views this command registered."""
    source = getattr(args, "input", None) or ""
    sample = SAMPLE_VIEWS.get(source.split(":", 1)[1], ()) if source.startswith("sample:") else ()
    blooms = [b.spec for b in declared_blooms(args)]
    return RulePolicy().with_views(*views, *sample).with_blooms(*blooms)


def warn_if_unhardened(spark: SparkSession) -> None:
    hardening = check_session(spark)
    if not hardening.hardened:
        print(f"warning: {hardening.describe()}", file=sys.stderr)


def compile_early(suite: RuleSuite) -> CompiledSuite | None:
    """Rule errors before a JVM starts or data is read; the run reuses this compile (a suite
    with meta rule sets needs the data's schema, so it is compiled by the run only)."""
    return None if suite.meta_rule_sets else compile_suite(suite)


def run_inputs(args: argparse.Namespace) -> tuple[Any, Any, SparkSession]:
    """The ruleset (every section, from one read), its early compilation and the session of
    ``run``. A YAML ruleset is read and compiled before Spark starts (errors come first); rule
    tables are read with the session."""
    from dataclasses import replace

    spark = None
    if not is_yaml(args.ruleset):
        spark = session(args)
        progress(f"reading the rule tables of {args.ruleset}")
    ruleset = load_ruleset_file(
        args.ruleset, spark=spark, suite=args.suite, others=others(args), variables=variables(args)
    )
    suite = ruleset.suite.with_policy(policy_for(args, reference_names(args)))
    compiled = compile_early(suite)
    checked = "checked" if compiled is not None else "read"
    progress(f"{suite.rule_count} rules of {args.ruleset} {checked}")
    return replace(ruleset, suite=suite), compiled, spark or session(args)


def progress(message: str) -> None:
    """A step of a long command, on stderr with the time."""
    step(message)


def keys(values: list[str] | None) -> tuple[str, ...]:
    """``--key a,b --key c`` as ``("a", "b", "c")``."""
    return tuple(k.strip() for v in values or () for k in v.split(",") if k.strip())


def tags(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--tag K=V`` options as a mapping."""
    return dict(pair_values(pairs, "--tag"))


def notifiers(args: argparse.Namespace) -> list[Any]:
    """``--notify PATH`` (JSON lines) and ``--webhook URL`` notifiers."""
    out: list[Any] = [JsonLinesNotifier(p) for p in args.notify or ()]
    out += [WebhookNotifier(u) for u in args.webhook or ()]
    return out


def others(args: argparse.Namespace) -> dict[str, str | None]:
    """``--lambdas`` / ``--outputs`` / ``--meta-rule-sets`` tables next to a rules table."""
    return {
        "lambdas": getattr(args, "lambdas", None),
        "outputs": getattr(args, "outputs", None),
        "meta_rule_sets": getattr(args, "meta_rule_sets", None),
    }


def variables(args: argparse.Namespace) -> dict[str, str]:
    """``--var NAME=VALUE`` options as a mapping (``${NAME}`` in a YAML ruleset)."""
    return parse_assignments(getattr(args, "var", None) or [])


def load_suite_and_checks(
    source: str,
    suite: str | None,
    spark: SparkSession | None,
    others: dict[str, str | None] | None = None,
    variables: dict[str, str] | None = None,
) -> tuple[RuleSuite, tuple[Check, ...]]:
    """A suite and, from YAML, its dataset checks (rule tables hold no checks)."""
    ruleset = load_ruleset_file(
        source, spark=spark, suite=suite, others=others, variables=variables
    )
    return ruleset.suite, ruleset.checks


def load_suite(
    source: str,
    suite: str | None,
    spark: SparkSession | None,
    others: dict[str, str | None] | None = None,
    variables: dict[str, str] | None = None,
) -> RuleSuite:
    """A suite from a YAML file or from rule tables (:mod:`quality_py.io.rule_sources`)."""
    return load_ruleset_file(
        source, spark=spark, suite=suite, others=others, variables=variables
    ).suite


def schema_of(args: argparse.Namespace, spark: SparkSession) -> Any:
    if getattr(args, "schema", None):
        return spark.createDataFrame([], args.schema).schema
    if getattr(args, "input", None):
        return read_input(spark, args.input, args.format)
    return None


def write_json(path: str, document: dict[str, Any]) -> None:
    """``document`` to ``path`` whole or not at all (written beside it, then renamed), so that an
    orchestrator never reads half a result.

    >>> import json, tempfile; folder = tempfile.mkdtemp()
    >>> write_json(f"{folder}/r.json", {"status": "success"})
    >>> json.load(open(f"{folder}/r.json"))
    {'status': 'success'}
    """
    import json

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(temporary, target)


def error_document(command: str, err: BaseException, code: int) -> dict[str, Any]:
    """The ``--json`` result of a command that stopped with ``err`` (exit ``code``)."""
    return {
        "command": command,
        "status": "error",
        "exit_code": code,
        "error": {
            "code": getattr(err, "code", None) if isinstance(err, QualityError) else None,
            "type": type(err).__name__,
            "message": str(getattr(err, "message", err)),
        },
        "quality_py": __version__,
    }


def session_facts(spark: SparkSession) -> dict[str, Any]:
    """What a ``--json`` result says of the Spark a command ran on."""
    try:
        master = spark.conf.get("spark.master", None)
    except Exception:  # a server that will not tell
        master = None
    return {"version": str(spark.version), "master": master, "connect": is_connect(spark)}
