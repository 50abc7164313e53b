"""Where data lives, in one spelling: the canonical identity of every input and output of a run,
and the rule that no output is, is inside or contains an input or another output.

A :class:`Location` is what a path, URI or table name *means*, whatever its spelling:

* a local path (or ``file:`` URI) is its real path: ``..`` and symlinks resolved, relative
  paths made absolute against this (the driver's) working directory;
* a URI is its scheme and normalised path: ``s3a://`` and ``s3n://`` are ``s3://``, the host is
  compared without case, ``..`` and ``.`` segments are resolved, a trailing ``/`` is dropped;
  Databricks' FUSE views are the URIs they show (``/dbfs/x`` is ``dbfs:/x``, ``/Volumes/x`` is
  ``dbfs:/Volumes/x``);
* a table is its qualified name without case (``orders`` is ``spark_catalog.default.orders``
  in a session whose current schema is ``default``).

Two locations *overlap* when one is the other or lies inside it (path segments, so ``out/v``
never overlaps ``out/valid``). :func:`require_disjoint` refuses, before any job, an output
overlapping an input (it would replace or add to what the run reads) or another output (one
would replace the other), naming both.

>>> a, b = location("/data/in"), location("/data/x/../in/quarantine")
>>> overlap(a, b), b.path
('inside', '/data/in/quarantine')
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quality_py.errors import OutputOverlapError

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")
#: Folders that look local but are views of object storage (directory renames are not atomic).
FUSE_ROOTS = ("/Volumes/", "/dbfs/", "/Workspace/")
#: Schemes that name one filesystem under several spellings.
_SAME_SCHEME = {"s3a": "s3", "s3n": "s3", "wasbs": "wasb", "abfss": "abfs", "gcs": "gs"}


def has_scheme(destination: str) -> bool:
    """Whether ``destination`` names a filesystem by its scheme (``s3a://``, ``dbfs:/``, ``file:``).

    >>> has_scheme("dbfs:/mnt/dq"), has_scheme("s3a://b/k"), has_scheme("out/valid")
    (True, True, False)
    """
    return _SCHEME.match(destination) is not None


def local_path(destination: str) -> Path | None:
    """The local path of ``destination``, or ``None`` when it is on another filesystem: any
    scheme but ``file:``, and the folders that are views of object storage (``/Volumes/``,
    ``/dbfs/``, ``/Workspace/``).

    >>> local_path("dbfs:/mnt/dq"), local_path("/Volumes/main/dq/v"), local_path("file:/tmp/v")
    (None, None, PosixPath('/tmp/v'))
    """
    if destination.startswith("file:"):
        destination = "/" + destination[len("file:") :].lstrip("/")
    elif has_scheme(destination):
        return None
    if any(destination.startswith(root) for root in FUSE_ROOTS):
        return None
    return Path(destination)


def mounted_path(destination: str) -> Path | None:
    """The folder of this machine through which ``destination`` is object storage seen as files
    (Databricks' mounts: ``/dbfs/x``, ``/Volumes/x``, ``/Workspace/x``, and ``dbfs:/x`` as
    ``/dbfs/x``), or ``None`` for a local path or another filesystem. Files there are read and
    written with file calls, but a rename is a copy and there are no links.

    >>> mounted_path("dbfs:/mnt/dq"), mounted_path("dbfs:/Volumes/c/s/v/h")
    (PosixPath('/dbfs/mnt/dq'), PosixPath('/Volumes/c/s/v/h'))
    >>> mounted_path("/Volumes/c/s/v"), mounted_path("s3://b/k"), mounted_path("out/h")
    (PosixPath('/Volumes/c/s/v'), None, None)
    """
    if destination.lower().startswith("dbfs:"):
        rest = "/" + destination[len("dbfs:") :].lstrip("/")
        return Path(rest if rest.startswith(("/Volumes/", "/Workspace/")) else "/dbfs" + rest)
    if any(destination.startswith(root) for root in FUSE_ROOTS):
        return Path(destination)
    return None


def is_path(destination: str) -> bool:
    """Whether ``destination`` names a path or URI (else a table): a ``/``, a scheme or a
    leading ``.``; ``table:NAME`` is a table.

    >>> is_path("out/valid"), is_path("s3://b/q"), is_path("main.dq.valid"), is_path("table:v")
    (True, True, False, False)
    """
    if destination.startswith("table:"):
        return False
    return "/" in destination or "://" in destination or destination.startswith(".")


@dataclass(frozen=True)
class Location:
    """The identity of a place data is read from or written to.

    ``scheme`` is ``file`` for this machine's paths, ``table`` for catalog tables, else the
    URI's scheme; ``host`` the URI's authority (lower case); ``path`` the absolute normalised
    path (for tables: the dotted, lower-case qualified name)."""

    scheme: str
    host: str
    path: str
    shown: str = field(default="", compare=False)

    def root(self, scheme: str | None = None) -> str:
        """The URI of the place's filesystem (``scheme``: another spelling of its scheme).

        >>> location("s3a://Bucket/a").root(), location("abfss://c@a.dfs/x").root("abfss")
        ('s3://bucket', 'abfss://c@a.dfs')
        """
        return f"{scheme or self.scheme}://{self.host}"

    @property
    def parts(self) -> tuple[str, ...]:
        """The path's segments (a table's name parts)."""
        if self.scheme == "table":
            return tuple(self.path.split("."))
        return tuple(p for p in self.path.split("/") if p)


def _real(path: str) -> str:
    """``path`` absolute, with ``..`` and every symlink of the part that exists resolved."""
    return os.path.realpath(os.path.expanduser(path))


def location(
    text: str,
    *,
    table: bool | None = None,
    current: tuple[str, str] | None = None,
) -> Location:
    """The canonical identity of a path, URI or table name (``table``: force the reading; by
    default :func:`is_path` decides). ``current``: the session's current catalog and schema,
    which qualify a table named with fewer parts.

    >>> location("s3a://Bucket/a/./b/../c/").path, location("s3a://Bucket/a").scheme
    ('/a/c', 's3')
    >>> location("/dbfs/mnt/x") == location("dbfs:/mnt/x/"), location("/Volumes/c/s/v").scheme
    (True, 'dbfs')
    >>> location("Orders", current=("spark_catalog", "default")).path
    'spark_catalog.default.orders'
    """
    raw = text.strip()
    if table is None:
        table = not is_path(raw)
    if table:
        name = raw.removeprefix("table:")
        parts = [p.strip("`").lower() for p in name.split(".")]
        if current is not None and len(parts) < 3:
            parts = [*[c.lower() for c in current][: 3 - len(parts)], *parts]
        return Location("table", "", ".".join(parts), text)
    for root, prefix in (("/dbfs/", "/"), ("/Volumes/", "/Volumes/")):
        if raw.startswith(root):
            rest = raw[len(root) :]
            return Location("dbfs", "", _normal(prefix + rest), text)
    local = local_path(raw)
    if local is not None:
        return Location("file", "", _real(str(local)), text)
    scheme = raw.split(":", 1)[0].lower()
    rest = raw[len(scheme) + 1 :]
    host = ""
    if rest.startswith("//"):
        host, _, rest = rest[2:].partition("/")
        rest = "/" + rest
    return Location(_SAME_SCHEME.get(scheme, scheme), host.lower(), _normal(rest), text)


def _normal(path: str) -> str:
    """An absolute POSIX path with ``.``, ``..`` and repeated or trailing ``/`` resolved."""
    normal = posixpath.normpath("/" + path.lstrip("/"))
    return "/" + normal.lstrip("/")


def overlap(a: Location, b: Location) -> str | None:
    """How ``b`` lies against ``a``: ``"is"`` (the same place), ``"inside"`` (``b`` is inside
    ``a``), ``"contains"`` (``b`` contains ``a``), or None (apart, or not comparable).

    >>> overlap(location("/x/out"), location("/x/out/")), overlap(location("/x/v"),
    ...     location("/x/valid"))
    ('is', None)
    """
    if a.scheme != b.scheme or (a.host and b.host and a.host != b.host):
        return None
    pa, pb = a.parts, b.parts
    if pa == pb:
        return "is"
    if a.scheme == "table":
        return None
    if pb[: len(pa)] == pa:
        return "inside"
    if pa[: len(pb)] == pb:
        return "contains"
    return None


_SAYS = {"is": "is", "inside": "is inside", "contains": "contains"}


def require_disjoint(
    inputs: Iterable[tuple[str, Location]], outputs: Sequence[tuple[str, Location]]
) -> None:
    """Refuse an output that is, is inside or contains an input or another output, naming both
    (``(label, location)`` pairs: ``("--valid", location(...))``).

    >>> try:
    ...     require_disjoint([("--input", location("/d/in"))],
    ...                      [("--valid", location("/d/x/../in"))])
    ... except OutputOverlapError as err:
    ...     print(err.message)
    the --valid output /d/x/../in is the --input /d/in: a run never writes where it reads or \
where another of its outputs goes (it would replace or add to that data); choose another place
    """
    seen = list(inputs)
    for label, out in outputs:
        for other_label, other in seen:
            how = overlap(other, out)
            if how is not None:
                raise OutputOverlapError(
                    f"the {label} output {out.shown} {_SAYS[how]} the {other_label} "
                    f"{other.shown}: a run never writes where it reads or where another of its "
                    "outputs goes (it would replace or add to that data); choose another place",
                    item_kind="output",
                )
        seen.append((f"{label} output", out))


def dataset_roots(files: Iterable[str]) -> list[str]:
    """The places a DataFrame reads, from its input files: each file, and for a file Spark
    wrote (``part-*``) the folder of its dataset (above its ``key=value`` partition folders),
    so an output inside that folder counts as inside the input.

    >>> dataset_roots(["file:/d/in/k=1/part-0.parquet", "/d/flights.csv"])
    ['/d/in', '/d/flights.csv']
    """
    out: dict[str, None] = {}
    for file in files:
        uri_head = ""
        body = file
        match = _SCHEME.match(file)
        if match and match.group(1).lower() == "file":
            body = "/" + file[len("file:") :].lstrip("/")
        elif match:
            uri_head, body = file[: match.end()], file[match.end() :]
        name = posixpath.basename(body)
        if name.startswith("part-"):
            folder = posixpath.dirname(body)
            while "=" in posixpath.basename(folder):
                folder = posixpath.dirname(folder)
            out.setdefault(uri_head + folder, None)
        else:
            out.setdefault(uri_head + body, None)
    return list(out)
