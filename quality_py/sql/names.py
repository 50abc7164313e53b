"""What a parsed rule text names: input columns (for validation against a schema) and the
functions it calls (for generated documentation)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from sqlglot import exp

from quality_py.errors import Span


def _free_columns(tree: exp.Expr, params: set[str]) -> Iterator[tuple[list[str], exp.Column]]:
    """Column references that name the input (not lambda variables, not inside subqueries)."""
    for col in tree.find_all(exp.Column):
        parts = [p.name for p in col.parts]
        if not parts or parts[0].lower() in params:
            continue
        node = col.parent
        hidden = False
        while node is not None:
            if isinstance(node, (exp.Subquery, exp.Select)) and parts[0].lower() != "main":
                hidden = True
                break
            if isinstance(node, exp.Lambda) and parts[0].lower() in {
                e.name.lower() for e in node.expressions
            }:
                hidden = True
                break
            node = node.parent
        if not hidden:
            yield (parts[1:] if parts[0].lower() == "main" and len(parts) > 1 else parts), col


def name_span(text: str, name: str) -> Span | None:
    """Where ``name`` (a column as the rule wrote it, maybe dotted) first stands in ``text``.

    >>> span = name_span("a > 0 AND trip . Fare < 3", "trip.fare")
    >>> span.line, span.col
    (1, 11)
    """
    parts = [re.escape(p) for p in name.split(".")]
    pattern = r"(?<![\w.])`?" + r"`?\s*\.\s*`?".join(parts) + r"`?(?!\w)"
    found = re.search(pattern, text, re.IGNORECASE)
    return None if found is None else Span.from_offsets(text, found.start(), found.end())


def unknown_names(tree: exp.Expr, paths: dict[str, bool], params: set[str]) -> list[str]:
    """Dotted names in ``tree`` the schema does not have (``paths``: path -> is a struct)."""
    missing = []
    for parts, _ in _free_columns(tree, params):
        path = parts[0].lower()
        if path not in paths and len(parts) > 1 and parts[1].lower() in paths:
            parts = parts[1:]  # q.col: a join's qualifier, which Spark's analysis checks
            path = parts[0].lower()
        if path not in paths:
            missing.append(".".join(parts))
            continue
        for part in parts[1:]:
            if not paths[path]:  # a map, array or scalar: the rest is not a struct field
                break
            path = f"{path}.{part.lower()}"
            if path not in paths:
                missing.append(".".join(parts))
                break
    return list(dict.fromkeys(missing))


def view_columns_missing(
    tree: exp.Expr, views: Mapping[str, Mapping[str, bool] | None]
) -> list[tuple[str, str, str]]:
    """``(view, column, as written)`` for each column a query in ``tree`` reads from a view whose
    columns are known (``views``: lower-cased name -> ``{dotted path: is a struct}``, or None
    when unknown) and that the view lacks. A column counts as the view's when it is qualified
    by the view's name or alias, or when it stands unqualified in a derived table's query that
    reads that view alone (such a query has no outer row: ``in_reference`` and lookups compile
    to one). Any other unqualified column may be the outer row's, which the check of names
    covers.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression(
    ...     "exists(SELECT 1 FROM airports p WHERE p.fa = main.dest)"
    ...     " AND exists(SELECT 1 FROM (SELECT code FROM planes) r WHERE r.code = tailnum)")
    >>> view_columns_missing(tree, {"airports": {"faa": False}, "planes": {"tailnum": False}})
    [('airports', 'fa', 'p.fa'), ('planes', 'code', 'code')]
    """
    missing = []
    for select in tree.find_all(exp.Select):
        tables = [t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
        sources = {
            t.alias_or_name.lower(): t.name.lower()
            for t in tables
            if views.get(t.name.lower()) is not None
        }
        if not sources:
            continue
        parent = select.parent
        in_from = parent is not None and isinstance(parent.parent, (exp.From, exp.Join))
        derived = isinstance(parent, exp.Subquery) and in_from
        alone = derived and len(tables) == 1 and len(sources) == 1
        for col in select.find_all(exp.Column):
            if col.find_ancestor(exp.Select) is not select or not col.name:
                continue
            qualifier = col.table.lower()
            view = sources.get(qualifier) if qualifier else None
            if view is None and not qualifier and alone:
                view = next(iter(sources.values()))
            known = views.get(view) if view is not None else None
            if known is not None and view is not None and col.name.lower() not in known:
                written = f"{col.table}.{col.name}" if qualifier else col.name
                missing.append((view, col.name, written))
    return list(dict.fromkeys(missing))


def functions_called(tree: exp.Expr) -> list[str]:
    """The names of the functions a tree calls (operators excluded), as written for calls to
    unknown functions and lower-cased otherwise, in tree order.

    >>> from quality_py.sql.parse import parse_expression
    >>> functions_called(parse_expression("isPositive(abs(a)) AND b > 0"))
    ['isPositive', 'abs']
    """
    names = []
    for node in tree.find_all(exp.Func):
        if isinstance(node, (exp.Binary, exp.Unary, exp.Connector, exp.Predicate)):
            continue
        names.append(str(node.this) if isinstance(node, exp.Anonymous) else node.sql_name().lower())
    return names


def query_tables(sql: str) -> set[str]:
    """The tables and views one SELECT query reads (lower case; its own CTEs excluded).

    Raises ValueError when ``sql`` is not exactly one query (reference data is read, never
    changed).

    >>> sorted(query_tables("WITH t AS (SELECT 1) SELECT * FROM a JOIN B ON a.x = B.x, t"))
    ['a', 'b']
    """
    from quality_py.sql.dialect import DIALECT

    try:
        statements = DIALECT.parse(sql)
    except Exception as err:
        raise ValueError(f"does not parse: {str(err).splitlines()[0]}") from None
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise ValueError("must be one SELECT query")
    tree = statements[0]
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() not in ctes}


def map_view_sql(name: str, view: str, key: str, value: str) -> str:
    """``CREATE OR REPLACE TEMPORARY VIEW name AS SELECT key AS __qp_key, value AS __qp_value
    FROM view``, built as a tree from the two expressions (each must be exactly one).

    A view created from SQL is analysed afresh wherever a query reads it, so two lookups of one
    map in a rule do not share attribute ids (Spark 3.5 refuses that in decorrelated subqueries).

    >>> sql = map_view_sql("m", "airlines", "upper(carrier)", "name")
    >>> for part in sql.split(" AS SELECT "):
    ...     print(part)
    CREATE OR REPLACE TEMPORARY VIEW `m`
    UPPER(carrier) AS __qp_key, name AS __qp_value FROM `airlines`
    """
    from quality_py.errors import QualityError
    from quality_py.sql.compiler import compile_expression  # the compiler reads names

    parts = []
    for what, text in (("key", key), ("value", value)):
        try:  # the rule policy, like any rule text
            parts.append(compile_expression(text, kind=f"map {what}"))
        except QualityError as err:
            raise ValueError(f"its {what}: {err.message}") from None
    select = exp.select(exp.alias_(parts[0], "__qp_key"), exp.alias_(parts[1], "__qp_value")).from_(
        exp.Table(this=exp.to_identifier(view, quoted=True))
    )
    create = exp.Create(
        this=exp.Table(this=exp.to_identifier(name, quoted=True)),
        kind="VIEW",
        replace=True,
        expression=select,
        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
    )
    from quality_py.sql.build import to_sql

    return to_sql(create)  # immune to Spark's variable substitution
