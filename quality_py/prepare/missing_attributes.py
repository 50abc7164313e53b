"""``coalesce_if_attributes_missing(e1, ..., en)``: keep the first argument the schema can run.

Rewritten before compiling (contract section 8.2): the call becomes the first argument whose
column references all exist in the schema (nested paths included), else ``NULL``; the
``_disable`` variant gives ``-2`` (DisabledRule) instead. Nested calls are rewritten first.
Columns bound by a higher-order function's lambda are not attributes. Both the snake-case and
camel-case names are accepted.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from quality_py.sql.build import lit, paren

_NAMES = {
    "coalesce_if_attributes_missing": False,
    "coalesceifattributesmissing": False,
    "coalesce_if_attributes_missing_disable": True,
    "coalesceifattributesmissingdisable": True,
}


def is_missing_attributes_call(node: exp.Expr) -> bool:
    """True for a (not yet rewritten) ``coalesce_if_attributes_missing[_disable]`` call."""
    return isinstance(node, exp.Anonymous) and str(node.this).lower() in _NAMES


def referenced_paths(node: exp.Expr) -> Iterable[str]:
    """Lower-cased dotted paths of the free column references in ``node``."""
    for col in node.find_all(exp.Column):
        head = col.parts[0].name.lower() if col.parts else ""
        bound = False
        parent = col.parent
        while parent is not None:
            if isinstance(parent, exp.Lambda) and head in {
                e.name.lower() for e in parent.expressions
            }:
                bound = True
                break
            parent = parent.parent
        if not bound:
            yield ".".join(p.name.lower() for p in col.parts)


def rewrite_missing_attributes(tree: exp.Expr, known: frozenset[str]) -> exp.Expr:
    """Replace each call by its first runnable argument.

    >>> from sqlglot import parse_one
    >>> known = frozenset({"fielda"})
    >>> tree = parse_one("isNull(coalesceIfAttributesMissing(fieldb > 0, fielda <> 19))")
    >>> rewrite_missing_attributes(tree, known).sql()
    'ISNULL((fielda <> 19))'
    >>> disable = parse_one("coalesceIfAttributesMissingDisable(b > 1)")
    >>> rewrite_missing_attributes(disable, known).sql()
    '-2'
    """

    tree = tree.copy()
    calls = [n for n in tree.walk() if is_missing_attributes_call(n)]
    for call in reversed(calls):  # innermost first: an argument is final before it is judged
        chosen: exp.Expr = lit(-2) if _NAMES[str(call.this).lower()] else exp.Null()
        for arg in call.expressions:
            if all(p in known for p in referenced_paths(arg)):
                chosen = paren(arg.copy())
                break
        if call is tree:
            tree = chosen
        else:
            call.replace(chosen)
    return tree
