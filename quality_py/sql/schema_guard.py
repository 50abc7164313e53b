"""A column's SQL that holds only for the schema it was analysed against: each input column's
``typeof`` is compared with the ``typeof`` of a null of the declared type, both computed by the
Spark that runs it (so both name the type alike, collations included; both depend on types
alone, so Spark folds the test before any row is read), and a column of another type raises an
error naming it instead of coding rows by the wrong types (``quality_py.actions.pipelines``)."""

from __future__ import annotations

from collections.abc import Sequence

from quality_py.sql.snippets import quoted, string_literal


def schema_guarded(body: str, kinds: Sequence[tuple[str, str]], qualifier: str = "main") -> str:
    """``body`` when every ``(column, SQL type)`` of ``kinds`` holds, else an error naming the
    first column whose type differs.

    >>> sql = schema_guarded("x > 0", [("x", "INT")])
    >>> sql[:71]
    'CASE WHEN typeof(main.`x`) = typeof(CAST(NULL AS INT)) THEN x > 0 WHEN '
    >>> sql[sql.index("raise_error"):][:80]
    "raise_error(CONCAT('quality_py: the rules were analysed for column x of type INT"
    """
    if not kinds:
        return body
    tests, errors = [], []
    for name, kind in kinds:
        column = f"{qualifier}.{quoted(name)}"
        test = f"typeof({column}) = typeof(CAST(NULL AS {kind}))"
        tests.append(test)
        message = string_literal(
            f"quality_py: the rules were analysed for column {name} of type {kind}, not "
        )
        errors.append(f"WHEN NOT ({test}) THEN raise_error(CONCAT({message}, typeof({column})))")
    return f"CASE WHEN {' AND '.join(tests)} THEN {body} {' '.join(errors)} END"


__all__ = ["schema_guarded"]
