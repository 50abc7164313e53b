"""``selectExpr`` of many SQL texts, at the cost of one call however many there are.

A classic session hands PySpark's ``selectExpr`` arguments to the JVM one Py4J round trip per
text: 5000 rule values cost ~0.5 s before Spark parses any of them. Here the texts travel as one
string, split on the JVM side, and the same ``Dataset.selectExpr`` runs on them: the plan, its
analysis and its errors (an ``AnalysisException`` naming the expression) are exactly those of
``df.selectExpr(*sqls)``.

Spark Connect sends every text in one message anyway, so there (and wherever the classic path's
pieces are missing, or a text holds the separator) this is ``df.selectExpr(*sqls)`` itself.

>>> df = spark.createDataFrame([(1, 2)], "a int, b int")
>>> select_exprs(df, ["*", *[f"a + {i} AS c{i}" for i in range(100)]]).columns[-1]
'c99'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quality_py.model.types import DataFrame

#: Below this many texts the ordinary call costs nothing worth saving.
_BULK = 64
#: Joins the texts on the way to the JVM; a text that holds it takes the ordinary path.
_SEPARATOR = "\u0001"


def select_exprs(df: DataFrame, sqls: Sequence[str]) -> DataFrame:
    """``df.selectExpr(*sqls)``, with one JVM round trip for the texts on a classic session."""
    sqls = list(sqls)
    if len(sqls) < _BULK or any(_SEPARATOR in s for s in sqls):
        return df.selectExpr(*sqls)
    seq = _java_seq(df, sqls)
    if seq is None:
        return df.selectExpr(*sqls)
    # The one call that analyses: its errors are Spark's, converted by PySpark as usual.
    classic: Any = df
    return type(df)(classic._jdf.selectExpr(seq), df.sparkSession)


def _java_seq(df: DataFrame, sqls: list[str]) -> Any:
    """A Scala ``Seq[String]`` of ``sqls`` built by one call, or None off the classic path."""
    if getattr(df, "_jdf", None) is None:
        return None
    try:
        jvm: Any = getattr(df.sparkSession, "_jvm", None)
        if jvm is None:
            return None
        pieces = jvm.java.util.regex.Pattern.compile(_SEPARATOR).splitAsStream(
            _SEPARATOR.join(sqls)
        )
        texts = pieces.collect(jvm.java.util.stream.Collectors.toList())
        if texts.size() != len(sqls):
            return None
        return jvm.org.apache.spark.api.python.PythonUtils.toSeq(texts)
    except Exception:  # a PySpark without these pieces: the ordinary path
        return None
