"""One destination value: what an output's text means, resolved once, for every writer.

A run's output is named by text (``--valid out/valid``, ``write(quarantine="main.dq.q")``,
``outputs: {stats: table:stats}``). :func:`destination` reads it once into a
:class:`Destination`: a **path** (a ``/``, a scheme such as ``s3://`` or ``dbfs:/``, or a
leading ``.``) or a **table** (``catalog.schema.table``, or ``table:NAME`` for any name), its
format (one list, :data:`OUTPUT_FORMATS`, for the API, the command line and job files) and
whether it can be published atomically. Every writer asks this module, so a new entry point
gets the same reading.

A **bare name** (``valid``, ``dq.valid``: no ``/``, fewer than three parts, no ``table:``) is
ambiguous: a newcomer means a folder, Spark means a managed table in the session's catalog, and
a session whose catalog is in memory (``spark.sql.catalogImplementation=in-memory``, the
default of a local ``pyspark``) forgets that table when it ends, with its files left in
``./spark-warehouse``. So a bare name is a table only when the session's catalog outlives it:
the catalog implementation is ``hive`` (a metastore), or the current catalog is not Spark's
built-in ``spark_catalog`` (Unity Catalog and other catalog plugins). Elsewhere it is refused,
naming both spellings.
"""

from __future__ import annotations

from dataclasses import dataclass

from quality_py.errors import QualityError
from quality_py.gate.locations import is_path
from quality_py.model.types import SparkSession

#: What ``format=`` takes, for every output of every entry point: ``auto`` (paths parquet; an
#: existing table its own format; a new table Delta where the server has Delta, else parquet),
#: or one format for every output. (CSV holds no array or struct, which the quarantine has.)
OUTPUT_FORMATS = ("auto", "parquet", "delta", "orc", "json")
#: How a run's outputs become visible: ``atomic`` (staged, then all at once) or ``direct``
PUBLISH_MODES = ("atomic", "direct")


class RunOutputError(QualityError):
    """An output cannot be written as asked (a format, a mode, a place, a name)."""

    code = "RUN_OUTPUT"


@dataclass(frozen=True)
class Destination:
    """One output's place, read once: ``text`` as given, ``kind`` ``path`` or ``table``,
    ``name`` (the path, or the table's name without ``table:``).

    >>> destination("out/valid")
    Destination(text='out/valid', kind='path', name='out/valid')
    >>> destination("table:valid").name, destination("main.dq.valid").kind
    ('valid', 'table')
    """

    text: str
    kind: str
    name: str

    @property
    def is_path(self) -> bool:
        """Whether this is a path or URI (else a catalog table)."""
        return self.kind == "path"

    @property
    def bare(self) -> bool:
        """A table named without ``table:`` in fewer than three parts (``valid``, ``dq.valid``):
        a table of the session's current catalog, which may not outlive the session."""
        return (
            self.kind == "table"
            and not self.text.strip().startswith("table:")
            and len(self.name.split(".")) < 3
        )


def destination(text: str, *, label: str = "output") -> Destination:
    """The destination ``text`` names (refused when it is empty or not text).

    >>> destination("./valid").kind, destination("s3://b/q").kind, destination("valid").bare
    ('path', 'path', True)
    """
    if not isinstance(text, str) or not text.strip():
        raise RunOutputError(
            f"the {label} output is named by a path or a table, not {text!r}", item_kind="output"
        )
    raw = text.strip()
    if is_path(raw):
        return Destination(text, "path", raw)
    return Destination(text, "table", raw.removeprefix("table:"))


def persistent_catalog(spark: SparkSession) -> tuple[bool, str]:
    """Whether a table the session creates outlives it, and why (the setting read).

    >>> persistent_catalog(spark)[0]
    False
    """
    try:
        implementation = str(spark.conf.get("spark.sql.catalogImplementation", "in-memory"))
    except Exception:  # a server that will not say: treated as forgetting
        implementation = "unknown"
    if implementation.lower() == "hive":
        return True, "spark.sql.catalogImplementation is hive"
    try:
        current = str(spark.catalog.currentCatalog())
    except Exception:
        current = "spark_catalog"
    if current.lower() != "spark_catalog":
        return True, f"the current catalog is {current}"
    return False, f"spark.sql.catalogImplementation is {implementation}"


def require_lasting(place: Destination, spark: SparkSession, *, label: str = "output") -> None:
    """Refuse a bare table name where the session's catalog forgets it, naming both spellings.

    >>> require_lasting(destination("out/valid"), spark)  # a path: always written
    >>> try:
    ...     require_lasting(destination("valid"), spark, label="valid")
    ... except RunOutputError as err:
    ...     print(err.message.split(":")[0])
    the valid output 'valid' is a bare name
    """
    if not place.bare:
        return
    lasting, why = persistent_catalog(spark)
    if lasting:
        return
    name = place.name
    raise RunOutputError(
        f"the {label} output {place.text!r} is a bare name: write a folder as a path "
        f"(./{name} or out/{name}), or a table as catalog.schema.table or table:{name}. It is "
        f"not taken as a table because this session's catalog forgets its tables when the "
        f"session ends ({why}), so the rows would be written to ./spark-warehouse and no "
        "catalog would know them",
        item_kind="output",
    )


def require_format(fmt: str) -> str:
    """``fmt`` when it is one of :data:`OUTPUT_FORMATS`.

    >>> require_format("delta")
    'delta'
    """
    if fmt not in OUTPUT_FORMATS:
        raise RunOutputError(
            f"unsupported output format {fmt!r}; one of {', '.join(OUTPUT_FORMATS)}",
            item_kind="output",
        )
    return fmt


__all__ = [
    "OUTPUT_FORMATS",
    "PUBLISH_MODES",
    "Destination",
    "RunOutputError",
    "destination",
    "persistent_catalog",
    "require_format",
    "require_lasting",
]
