"""Validation findings and the report that groups them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from quality_py.errors import Span, escape_text, item_text
from quality_py.model.ids import Id

#: Finding kinds (contract section 6; our names, one per distinct problem).
ERROR_KINDS = (
    "SyntaxError",  # the text does not parse as one expression
    "NameError",  # an unknown column or nested field
    "FunctionNameError",  # an unknown function
    "ViewError",  # a subquery names a table or view that does not exist
    "LambdaArityError",  # a lambda called with an arity it does not define
    "LambdaDuplicateError",  # two lambdas with one name and arity
    "LambdaRecursionError",  # lambdas calling each other in a cycle
    "LibraryFunctionError",  # a library function used wrongly
    "PolicyError",  # something the rule policy does not allow, or over its limits
    "AnalysisError",  # any other Spark analysis error (types, ...)
    "SampleRunError",  # running the suite on the sample rows failed
    "CheckError",  # a dataset check that cannot run (its assertion, predicate or analyzer)
    "ImplicitCast",  # a text column meets a number or date and the policy refuses the conversion
)
WARNING_KINDS = (
    "NonLambdaDocParameters",  # @param documented on a rule or output (it has no parameters)
    "ExtraDocParameter",  # @param names no parameter of the lambda
    "StringResult",  # a rule yields text: only a few words are results, other text is Failed
    "ImplicitCoercion",  # the same where the policy allows it: Spark casts it, bad text fails
)
#: What a rule costs beyond its own row (neither an error nor a warning): a shuffle of the input
#: on a key set, a join with a view (rules that see more than one row).
NOTE_KINDS = ("Cost",)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found by :func:`quality_py.validate`."""

    kind: str
    item_kind: str  # "rule", "lambda", "output", "meta rule set", "suite"
    item_id: Id | None
    message: str
    span: Span | None = None
    source: str | None = None

    @property
    def is_error(self) -> bool:
        """Errors stop a run; warnings do not."""
        return self.kind in ERROR_KINDS

    def describe(self, name: str | None = None) -> str:
        """One line: kind, item (with its ``name``), position and message.

        >>> Finding("NameError", "rule", Id(5, 1), "no column x").describe("x_known")
        "NameError in rule 'x_known' (5.1): no column x"
        """
        where = item_text(self.item_kind, self.item_id, name)
        if self.span is not None:
            where += f" line {self.span.line}, col {self.span.col}"
        return f"{self.kind} in {where}: {escape_text(self.message)}"


@dataclass(frozen=True)
class ValidationReport:
    """Everything found while validating a suite against a schema.

    >>> report = ValidationReport(Id(1, 1), (Finding("NameError", "rule", Id(5, 1), "no x"),))
    >>> report.ok, [f.item_id for f in report.errors]
    (False, [Id(5, 1)])
    """

    suite_id: Id
    findings: tuple[Finding, ...] = ()
    spark_checked: bool = False
    sample: list[Any] | None = field(default=None, compare=False)
    #: the names of named rules, shown beside their ids
    names: Mapping[Id | None, str] = field(default_factory=dict, compare=False)
    #: what rules cost beyond their own row (a shuffle of the input on a key set, a join with a
    #: view), one ``Cost`` note per cost: neither errors nor warnings
    notes: tuple[Finding, ...] = ()
    #: the suite's name, shown beside its id
    suite_name: str | None = field(default=None, compare=False)
    #: whether column names were checked (a schema was given)
    names_checked: bool = field(default=True, compare=False)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings that would fail a run."""
        return tuple(f for f in self.findings if f.is_error)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Findings worth fixing that do not fail a run."""
        return tuple(f for f in self.findings if not f.is_error)

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def name_of(self, finding: Finding) -> str | None:
        """The name of the rule a finding is about, when it has one.

        >>> report = ValidationReport(Id(1, 1), names={Id(5, 1): "a_known"})
        >>> report.name_of(Finding("NameError", "rule", Id(5, 1), "no column a"))
        'a_known'
        """
        return self.names.get(finding.item_id) if finding.item_kind == "rule" else None

    def format(self, where: Callable[[Finding], str | None] | None = None) -> str:
        """A readable multi-line report; ``where`` gives a finding's ``file:line:col``, which
        then starts its line (as compilers print it, so editors jump there).

        >>> from quality_py.model import Id
        >>> print(ValidationReport(Id(1, 1), (), True, suite_name="orders").format())
        suite 'orders' (1.1): 0 error(s), 0 warning(s)
        """
        suite = item_text("suite", self.suite_id, self.suite_name)
        head = f"{suite}: {len(self.errors)} error(s), {len(self.warnings)} warning(s)"
        if not self.names_checked:
            head += " (no schema given: column names were not checked)"
        elif not self.spark_checked:
            head += " (checked without Spark: column types were not analysed)"
        lines = [head]
        groups = (("errors", self.errors), ("warnings", self.warnings), ("costs", self.notes))
        for title, items in groups:
            if items:
                lines.append(f"{title}:")
                for f in items:
                    place = where(f) if where is not None else None
                    at = f"{place}: " if place else ""
                    lines.append(f"  - {at}{f.describe(self.name_of(f))}")
        if self.sample is not None:
            lines.append(f"sample: {len(self.sample)} row(s) checked")
        return "\n".join(lines)
