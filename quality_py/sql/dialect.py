"""The sqlglot dialect rules are read and written in: Spark, with ``SET`` not a keyword.

Spark's grammar only treats ``SET`` as a statement keyword at the start of a statement; inside an
expression ``set(a = 1)`` is the folder's update sugar. sqlglot's tokenizer would turn it into a
command, so the tokenizer here forgets the keyword.
"""

from __future__ import annotations

from sqlglot.dialects.spark import Spark
from sqlglot.tokenizer_core import TokenType


class QualitySpark(Spark):
    """Spark SQL as rules use it."""

    class Tokenizer(Spark.Tokenizer):
        KEYWORDS = {k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k.upper() != "SET"}


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
