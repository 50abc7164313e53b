"""The registry of library functions: each registers its expansion into Spark built-ins.

Each function is registered under its snake_case name; calls match case-insensitively with or
without underscores, as the original registers them (``softFail`` = ``soft_fail``). Nothing is
registered in the Spark session: every call is replaced by built-in SQL at compile time. The
families (``core``, ``ids``, ``digests`` ...) import this module, never each other, and the
package imports every family explicitly (``quality_py/sql/library/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import paren, substitute
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT

Handler = Callable[[list[exp.Expr], PassContext], exp.Expr]


@dataclass(frozen=True, slots=True)
class LibraryFunction:
    """A registered library function: its name, allowed argument counts and expansion."""

    name: str
    arities: tuple[int, ...]
    expand: Handler
    doc: str


REGISTRY: dict[str, LibraryFunction] = {}


def canonical(name: str) -> str:
    """The lookup key of a function name: lower case, underscores removed.

    >>> canonical("soft_Fail") == canonical("softFail")
    True
    """
    return name.lower().replace("_", "")


def register(name: str, *arities: int) -> Callable[[Handler], Handler]:
    """Register the decorated expansion under ``name`` for the given argument counts.

    No counts means variadic: the expansion checks its own arguments.
    """

    def wrap(fn: Handler) -> Handler:
        key = canonical(name)
        assert key not in REGISTRY, name
        REGISTRY[key] = LibraryFunction(name, arities, fn, (fn.__doc__ or "").strip())
        return fn

    return wrap


def lookup(name: str) -> LibraryFunction | None:
    """The library function called ``name`` (any spelling), if there is one."""
    return REGISTRY.get(canonical(name))


def library_error(
    ctx: PassContext, message: str, node: exp.Expr | None = None, code: str = "LIBRARY_TYPE"
) -> LibraryFunctionError:
    """The error of a library call in the item ``ctx`` compiles, pointing at ``node``."""
    return LibraryFunctionError(
        message,
        item_id=ctx.item_id,
        item_kind=ctx.item_kind,
        source=ctx.source,
        span=ctx.span_of(node) if node is not None else None,
        code=code,
    )


_TEMPLATES: dict[str, exp.Expr] = {}


def expand(template: str, *args: exp.Expr) -> exp.Expr:
    """``template`` with ``__a<i>`` replaced by (a copy of) ``args[i]``."""
    if template not in _TEMPLATES:
        tree = DIALECT.parse(template)[0]
        assert tree is not None
        _TEMPLATES[template] = tree
    out = _TEMPLATES[template]
    for i, arg in enumerate(args):
        out = substitute(out, f"__a{i}", paren(arg))
    return out.copy() if not args else out
