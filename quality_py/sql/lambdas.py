"""A suite's lambdas as the compiler resolves them: by lower-cased name and arity, each name
checked to be callable (a call of it parses as a plain function call that reaches the lambda,
not a keyword, a built-in or one of our library functions)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlglot import exp

from quality_py.errors import LambdaError
from quality_py.model.ids import Id
from quality_py.model.rules import LambdaFunction
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library import lookup
from quality_py.sql.parse import ParsedLambda, parse_lambda


class LambdaLibrary:
    """A suite's lambdas by lower-cased name and arity (Spark resolves names case-insensitively).

    >>> lib = LambdaLibrary([LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))])
    >>> lib.arities("ISPOSITIVE")
    (1,)
    """

    def __init__(self, lambdas: Iterable[LambdaFunction] = ()) -> None:
        self._setup([parse_lambda(fn) for fn in lambdas])

    @classmethod
    def from_parsed(cls, lambdas: Iterable[ParsedLambda]) -> LambdaLibrary:
        """A library of lambdas the caller has parsed already (the compiler parses once)."""
        library = cls.__new__(cls)
        library._setup(list(lambdas))
        return library

    def _setup(self, lambdas: list[ParsedLambda]) -> None:
        self._by_name: dict[str, dict[int, ParsedLambda]] = defaultdict(dict)
        #: Fully inlined bodies over fresh parameter names, filled by the inlining pass (bodies
        #: have no closures, so the expansion does not depend on where a lambda is called).
        self.expanded: dict[tuple[str, int], tuple[tuple[str, ...], exp.Expr]] = {}
        #: Node count of each expanded body and how often it uses each parameter (for the
        #: limit on inlined size, checked before a call is inlined).
        self.sizes: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}
        same: dict[tuple[str, int], list[ParsedLambda]] = defaultdict(list)
        for parsed in lambdas:
            check_callable_name(parsed.name, parsed.id)
            same[(parsed.name.lower(), parsed.arity)].append(parsed)
        for (name, arity), impls in same.items():
            if len(impls) > 1:
                ids = ", ".join(repr(p.id) for p in impls)
                raise LambdaError(
                    f"lambda function {impls[0].name} has {len(impls)} implementations with "
                    f"{arity} arguments: {ids}",
                    item_id=impls[0].id,
                    item_kind="lambda",
                    code="DUPLICATE_LAMBDA",
                )
            self._by_name[name][arity] = impls[0]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_name

    def arities(self, name: str) -> tuple[int, ...]:
        """The arities defined for ``name``, sorted."""
        return tuple(sorted(self._by_name.get(name.lower(), {})))

    def get(self, name: str, arity: int) -> ParsedLambda | None:
        """The lambda ``name`` with ``arity`` parameters, if defined."""
        return self._by_name.get(name.lower(), {}).get(arity)

    def all(self) -> list[ParsedLambda]:
        """Every lambda in the library."""
        return [p for impls in self._by_name.values() for p in impls.values()]


def check_callable_name(name: str, item_id: Id) -> None:
    """A lambda is only inlined where its call parses as a plain function call.

    Names such as ``double`` (a type), ``between`` (a keyword) or ``upper`` (a built-in) parse as
    something else, and library functions (``passed``) are expanded instead, so calls would
    silently not reach the lambda.
    """
    try:
        call = DIALECT.parse(f"{name}(1)")[0]
    except Exception:
        call = None
    if not (isinstance(call, exp.Anonymous) and call.this == name):
        raise LambdaError(
            f"lambda name {name!r} is a SQL keyword or built-in function; choose another name",
            item_id=item_id,
            item_kind="lambda",
            code="LAMBDA_SYNTAX",
        )
    if lookup(name) is not None or name.lower() in ("callfun", "_lambda_", "_", "set"):
        raise LambdaError(
            f"lambda name {name!r} is a quality_py library function; calls would not reach the "
            "lambda: choose another name",
            item_id=item_id,
            item_kind="lambda",
            code="LAMBDA_SYNTAX",
        )
