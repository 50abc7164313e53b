"""Names of data that come from a ruleset, a check, an import or a views file.

A ruleset is untrusted text, and so is everything in it that names data: a dataset check's
``reference``, a table a foreign rule file points at. Such a name may only reach Spark when the
policy's allowed views hold it (``RulePolicy.with_views``: the views a run registered, from
``--view`` / ``--views`` or the caller's own code). Two things make a name refused before that
question is asked:

* it is no table name: one to three dotted parts of letters, digits and ``_``, none quoted.
  Spark reads ``text.`/etc/passwd``` and ``parquet.`s3://bucket/x``` as files, so a quoted part
  (or any other character) is refused outright;
* it is a file read written as a table (``csv.data`` is the file ``data`` read as CSV where
  Spark runs SQL on files): a first part naming a data source is refused, whatever the policy.

The name handed to Spark is rebuilt from its checked parts, each quoted, so what Spark resolves
is exactly what was checked.

>>> from quality_py.model.policy import RulePolicy
>>> reference_name("Airports", RulePolicy().with_views("airports"), what="check 'ref'")
'`Airports`'
>>> try:
...     reference_name("main.hr.salaries", RulePolicy(), what="check 'ref'")
... except DataNameError as err:
...     print(err.message)
check 'ref' reads main.hr.salaries, which no allowed view names (allowed: none); register it \
as a view (--view, --views) or pass policy=RulePolicy().with_views('main.hr.salaries')
"""

from __future__ import annotations

import re

from quality_py.errors import DataNameError
from quality_py.model.policy import RulePolicy

#: One part of a table name: what Spark reads unquoted as an identifier.
_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Spark's data sources: ``<source>.<name>`` may read the file ``<name>`` (SQL on files).
FILE_SOURCES = frozenset(
    {"text", "csv", "json", "parquet", "orc", "avro", "delta", "binaryfile", "xml", "jdbc",
     "libsvm", "image", "iceberg", "hudi", "file", "hive", "noop", "console", "kafka"}
)  # fmt: skip
#: The longest name we pass (Spark's own identifiers are far shorter in practice).
MAX_NAME = 400


def name_parts(name: object, *, what: str) -> tuple[str, ...]:
    """The parts of a table name, or a :class:`DataNameError` naming ``what`` wrote it.

    >>> name_parts("main.sales.orders", what="x")
    ('main', 'sales', 'orders')
    >>> try:
    ...     name_parts("text.`/etc/passwd`", what="check 'c'")
    ... except DataNameError as err:
    ...     print(err.message)
    check 'c' names 'text.`/etc/passwd`', which is no table name: write one to three dotted \
parts of letters, digits and _ (a view, schema.table or catalog.schema.table), never a path \
or a quoted part
    """
    if not isinstance(name, str) or not name.strip():
        raise DataNameError(
            f"{what} names no table (got {name!r}): write a view or table name",
            item_kind="data",
        )
    text = name.strip()
    parts = tuple(text.split("."))
    if len(text) > MAX_NAME or not 1 <= len(parts) <= 3 or not all(map(_PART.fullmatch, parts)):
        raise DataNameError(
            f"{what} names {text[:200]!r}, which is no table name: write one to three dotted "
            "parts of letters, digits and _ (a view, schema.table or catalog.schema.table), "
            "never a path or a quoted part",
            item_kind="data",
        )
    if len(parts) == 2 and parts[0].lower() in FILE_SOURCES:
        raise DataNameError(
            f"{what} names {text!r}: Spark may read that as the file {parts[1]!r} in "
            f"{parts[0]} format; name a view or a table instead",
            item_kind="data",
        )
    return parts


def quoted_name(parts: tuple[str, ...]) -> str:
    """The name as Spark gets it: each checked part quoted.

    >>> quoted_name(("main", "sales", "orders"))
    '`main`.`sales`.`orders`'
    """
    return ".".join(f"`{p}`" for p in parts)


def reference_name(name: object, policy: RulePolicy, *, what: str) -> str:
    """The Spark name of a view or table that untrusted text (a ruleset, a check, an import)
    names, if the policy allows it: one of its allowed views (any case), or any well-formed
    name under a trusted policy. Refused with ``what`` named otherwise."""
    parts = name_parts(name, what=what)
    full = ".".join(parts).lower()
    if not policy.trusted and full not in policy.allowed_views:
        allowed = ", ".join(sorted(policy.allowed_views)) or "none"
        raise DataNameError(
            f"{what} reads {'.'.join(parts)}, which no allowed view names (allowed: {allowed}); "
            f"register it as a view (--view, --views) or pass "
            f"policy=RulePolicy().with_views({'.'.join(parts)!r})",
            item_kind="data",
        )
    return quoted_name(parts)
