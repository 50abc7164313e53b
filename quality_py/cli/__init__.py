"""The command line of quality_py (``python -m quality_py`` / ``quality-py``).

One module per command group (``run.py``; ``rules.py``: validate, explain, docs; ``convert.py``;
``over_time.py``: profile, report), what they share in ``common.py``, and the parser in
``parser.py``. No module below this package imports it; the command modules import
``common`` and never each other.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from quality_py.cli.common import spark_error
from quality_py.cli.parser import build_parser
from quality_py.errors import QualityError, escape_text

__all__ = ["build_parser", "main"]


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
        message = spark_error(err)
        if message is None or os.environ.get("QP_TRACEBACK"):
            raise
        print(
            f"error: Spark stopped the command: {escape_text(message)} (QP_TRACEBACK=1 shows "
            "the whole error)",
            file=sys.stderr,
        )
        return 2
