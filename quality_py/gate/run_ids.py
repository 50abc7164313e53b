"""Run ids: any printable text a scheduler gives, bounded (Airflow's
``scheduled__2026-11-23T10:00:00+00:00``, an ISO timestamp with a space, Databricks'
``{{job.run_id}}``), and the one encoding of an id where it names a partition directory.

A run id names the ``qp_run_id=<id>`` partition of the quarantine and the stats. Spark writes a
partition directory with its own escaping (``%XX`` for ``:``, ``/``, ``=``, ``%`` and a few
more) and undoes it when it reads the directory back, so :func:`partition_directory` escapes
exactly as Spark does: a directory we make ourselves (the run's own partition, an empty one for
a run that quarantined nothing) is the directory Spark makes and reads, and the id read back is
the id given, character for character. Ids of letters, digits, ``_``, ``.`` and ``-`` (all that
was accepted before) escape to themselves.
"""

from __future__ import annotations

import re

from quality_py.errors import ModelError

#: The longest run id, in characters.
MAX_RUN_ID = 200
#: The longest directory name most file systems and object stores take, in UTF-8 bytes.
MAX_SEGMENT_BYTES = 255
#: What Spark reads back as a null partition value: no run id can be it.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
#: The characters Spark escapes in a partition directory's name (``ExternalCatalogUtils``).
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
_HEX = re.compile(r"%([0-9A-Fa-f]{2})")


def escape_value(value: str) -> str:
    """``value`` as Spark writes it in a partition directory's name.

    >>> escape_value("scheduled__2026-11-23T10:00:00+00:00")
    'scheduled__2026-11-23T10%3A00%3A00+00%3A00'
    >>> escape_value("2026-11-23 10:00"), escape_value("nightly_42.1-a")
    ('2026-11-23 10%3A00', 'nightly_42.1-a')
    """
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


def unescape_value(text: str) -> str:
    """A partition directory's value as Spark reads it (the inverse of :func:`escape_value`).

    >>> unescape_value("a%3Db%2Fc"), unescape_value("100%25")
    ('a=b/c', '100%')
    """
    return _HEX.sub(lambda m: chr(int(m.group(1), 16)), text)


#: The suffix Hadoop gives a file still being copied; Spark's and Hadoop's listings skip it.
COPYING = "._COPYING_"


def hidden_directory(name: str) -> bool:
    """Whether Spark's file listing skips a directory of this name (``InMemoryFileIndex``: a
    name starting with ``.``, or with ``_`` and holding no ``=``, or ending in ``._COPYING_``).

    >>> hidden_directory("qp_run_id=a._COPYING_"), hidden_directory("qp_run_id=_a")
    (True, False)
    """
    return (
        name.startswith(".") or (name.startswith("_") and "=" not in name) or name.endswith(COPYING)
    )


def partition_directory(column: str, value: str) -> str:
    """The name of the directory of partition ``column = value``, as Spark names it.

    >>> partition_directory("qp_run_id", "2026-11-23T10:00:00+00:00")
    'qp_run_id=2026-11-23T10%3A00%3A00+00%3A00'
    """
    return f"{escape_value(column)}={escape_value(value)}"


def require_run_id(run_id: object) -> str:
    """Refuse a run id that cannot name its partition and be read back exactly; return it.

    Any printable text of 1 to :data:`MAX_RUN_ID` characters is an id (spaces inside included),
    except Spark's null marker, and as long as its directory name fits a file system's 255
    bytes.

    >>> require_run_id("scheduled__2026-11-23T10:00:00+00:00")
    'scheduled__2026-11-23T10:00:00+00:00'
    >>> require_run_id("a\\tb")
    Traceback (most recent call last):
    ...
    quality_py.errors.ModelError: [INVALID_ID] run id 'a\\tb' is not usable: ...
    """
    if not isinstance(run_id, str):
        why = f"it is a {type(run_id).__name__}, not text (quote it in a YAML file)"
    elif not run_id:
        why = "it is empty"
    elif len(run_id) > MAX_RUN_ID:
        why = f"it has {len(run_id)} characters; at most {MAX_RUN_ID} are taken"
    elif not run_id.isprintable():
        bad = next(c for c in run_id if not c.isprintable())
        why = f"it holds the unprintable character U+{ord(bad):04X} (tabs, newlines, controls)"
    elif run_id.strip() != run_id:
        why = "it starts or ends with a space, which a reader of a partition could not tell apart"
    elif run_id == HIVE_NULL:
        why = "Spark reads that partition value back as null"
    elif hidden_directory(partition_directory("qp_run_id", run_id)):
        why = (
            f"a directory whose name ends in {COPYING!r} is hidden from every reader (Spark and "
            "Hadoop take it for a file still being copied), so its rows would be written and "
            "never read"
        )
    elif len(partition_directory("qp_run_id", run_id).encode("utf-8")) > MAX_SEGMENT_BYTES:
        why = (
            f"its partition directory would be longer than {MAX_SEGMENT_BYTES} bytes once "
            "escaped (':', '/', '=', '%' and a few more take 3 bytes each); use a shorter id"
        )
    else:
        return run_id
    raise ModelError(
        f"run id {run_id!r} is not usable: {why}. A run id is printable text of 1 to "
        f"{MAX_RUN_ID} characters (a scheduler's run id or a timestamp works as it is).",
        code="INVALID_ID",
    )


__all__ = [
    "COPYING",
    "HIVE_NULL",
    "MAX_RUN_ID",
    "escape_value",
    "hidden_directory",
    "partition_directory",
    "require_run_id",
    "unescape_value",
]
