"""The sqlglot dialect rules are read and written in: Spark, with ``SET`` not a keyword.

Spark's grammar only treats ``SET`` as a statement keyword at the start of a statement; inside an
expression ``set(a = 1)`` is the folder's update sugar. sqlglot's tokenizer would turn it into a
command, so the tokenizer here forgets the keyword.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokenizer_core import TokenType


def _to_date_sql(self: Any, expression: exp.TsOrDsToDate) -> str:
    """``TO_DATE`` exactly as written. sqlglot's Spark generator drops a format equal to
    Spark's default (``to_date(s, 'yyyy-MM-dd')`` became ``TO_DATE(s)``, which is a lenient cast
    that accepts ``'2024-01-05 garbage'``), and drops the call inside other date functions."""
    if expression.args.get("format") is not None:
        return str(self.func("TO_DATE", expression.this, self.format_time(expression)))
    return str(self.func("TO_DATE", expression.this))


def _regexp_extract_sql(self: Any, expression: exp.RegexpExtract | exp.RegexpExtractAll) -> str:
    """``REGEXP_EXTRACT[_ALL]`` with the group index as written (sqlglot drops a group equal to
    its idea of the default)."""
    name = (
        "REGEXP_EXTRACT_ALL" if isinstance(expression, exp.RegexpExtractAll) else "REGEXP_EXTRACT"
    )
    group = expression.args.get("group")
    return str(self.func(name, expression.this, expression.expression, group))


#: Functions parsed as plain calls, so their arguments reach Spark exactly as written.
VERBATIM_CALLS = frozenset(
    {
        "to_date",
        "to_timestamp",
        "date_format",
        "unix_timestamp",
        "to_unix_timestamp",
        "from_unixtime",
        "try_to_timestamp",
        "to_timestamp_ltz",
        "to_timestamp_ntz",
        "log10",  # sqlglot writes LOG(10, x): ln(x)/ln(10), another last digit than log10's
        "log2",
    }
)


class QualitySpark(Spark):
    """Spark SQL as rules use it."""

    class Tokenizer(Spark.Tokenizer):
        KEYWORDS = {k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k.upper() != "SET"}

    class Parser(Spark.Parser):  # type: ignore[valid-type,misc]
        # Date functions with a pattern are kept as plain calls: sqlglot converts the pattern to
        # strftime and back, which changes it ('YYYY' became 'yyyy', and a quoted 'T' in
        # "yyyy-MM-dd'T'HH:mm" split the pattern into a CONCAT).
        FUNCTIONS = {
            k: v for k, v in Spark.Parser.FUNCTIONS.items() if k.lower() not in VERBATIM_CALLS
        }

    class Generator(Spark.Generator):  # type: ignore[valid-type,misc]
        TRANSFORMS = {
            **Spark.Generator.TRANSFORMS,
            exp.TsOrDsToDate: _to_date_sql,
            exp.RegexpExtract: _regexp_extract_sql,
            exp.RegexpExtractAll: _regexp_extract_sql,
        }


DIALECT = QualitySpark()
#: Token types that start a statement rather than an expression.
STATEMENT_TOKENS = frozenset(
    {
        TokenType.SELECT,
        TokenType.WITH,
        TokenType.INSERT,
        TokenType.UPDATE,
        TokenType.DELETE,
        TokenType.CREATE,
        TokenType.DROP,
        TokenType.ALTER,
        TokenType.MERGE,
        TokenType.USE,
        TokenType.COMMAND,
        TokenType.TRUNCATE,
        TokenType.CACHE,
        TokenType.UNCACHE,
        TokenType.DESCRIBE,
        TokenType.SHOW,
        TokenType.PRAGMA,
    }
)
