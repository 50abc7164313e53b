"""Reference data declared as data: views and lookup maps, loaded in dependency order.

A *view* is a name and where its rows come from: a ``source`` (a path or URI read with
``format``, or a table name with ``format: table``) or a ``sql`` SELECT over other views, with an
optional ``filter``. A *map* is a view of ``__qp_key`` and ``__qp_value`` columns (reserved
names, so a rule's own ``key`` column cannot bind to them) computed from another view with two SQL
expressions, for ``map_lookup('name', key)`` and ``map_contains('name', key)``.

Declarations come from YAML (``views:`` and ``maps:`` lists) or from a table with the columns
``name, source, format, sql, filter, depends_on`` (maps: ``name, view, key, value``).
:func:`load_views` checks the whole declaration first (duplicate names, views that are named but
declared nowhere and absent from the session, cycles, maps whose keys repeat) and reports every
problem with names before anything is registered; then it registers each view with
``createOrReplaceTempView`` in dependency order. The names it returns are the ones a
:class:`~quality_py.model.policy.RulePolicy` lets rule subqueries and lookups read
(``policy.with_views(*loaded.names)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quality_py.errors import QualityError, ReferenceDataError
from quality_py.gate import files, reads
from quality_py.gate.locations import has_scheme
from quality_py.io.yaml_checks import refuse_aliases
from quality_py.model.policy import RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.check_queries import checked_query
from quality_py.sql.compiler import compile_expression
from quality_py.sql.library.lookups import KEY
from quality_py.sql.names import map_view_sql, query_tables

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FORMATS = ("parquet", "csv", "json", "orc", "delta", "table")


@dataclass(frozen=True)
class ViewConfig:
    """One view: rows from ``source`` (read as ``format``) or from ``sql``, then ``filter``."""

    name: str
    source: str | None = None
    format: str | None = None
    sql: str | None = None
    filter: str | None = None
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapConfig:
    """A lookup map ``name``: ``key`` -> ``value`` (SQL over the rows of ``view``)."""

    name: str
    view: str
    key: str
    value: str


@dataclass(frozen=True)
class LoadedViews:
    """What :func:`load_views` registered: views in load order, then maps."""

    views: tuple[str, ...] = ()
    maps: tuple[str, ...] = ()
    map_sizes: dict[str, int] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """Every registered name, for ``RulePolicy.with_views``."""
        return (*self.views, *self.maps)


def _error(message: str) -> ReferenceDataError:
    return ReferenceDataError(message, item_kind="view")


def _text(item: dict[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise _error(f"{where}: '{key}' must be text, not {type(value).__name__}")
    return value.strip()


def views_from_dicts(
    views: Sequence[dict[str, Any]],
    maps: Sequence[dict[str, Any]] = (),
    base: Path | None = None,
) -> tuple[tuple[ViewConfig, ...], tuple[MapConfig, ...]]:
    """Configs from plain dicts (YAML or table rows); relative sources resolve against ``base``.

    >>> v, m = views_from_dicts(
    ...     [{"name": "a", "source": "a.csv"}, {"name": "b", "sql": "SELECT 1"}],
    ...     [{"name": "m", "view": "a", "key": "k", "value": "v"}],
    ... )
    >>> [x.name for x in v], v[0].format, m[0].key
    (['a', 'b'], 'csv', 'k')
    """
    out_views = []
    for i, item in enumerate(views):
        where = f"view {i + 1}"
        if not isinstance(item, dict):
            raise _error(f"{where}: expected a mapping with name and source or sql")
        allowed = {"name", "source", "format", "sql", "filter", "depends_on"}
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise _error(f"{where}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
        name = _text(item, "name", where)
        if name is None:
            raise _error(f"{where}: a view needs a name")
        where = f"view {name!r}"
        source, sql = _text(item, "source", where), _text(item, "sql", where)
        if (source is None) == (sql is None):
            raise _error(f"{where}: give exactly one of source (a path or table) and sql")
        fmt = _text(item, "format", where)
        if source is not None:
            fmt = (fmt or Path(source).suffix.lstrip(".") or "parquet").lower()
            if fmt not in FORMATS:
                raise _error(f"{where}: format {fmt!r} is not one of {', '.join(FORMATS)}")
            if base is not None and fmt != "table" and not has_scheme(source):
                path = Path(source)
                source = str(path if path.is_absolute() else base / path)
        depends = item.get("depends_on") or ()
        if isinstance(depends, str):
            depends = [d.strip() for d in depends.split(",") if d.strip()]
        out_views.append(
            ViewConfig(name, source, fmt, sql, _text(item, "filter", where), tuple(depends))
        )
    out_maps = []
    for i, item in enumerate(maps):
        where = f"map {i + 1}"
        if not isinstance(item, dict):
            raise _error(f"{where}: expected a mapping with name, view, key and value")
        unknown = sorted(set(item) - {"name", "view", "key", "value"})
        if unknown:
            raise _error(f"{where}: unknown key(s) {unknown}; allowed: name, view, key, value")
        parts = {k: _text(item, k, where) for k in ("name", "view", "key", "value")}
        missing = [k for k, v in parts.items() if v is None]
        if missing:
            raise _error(f"{where}: a map needs {', '.join(missing)}")
        out_maps.append(MapConfig(**parts))  # type: ignore[arg-type]
    return tuple(out_views), tuple(out_maps)


def load_view_file(path: str | Path) -> tuple[tuple[ViewConfig, ...], tuple[MapConfig, ...]]:
    """Configs from a YAML file with ``views:`` and ``maps:`` lists (sources relative to it;
    its ``blooms:`` are read by :func:`bloom_files`)."""
    views, maps, _ = read_view_file(path)
    return views, maps


def read_view_file(
    path: str | Path,
) -> tuple[tuple[ViewConfig, ...], tuple[MapConfig, ...], tuple[tuple[str, str], ...]]:
    """Every section of a reference-data YAML file from one read: its views, its maps and its
    blooms' ``(name, file)`` pairs (every path relative to the file).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ref.yaml").write_text("views: [{name: a, source: a.csv}]")
    >>> views, maps, blooms = read_view_file(folder / "ref.yaml")
    >>> [(v.name, pathlib.Path(v.source).name) for v in views], maps, blooms
    ([('a', 'a.csv')], (), ())
    """
    path = Path(path).resolve()  # sources are read by Spark, whose working directory may differ
    data = _reference_yaml(path)
    views, maps = views_from_dicts(data.get("views") or [], data.get("maps") or [], path.parent)
    return views, maps, _blooms_of(data, path)


def _reference_yaml(path: Path) -> dict[str, Any]:

    text = files.read_text(path)
    refuse_aliases(text, str(path))  # bounded depth, no aliases
    data = files.yaml_value(text) or {}
    if not isinstance(data, dict) or set(data) - {"views", "maps", "blooms"}:
        raise _error(f"{path}: expected a mapping with 'views', 'maps' and 'blooms' lists")
    return data


def bloom_files(path: str | Path) -> tuple[tuple[str, str], ...]:
    """The ``blooms:`` of a reference-data YAML file: (name, bloom file) pairs, the files
    relative to the YAML (stored by ``quality_py.io.blooms.save_bloom``).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ref.yaml").write_text("blooms: [{name: planes, path: planes.qpbloom}]")
    >>> [(n, pathlib.Path(p).name) for n, p in bloom_files(folder / "ref.yaml")]
    [('planes', 'planes.qpbloom')]
    """
    path = Path(path).resolve()
    return _blooms_of(_reference_yaml(path), path)


def _blooms_of(data: dict[str, Any], path: Path) -> tuple[tuple[str, str], ...]:
    out = []
    for i, item in enumerate(data.get("blooms") or []):
        if not isinstance(item, dict) or set(item) != {"name", "path"}:
            raise _error(f"bloom {i + 1}: expected a mapping with name and path")
        file = str(item["path"])
        if not has_scheme(file) and not Path(file).is_absolute():
            file = str(path.parent / file)
        out.append((str(item["name"]), file))
    return tuple(out)


def views_from_table(
    views: DataFrame, maps: DataFrame | None = None
) -> tuple[tuple[ViewConfig, ...], tuple[MapConfig, ...]]:
    """Configs from tables (``depends_on`` a comma-separated string or an array of names)."""
    rows = [r.asDict() for r in views.collect()]
    map_rows = [r.asDict() for r in maps.collect()] if maps is not None else []
    return views_from_dicts(rows, map_rows)


def _referenced(sql: str) -> set[str]:
    """The table names a view's SQL reads (lower case); refuses anything but a query."""
    try:
        return query_tables(sql)
    except ValueError as err:
        raise _error(f"view SQL {err}") from None


def load_order(
    views: tuple[ViewConfig, ...], maps: tuple[MapConfig, ...], existing: set[str]
) -> list[ViewConfig]:
    """Views in dependency order; every problem of the declaration in one error.

    >>> a, b = ViewConfig("a", sql="SELECT * FROM b"), ViewConfig("b", source="b.csv")
    >>> [v.name for v in load_order((a, b), (), set())]
    ['b', 'a']
    >>> try:
    ...     load_order((ViewConfig("x", sql="SELECT * FROM y"),), (), set())
    ... except ReferenceDataError as err:
    ...     print(err.message)
    reference data cannot load: view 'x' reads y, which is declared nowhere and not in the session
    """
    problems = []
    names = [v.name.lower() for v in views] + [m.name.lower() for m in maps]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        problems.append(f"names declared twice: {', '.join(repeated)}")
    declared = {v.name.lower(): v for v in views}
    needs: dict[str, set[str]] = {}
    for view in views:
        try:
            reads = _referenced(view.sql) if view.sql else set()
        except ReferenceDataError as err:
            problems.append(f"view {view.name!r}: {err.message}")
            reads = set()
        wanted = reads | {d.lower() for d in view.depends_on}
        missing = sorted(w for w in wanted if w not in declared and w not in existing)
        if missing:
            problems.append(
                f"view {view.name!r} reads {', '.join(missing)}, which "
                f"{'is' if len(missing) == 1 else 'are'} declared nowhere and not in the session"
            )
        needs[view.name.lower()] = {w for w in wanted if w in declared}
    for m in maps:
        if m.view.lower() not in declared and m.view.lower() not in existing:
            problems.append(f"map {m.name!r} reads view {m.view!r}, which is declared nowhere")
    order: list[ViewConfig] = []
    done: set[str] = set()
    pending = dict(needs)
    while pending:
        ready = sorted(n for n, deps in pending.items() if deps <= done)
        if not ready:
            problems.append(f"views depend on each other in a cycle: {', '.join(sorted(pending))}")
            break
        for name in ready:
            order.append(declared[name])
            done.add(name)
            del pending[name]
    if problems:
        raise _error("reference data cannot load: " + "; ".join(problems))
    return order


def _frame(spark: SparkSession, view: ViewConfig) -> DataFrame:
    """The view's rows. Its SQL and filter pass the rule policy like any rule text (one
    enforcement path: allowlisted functions, no reflection, clocks or identity, limits and
    refused characters) and reach Spark as SQL we generate (immune to variable substitution)."""
    condition = None
    if view.filter:  # checked before any data is read
        try:
            condition = compile_expression(view.filter, kind="view filter", policy=RulePolicy())
        except QualityError as err:
            raise _error(f"view {view.name!r}: its filter: {err.message}") from None
    if view.sql is not None:
        names = tuple(sorted(_referenced(view.sql))) or ("__qp_none",)
        try:
            query = checked_query(view.name, view.sql, names[0], names, RulePolicy())
        except QualityError as err:
            raise _error(f"view {view.name!r}: {err.message.split(': ', 1)[-1]}") from None
        frame = spark.sql(to_sql(query))
    elif view.format == "table":  # the views file is the operator's: its sources are read
        frame = reads.table(spark, str(view.source))
    else:
        csv = {"header": "true", "inferSchema": "true"} if view.format == "csv" else None
        frame = reads.files(spark, str(view.format), str(view.source), options=csv)
    if condition is None:
        return frame
    from pyspark.sql import functions as F

    return frame.where(F.expr(to_sql(condition)))


def load_views(
    spark: SparkSession, views: tuple[ViewConfig, ...], maps: tuple[MapConfig, ...] = ()
) -> LoadedViews:
    """Check the declaration, then register every view and map as a temporary view.

    A map whose key repeats is refused (a lookup must give one value), with examples of the
    repeated keys; that check is one aggregation job per map.
    """
    from pyspark.errors import AnalysisException, ParseException
    from pyspark.sql import functions as F

    # a SQL view reads views declared here or registered in this session (temporary views),
    # never a catalog table it merely names: declare that as a source (format: table)
    existing = {t.name.lower() for t in spark.catalog.listTables() if t.isTemporary}
    order = load_order(views, maps, existing - {v.name.lower() for v in views})
    loaded = []
    for view in order:
        try:
            frame = _frame(spark, view)
            frame.schema  # noqa: B018 - analysis now, so the error names this view
        except (AnalysisException, ParseException) as err:
            raise _error(f"view {view.name!r} cannot load: {str(err).splitlines()[0]}") from None
        frame.createOrReplaceTempView(view.name)
        loaded.append(view.name)
    sizes = {}
    for m in maps:
        try:
            spark.sql(map_view_sql(m.name, m.view, m.key, m.value))
            frame = reads.table(spark, m.name)
            stats = frame.agg(F.count(KEY).alias("n"), F.count_distinct(KEY).alias("keys")).first()
        except (AnalysisException, ParseException, ValueError) as err:
            spark.catalog.dropTempView(m.name)
            raise _error(f"map {m.name!r} cannot load: {str(err).splitlines()[0]}") from None
        assert stats is not None
        if stats.n != stats.keys:
            repeated = frame.groupBy(KEY).count().where("count > 1").limit(3).collect()
            examples = ", ".join(repr(r[KEY]) for r in repeated)
            spark.catalog.dropTempView(m.name)  # a map that cannot look up is not left behind
            raise _error(
                f"map {m.name!r}: keys repeat ({stats.n} rows, {stats.keys} distinct keys; "
                f"e.g. {examples}): a lookup must find one value"
            )
        sizes[m.name] = int(stats.n)
    return LoadedViews(tuple(loaded), tuple(m.name for m in maps), sizes)
