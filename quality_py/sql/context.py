"""What a compile pass knows: the item being compiled, its suite's lambdas and the result layout."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sqlglot import exp

from quality_py.errors import Span
from quality_py.model.ids import Id
from quality_py.model.layout import ResultLayout
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.results import Layout
from quality_py.sql.parse import ParsedLambda
from quality_py.sql.shapes import Shape


class Lambdas(Protocol):
    """What a pass asks of a suite's lambdas (:class:`quality_py.sql.lambdas.LambdaLibrary`)."""

    expanded: dict[tuple[str, int], tuple[tuple[str, ...], exp.Expr]]
    sizes: dict[tuple[str, int], tuple[int, tuple[int, ...]]]

    def __contains__(self, name: object) -> bool: ...

    def arities(self, name: str) -> tuple[int, ...]: ...

    def get(self, name: str, arity: int) -> ParsedLambda | None: ...

    def all(self) -> list[ParsedLambda]: ...


class NoLambdas:
    """A suite without lambdas (the context of a pass that is given none).

    >>> "f" in NoLambdas(), NoLambdas().arities("f")
    (False, ())
    """

    def __init__(self) -> None:
        self.expanded: dict[tuple[str, int], tuple[tuple[str, ...], exp.Expr]] = {}
        self.sizes: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}

    def __contains__(self, name: object) -> bool:
        return False

    def arities(self, name: str) -> tuple[int, ...]:
        """None: there are no lambdas."""
        return ()

    def get(self, name: str, arity: int) -> ParsedLambda | None:
        """None: there are no lambdas."""
        return None

    def all(self) -> list[ParsedLambda]:
        """None: there are no lambdas."""
        return []


@dataclass
class PassContext:
    """The item a pass works on and what it may refer to."""

    item_id: Id | None = None
    item_kind: str = "rule"
    source: str | None = None
    lambdas: Lambdas = field(default_factory=NoLambdas)
    layout: ResultLayout = Layout.MAP
    #: Counter for fresh lambda-variable names.
    fresh: int = 0
    #: Struct shapes of names in scope (lower-cased), for update_field / drop_field.
    shapes: dict[str, Shape] = field(default_factory=dict)
    #: What the text may do (the safe default unless the caller trusts the suite).
    policy: RulePolicy = DEFAULT_POLICY
    #: Spark's type (DDL) of a SQL expression over the input, or None when it does not analyse;
    #: given by runners that hold a DataFrame (update_field on any struct expression).
    type_of: Callable[[str], str | None] | None = None
    #: The view of the whole input, registered by the expression runner (``map_with`` groups it).
    input_view: str | None = None
    #: Every question put to ``type_of`` (through :meth:`kind`) with its answer, in order,
    #: shared by the contexts of one compile: a compile is a function of its text and these
    #: answers, so it can be reused where the same questions get the same answers.
    asked: list[tuple[str, str | None]] | None = None

    @property
    def knows_types(self) -> bool:
        """Whether Spark's types of expressions over the input can be asked (:meth:`kind`)."""
        return self.type_of is not None

    def kind(self, sql: str) -> str | None:
        """Spark's type of ``sql`` over the input, None when it does not analyse or no type
        oracle was given; the question and its answer are recorded in ``asked`` either way.

        >>> ctx = PassContext(type_of=lambda sql: "int" if sql == "a" else None, asked=[])
        >>> ctx.kind("a"), ctx.kind("nope"), PassContext(asked=[]).kind("a"), ctx.asked
        ('int', None, None, [('a', 'int'), ('nope', None)])
        """
        answer = self.type_of(sql) if self.type_of is not None else None
        if self.asked is not None:
            self.asked.append((sql, answer))
        return answer

    def fresh_name(self, hint: str) -> str:
        """A lambda-variable name that cannot clash with user columns."""
        self.fresh += 1
        return f"__qp_{hint}{self.fresh}"

    def span_of(self, node: exp.Expr) -> Span | None:
        """The position of ``node`` (or its first positioned descendant) in the source."""
        if self.source is None:
            return None
        for sub in node.walk():
            meta = getattr(sub, "_meta", None) or {}
            if "start" in meta:
                return Span.from_offsets(self.source, int(meta["start"]), int(meta["end"]) + 1)
        return None
