"""What the Spark a session talks to can do, asked of that Spark (never of this client: on Spark
Connect the server is another machine, with its own packages).

>>> has_delta(spark) in (True, False)
True
"""

from __future__ import annotations

import contextlib
import uuid
import weakref

from quality_py.gate import reads
from quality_py.model.types import SparkSession
from quality_py.sql.snippets import table_name

#: Answers per session (a session's server does not gain or lose a data source while it lives).
_DELTA: weakref.WeakKeyDictionary[object, bool] = weakref.WeakKeyDictionary()
#: What Spark says when a data source is not on its classpath.
_MISSING_SOURCE = ("DATA_SOURCE_NOT_FOUND", "Failed to find data source", "ClassNotFoundException")


def has_delta(spark: SparkSession) -> bool:
    """Whether the server reads and writes Delta: a read of a path that does not exist is
    analysed there; a server without Delta says it has no such data source, one with Delta
    says the path is missing. No file is written and no job runs."""
    try:
        return _DELTA[spark]
    except (KeyError, TypeError):
        pass
    probe = f"/qp-no-such-path-{uuid.uuid4().hex}"
    try:
        reads.files(spark, "delta", probe).schema  # noqa: B018 - analysed on the server
        answer = True
    except Exception as err:
        answer = not any(word in str(err) for word in _MISSING_SOURCE)
    with contextlib.suppress(TypeError):  # a session class that takes no weak references
        _DELTA[spark] = answer
    return answer


_FUNCTIONS: weakref.WeakKeyDictionary[object, dict[str, bool]] = weakref.WeakKeyDictionary()


def has_function(spark: SparkSession, call: str) -> bool:
    """Whether the server knows the SQL function of the expression ``call`` (analysed there,
    on an empty frame: no job runs), asked once per session like :func:`has_delta`.

    >>> has_function(spark, "upper('a')"), has_function(spark, "qp_no_such_function(1)")
    (True, False)
    """
    try:
        known = _FUNCTIONS.setdefault(spark, {})
    except TypeError:  # a session class that takes no weak references
        known = {}
    if call not in known:
        try:
            spark.range(0).selectExpr(call).schema  # noqa: B018 - analysed on the server
            known[call] = True
        except Exception:
            known[call] = False
    return known[call]


def table_exists(spark: SparkSession, name: str) -> bool:
    """Whether the catalog knows table ``name``, asked without a failing query: Spark logs a
    failed ``DESCRIBE`` as an ERROR with a stack trace, which an on-call reader of a run that
    merely writes a new table should not see.

    >>> table_exists(spark, "qp_no_such_table")
    False
    """
    try:
        return bool(spark.catalog.tableExists(name))
    except Exception:  # older catalogs: fall back to a lookup
        try:
            reads.table(spark, name).schema  # noqa: B018 - analysed: the table exists
            return True
        except Exception:
            return False


def table_format(spark: SparkSession, name: str) -> str | None:
    """The format (provider) of an existing table, lower case; None when there is no such
    table.

    >>> table_format(spark, "qp_no_such_table") is None
    True
    """
    if not table_exists(spark, name):
        return None
    try:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table_name(name)}").collect()
    except Exception:
        return None
    for row in rows:
        if str(row[0]).strip().lower() == "provider":
            return str(row[1]).strip().lower()
    return "parquet"
