"""A rule's tolerance: when its failing rows matter to the run's verdict (``warn_if``,
``fail_if``).

A tolerance is text: ``>`` or ``>=``, a number, and ``%`` when the number is a share of the run's
input rows (``"> 0.5 %"``, ``">= 2%"``), else a count of failing rows (``"> 1000"``). It is
compared exactly (the text's decimal number, never a rounded float): 5 failing rows of 1,000
are exactly 0.5 %, so ``"> 0.5 %"`` is not past and ``">= 0.5 %"`` is.

Refused, naming the rule: any other text, a number given as a number (``0.05`` could mean 5 %
or 0.05 %), a share above 100 %, and ``>= 0`` (past on every run, with no failing row).

>>> t = parse_tolerance("> 0.5 %")
>>> t.past(5, 1000), t.past(6, 1000), t.describe()
(False, True, 'more than 0.5 % of the rows')
>>> parse_tolerance(">= 1000").past(1000, 10**9)
True
>>> share_text(31, 5000)
'0.62 %'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from quality_py.errors import ModelError
from quality_py.model.ids import Id

#: ``>`` or ``>=``, a plain decimal number, an optional ``%``.
_TOLERANCE = re.compile(r"^\s*(>=|>)\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$")
#: The two tolerances a rule may state, in the order a run judges them.
TOLERANCE_FIELDS = ("fail_if", "warn_if")


@dataclass(frozen=True, slots=True)
class Tolerance:
    """A parsed tolerance: past when the failing rows are more than (``inclusive``: at least)
    ``limit`` rows, or ``limit`` percent of the rows when ``share``."""

    text: str
    limit: Fraction
    share: bool
    inclusive: bool

    def past(self, failing: int, rows: int) -> bool:
        """Whether ``failing`` rows of ``rows`` are past this tolerance (never with no failing
        row: a tolerance says when failures matter).

        >>> parse_tolerance(">= 5 %").past(0, 0), parse_tolerance(">= 5 %").past(1, 20)
        (False, True)
        """
        if failing <= 0:
            return False
        value = Fraction(failing * 100, rows) if self.share else Fraction(failing)
        return value >= self.limit if self.inclusive else value > self.limit

    def describe(self) -> str:
        """The tolerance in words.

        >>> parse_tolerance(">= 12").describe()
        'at least 12 failing rows'
        """
        than = "at least" if self.inclusive else "more than"
        if self.share:
            return f"{than} {_plain(self.limit)} % of the rows"
        word = "row" if self.limit == 1 and self.inclusive else "rows"
        return f"{than} {_plain(self.limit)} failing {word}"


def _plain(value: Fraction) -> str:
    """A limit as it was written (its decimal digits, no exponent)."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.12f}".rstrip("0")
    return text.rstrip(".")


def share_text(failing: int, rows: int) -> str:
    """``failing`` of ``rows`` as a percentage with two decimals (``-`` with no rows).

    >>> share_text(1, 3), share_text(0, 0)
    ('33.33 %', '-')
    """
    return "-" if rows <= 0 else f"{failing * 100 / rows:.2f} %"


def parse_tolerance(
    text: object, *, field: str = "tolerance", item_id: Id | None = None
) -> Tolerance:
    """``text`` as a :class:`Tolerance`, or a :class:`~quality_py.errors.ModelError` naming the
    rule and the field.

    >>> parse_tolerance("more than 5", field="fail_if", item_id=Id(7, 1))
    Traceback (most recent call last):
    ...
    quality_py.errors.ModelError: [INVALID_MODEL] fail_if 'more than 5' must be ...
    """

    def refuse(why: str) -> ModelError:
        err = ModelError(f"{field} {text!r} {why}", item_id=item_id)
        err.parameter = field  # type: ignore[attr-defined]
        return err

    if not isinstance(text, str):
        raise refuse(
            "must be text such as '> 0.5 %' (a share of the run's rows) or '> 1000' "
            "(a count of failing rows)"
        )
    found = _TOLERANCE.match(text)
    if found is None:
        raise refuse(
            "must be '>' or '>=', a number and, for a share of the run's rows, '%' "
            "(for example '> 0.5 %' or '> 1000')"
        )
    op, number, percent = found.groups()
    limit = Fraction(number)
    if percent and limit > 100:
        raise refuse("is above 100 % of the rows: it could never be past")
    if op == ">=" and limit == 0:
        raise refuse("is past on every run, with no failing row: write '> 0' for any failure")
    return Tolerance(text, limit, bool(percent), op == ">=")


__all__ = ["TOLERANCE_FIELDS", "Tolerance", "parse_tolerance", "share_text"]
