"""The numbers a run shows, one definition each: the command line, ``--json``, the stats, the
history, the report site and the alerts use these words for these numbers and no other
(docs/glossary.md is this table; a test compares them, and another reads one run's numbers
from every surface).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A number's name, its key where it is stored, and what it is."""

    name: str
    key: str
    definition: str


TERMS: tuple[Term, ...] = (
    Term("input rows", "input_rows", "rows the run read"),
    Term("valid rows", "valid_rows", "rows in the valid output: input rows less dropped rows"),
    Term("dropped rows", "dropped_rows", "rows a `drop` rule failed, kept out of the valid output"),
    Term(
        "quarantined rows",
        "quarantined_rows",
        "rows at least one rule failed, written to the quarantine (dropped or not)",
    ),
    Term("passing rows", "passing_rows", "rows no rule failed: input rows less quarantined rows"),
    Term("pass rate", "pass_rate", "passing rows divided by input rows"),
    Term("valid share", "valid_share", "valid rows divided by input rows"),
    Term(
        "failing rows",
        "failing",
        "of one rule: the rows it failed (Failed, or a probability below the suite's "
        "`probable_pass`), the rows whose quarantine entry names it",
    ),
    Term("failing share", "failed_share", "of one rule: its failing rows divided by input rows"),
    Term(
        "rule pass rate",
        "rule_pass_rate",
        "of one rule: the rows it passed divided by the rows it applied to (not disabled)",
    ),
    Term(
        "failing rule results",
        "failing_rule_results",
        "the failing rows of every rule added up: a row three rules fail counts three times",
    ),
)
BY_KEY: Mapping[str, Term] = {t.key: t for t in TERMS}


def define(key: str) -> str:
    """The one-line definition of the number stored as ``key``.

    >>> define("pass_rate")
    'pass rate: passing rows divided by input rows'
    """
    term = BY_KEY[key]
    return f"{term.name}: {term.definition}"


#: statuses as people read them, where the stored word is not one (the stored word stays in the
#: pages' data attributes and in every machine output)
STATUS_WORDS: Mapping[str, str] = {
    "not_judged": "not judged yet",
    "soft_failed": "soft failed",
}


def status_word(status: str) -> str:
    """How a status is said on a page or in a message.

    >>> status_word("not_judged"), status_word("failed")
    ('not judged yet', 'failed')
    """
    return STATUS_WORDS.get(status, status)


def percent(share: float) -> str:
    """A share (pass rate, valid share, failing share) as every surface shows it: two
    decimals, never rounded to 0 % or 100 % when it is not.

    >>> percent(0.00004), percent(0.5), percent(0.99999), percent(1.0)
    ('<0.01 %', '50.00 %', '>99.99 %', '100.00 %')
    """
    if 0 < share < 0.0001:
        return "<0.01 %"
    if 0.9999 < share < 1:
        return ">99.99 %"
    return f"{share * 100:.2f} %"


def allowed(lower: float | None, upper: float | None) -> str:
    """The values a bound allows, in words (never ``[0.7, -]``).

    >>> allowed(0.7, None), allowed(None, 5), allowed(1, 2.5), allowed(None, None)
    ('at least 0.7', 'at most 5', 'between 1 and 2.5', 'any value')
    """
    if lower is not None and upper is not None:
        return f"between {lower:.6g} and {upper:.6g}"
    if lower is not None:
        return f"at least {lower:.6g}"
    if upper is not None:
        return f"at most {upper:.6g}"
    return "any value"


def out_of_bounds(value: float, lower: float | None, upper: float | None, what: str = "") -> str:
    """Why ``value`` is outside its bounds, in words: the side it crossed and what is allowed.

    >>> out_of_bounds(0.65, 0.7, None)
    '0.65 is below 0.7 (allowed: at least 0.7)'
    >>> out_of_bounds(-3, -2, 3, "change ")
    'change -3 is below -2 (allowed: between -2 and 3)'
    """
    if lower is not None and value < lower:
        side = f"below {lower:.6g}"
    elif upper is not None and value > upper:
        side = f"above {upper:.6g}"
    else:
        side = f"not {allowed(lower, upper)}"
    return f"{what}{value:.6g} is {side} (allowed: {allowed(lower, upper)})"


def run_numbers(
    input_rows: int, valid_rows: int, quarantined_rows: int, failing: Mapping[str, int]
) -> dict[str, float | int | None]:
    """The run-level numbers of the glossary from the counts (``failing``: each rule's failing
    rows), as ``--json`` and the site show them.

    >>> run_numbers(200, 190, 15, {"101.1": 10, "102.1": 8})["pass_rate"]
    0.925
    """
    passing = input_rows - quarantined_rows
    return {
        "input_rows": input_rows,
        "valid_rows": valid_rows,
        "dropped_rows": input_rows - valid_rows,
        "quarantined_rows": quarantined_rows,
        "passing_rows": passing,
        "pass_rate": passing / input_rows if input_rows else None,
        "valid_share": valid_rows / input_rows if input_rows else None,
        "failing_rule_results": sum(failing.values()),
    }


__all__ = [
    "BY_KEY",
    "STATUS_WORDS",
    "TERMS",
    "Term",
    "define",
    "percent",
    "run_numbers",
    "status_word",
]
