"""Struct shapes (field names and nesting) read from DDL, for expansions that rebuild structs.

Spark SQL has no ``withField``/``dropFields`` function, so ``update_field`` and ``drop_field``
are expanded into ``named_struct`` rebuilds, which needs the struct's fields at compile time.

A shape is a tuple of ``(field name, sub-shape or None)``; None marks a non-struct field.

>>> parse_shape("struct<a: int, b: struct<c: string, d: int>>")
(('a', None), ('b', (('c', None), ('d', None))))
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.dialect import DIALECT

Shape = tuple[tuple[str, "Shape | None"], ...]


def _shape_of(dtype: exp.DataType) -> Shape | None:
    if not dtype.is_type(exp.DataType.Type.STRUCT):
        return None
    fields: list[tuple[str, Shape | None]] = []
    for col in dtype.expressions:
        kind = col.args.get("kind")
        fields.append((col.name, _shape_of(kind) if isinstance(kind, exp.DataType) else None))
    return tuple(fields)


def parse_shape(ddl: str) -> Shape:
    """The shape of a struct DDL (``struct<...>``); raises ValueError for other types."""
    shape = _shape_of(exp.DataType.build(ddl, dialect=DIALECT))
    if shape is None:
        raise ValueError(f"not a struct type: {ddl}")
    return shape


def shape_of_ddl(ddl: str | None) -> Shape | None:
    """The shape of ``ddl`` when it is a struct type, else None.

    >>> shape_of_ddl("struct<a:int>"), shape_of_ddl("int"), shape_of_ddl(None)
    ((('a', None),), None, None)
    """
    if not ddl:
        return None
    try:
        return _shape_of(exp.DataType.build(ddl, dialect=DIALECT))
    except Exception:
        return None


def _unwrap(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def literal_shape(node: exp.Expr) -> Shape | None:
    """The fields of a struct built in the text itself: ``named_struct('a', x, ...)`` or
    ``struct(a, b AS c)``, also under the ``IF(s IS NULL, NULL, <struct>)`` guard that the
    struct-update expansions produce. Nested field shapes are those of nested constructors;
    other values get None here (the caller asks Spark for their type where it can)."""
    node = _unwrap(node)
    if isinstance(node, exp.If):
        branches = [node.args.get("true"), node.args.get("false")]
        shapes = [literal_shape(b) for b in branches if b is not None and not _is_null(b)]
        if shapes and all(s is not None and s == shapes[0] for s in shapes):
            return shapes[0]
        return None
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "named_struct":
        args = list(node.expressions)
        if len(args) % 2 or not all(isinstance(a, exp.Literal) and a.is_string for a in args[0::2]):
            return None
        return tuple(
            (a.this, literal_shape(v)) for a, v in zip(args[0::2], args[1::2], strict=True)
        )
    if isinstance(node, exp.Struct):
        fields: list[tuple[str, Shape | None]] = []
        for i, item in enumerate(node.expressions):
            if isinstance(item, exp.PropertyEQ):
                fields.append((item.this.name, literal_shape(item.expression)))
            elif isinstance(item, exp.Alias):
                fields.append((item.alias, literal_shape(item.this)))
            elif isinstance(item, exp.Column):
                fields.append((item.name, None))
            else:
                fields.append((f"col{i + 1}", literal_shape(item)))
        return tuple(fields)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        to = node.args.get("to")
        return _shape_of(to) if isinstance(to, exp.DataType) else None
    return None


def _is_null(node: exp.Expr) -> bool:
    return isinstance(_unwrap(node), exp.Null)
