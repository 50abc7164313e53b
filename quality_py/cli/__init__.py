"""The command line of quality_py (``python -m quality_py`` / ``quality-py``).

One module per command group (``run.py``; ``rules.py``: validate, explain, docs; ``convert.py``;
``over_time.py``: profile, report), what they share in ``common.py``, and the parser in
``parser.py``. No module below this package imports it; the command modules import
``common`` and never each other.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence

from quality_py.cli.common import error_document, spark_error, write_json
from quality_py.cli.parser import build_parser
from quality_py.cli.places import require_separate
from quality_py.errors import (
    OutputOverlapError,
    QualityError,
    SparkUnavailableError,
    escape_text,
)
from quality_py.spark.session import NO_SPARK_HINT
from quality_py.version import __version__

__all__ = ["build_parser", "main"]


#: The exit codes (documented in ``--help`` and docs/cli.md).
SUCCESS, FAILED, USER_ERROR, WARNINGS, SPARK_ERROR, INTERNAL_ERROR = 0, 1, 2, 3, 4, 70


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (see ``--help``).

    A user's mistake (bad rules, a missing file, an unreadable input, a check on a missing
    column) prints one paragraph and exits 2; Spark that cannot be had or that stops the command
    exits 4; anything else is a bug of ours: its traceback is printed and the exit is 70.
    ``QP_TRACEBACK=1`` shows the traceback of every error.
    """
    args = build_parser().parse_args(argv)
    quiet_query_context_loggers()
    try:
        require_separate(args)  # before anything is read or written
        return int(args.func(args))
    except BaseException as err:
        code = _failed(err)
        overlap = isinstance(err, OutputOverlapError)  # the --json may be what it protects
        if getattr(args, "json", None) and code not in (SUCCESS, FAILED) and not overlap:
            try:
                write_json(args.json, error_document(args.command, err, code))
            except OSError as lost:
                print(f"error: cannot write {args.json}: {lost.strerror or lost}", file=sys.stderr)
        return code


#: pyspark's loggers that write each failed analysis as a JSON record holding the JVM's stack
#: trace to stderr (``pyspark/errors/exceptions/base.py``, ``_log_exception``).
QUERY_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


def quiet_query_context_loggers() -> None:
    """Switch off pyspark's query-context loggers for a command: the error they record reaches
    the user as our one paragraph (the rule, its text, Spark's message), not as tens of
    kilobytes of JSON before it. pyspark 3.5 has no such loggers."""
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:
        return
    for name in QUERY_CONTEXT_LOGGERS:
        PySparkLogger.getLogger(name).disabled = True


def _failed(err: BaseException) -> int:
    """The exit code of a command that raised ``err``, after telling the user why."""
    try:
        raise err
    except SparkUnavailableError as err:
        return _report(err, f"error: {escape_text(err.message)}", SPARK_ERROR)
    except QualityError as err:
        return _report(err, f"error: {escape_text(str(err))}", USER_ERROR)
    except OSError as err:  # a ruleset or output path the command cannot open
        where = f" {err.filename}" if getattr(err, "filename", None) else ""
        return _report(err, f"error: cannot use{where}: {err.strerror or err}", USER_ERROR)
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in ("pyspark", "py4j"):
            return _internal(err)
        return _report(err, f"error: {NO_SPARK_HINT} ({err})", SPARK_ERROR)
    except Exception as err:
        message = spark_error(err)
        if message is None:
            return _internal(err)
        analysis = any(k.__name__ == "AnalysisException" for k in type(err).__mro__)
        return _report(
            err,
            f"error: Spark stopped the command: {escape_text(message)} (QP_TRACEBACK=1 shows "
            "the whole error)",
            USER_ERROR if analysis else SPARK_ERROR,
        )


def _report(err: BaseException, line: str, code: int) -> int:
    if os.environ.get("QP_TRACEBACK"):
        raise err
    print(line, file=sys.stderr)
    return code


def _internal(err: BaseException) -> int:
    """A bug of ours: the whole traceback, and what to do with it."""
    traceback.print_exception(type(err), err, err.__traceback__, file=sys.stderr)
    print(
        f"internal error of quality_py {__version__} ({type(err).__name__}): a bug, not a "
        "mistake of yours; please report it with the lines above",
        file=sys.stderr,
    )
    return INTERNAL_ERROR
