"""The aggregates a subquery or a SQL check may call, each with what can go wrong with it.

(The expression runners evaluate a rule over the whole input, as the original does: their
top-level aggregates are the rule itself and are not limited by this catalogue; an overflowing
``sum`` is contained there too.)

A rule's subquery reads reference data, and reference data is data: one value in it must fail
the rows that meet it, never the job. So each aggregate is listed here with its failure mode and
how it is contained (``sql/passes/contain_aggregates.py`` applies it), and an aggregate that is
not listed is refused by the policy (``sql/allowed/enforce.py``), like a function outside the
catalogue:

* ``overflow``: ``sum`` and ``avg`` abort the job under ANSI when a bigint or decimal sum
  overflows (and silently wrap around without ANSI): they become ``try_sum`` / ``try_avg``,
  which give null (the rule's row fails) in both modes;
* ``literal``: percentiles abort the job on a percentage outside ``[0, 1]`` or an accuracy that
  is not a positive literal: their extra arguments must be literals in range (the policy checks);
* ``division``: ``corr`` divides by the columns' spread, which is zero when a column does not
  vary: Spark 4 gives null, Spark 3.5 with ANSI aborts the job, so it is refused before Spark 4
  (``since``);
* ``none``: nothing in the data can make them fail (counts, extremes, moments in double, ...).

A subquery used as a value (``(SELECT v FROM ref WHERE ref.k = k)``) aborts the job when it meets
two rows (a duplicate key in the reference): the pass makes such a query one aggregate row (null
when there are several rows, so the rule fails there).

Refused, with the reason: collecting aggregates grow without bound with the reference
(``collect_list``, ``collect_set``, ``string_agg``); sketches take parameters that abort the job
and produce binary values no rule compares; ``first``/``last``/``any_value`` depend on the order
rows arrive in, so a rerun may give another answer.

``tests/spark/test_aggregate_containment.py`` derives adversarial reference data from
:data:`AGGREGATES` (extreme bigints and decimals, duplicates, NaN, nulls, an empty reference)
and checks on Spark, ANSI on and off, that the job completes and only the rows meeting the bad
values fail.

>>> AGGREGATES["sum"].contained, AGGREGATES["count"].hazard
('try_sum', 'none')
>>> REFUSED_AGGREGATES["array_agg"].split(":")[0]
'collect_list'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlglot import exp


@dataclass(frozen=True, slots=True)
class AggregateSpec:
    """One aggregate a query may call."""

    #: the name the policy sees (sqlglot's canonical name of the call)
    name: str
    #: how Spark SQL writes it (for messages, docs and the fuzzer)
    spark: str
    #: argument kinds the fuzzer feeds it (``n`` int, ``l`` bigint, ``d`` double, ``x``
    #: decimal(38,0), ``s`` string, ``b`` boolean), one per column argument
    kinds: tuple[str, ...]
    #: ``overflow``, ``literal`` or ``none`` (see the module)
    hazard: str = "none"
    #: the call it becomes (overflow: its ``try_`` twin)
    contained: str | None = None
    #: literal arguments after the columns (percentiles: ``0.5``)
    literals: str = ""
    #: the oldest Spark major version on which nothing in the data makes it abort the job
    since: int = 3


def _specs(*rows: tuple[str, str, str, str, str | None, str]) -> dict[str, AggregateSpec]:
    out = {}
    for name, spark, kinds, hazard, contained, literals in rows:
        out[name] = AggregateSpec(name, spark, tuple(kinds.split()), hazard, contained, literals)
    return out


#: Every aggregate a subquery or a SQL check may call.
AGGREGATES: dict[str, AggregateSpec] = _specs(
    ("count", "count", "l", "none", None, ""),
    ("count_if", "count_if", "b", "none", None, ""),
    ("min", "min", "l", "none", None, ""),
    ("max", "max", "l", "none", None, ""),
    ("sum", "sum", "l", "overflow", "try_sum", ""),
    ("avg", "avg", "x", "overflow", "try_avg", ""),
    ("mean", "mean", "x", "overflow", "try_avg", ""),
    ("try_sum", "try_sum", "l", "none", None, ""),
    ("try_avg", "try_avg", "x", "none", None, ""),
    ("approx_distinct", "approx_count_distinct", "l", "none", None, ""),
    ("stddev", "stddev", "d", "none", None, ""),
    ("stddev_samp", "stddev_samp", "d", "none", None, ""),
    ("stddev_pop", "stddev_pop", "d", "none", None, ""),
    ("std", "std", "d", "none", None, ""),
    ("variance", "variance", "d", "none", None, ""),
    ("variance_pop", "var_pop", "d", "none", None, ""),
    ("kurtosis", "kurtosis", "d", "none", None, ""),
    ("skewness", "skewness", "d", "none", None, ""),
    ("corr", "corr", "d d", "division", None, ""),
    ("covar_pop", "covar_pop", "d d", "none", None, ""),
    ("covar_samp", "covar_samp", "d d", "none", None, ""),
    ("logical_and", "bool_and", "b", "none", None, ""),
    ("logical_or", "bool_or", "b", "none", None, ""),
    ("every", "every", "b", "none", None, ""),
    ("some", "some", "b", "none", None, ""),
    ("arg_max", "max_by", "s l", "none", None, ""),
    ("arg_min", "min_by", "s l", "none", None, ""),
    ("median", "median", "d", "none", None, ""),
    ("mode", "mode", "l", "none", None, ""),
    ("quantile", "percentile", "l", "literal", None, ", 0.5"),
    ("approx_quantile", "percentile_approx", "d", "literal", None, ", 0.5"),
)

#: Aggregates the policy refuses, with the reason (by the name the policy sees).
REFUSED_AGGREGATES: dict[str, str] = {
    "array_agg": "collect_list: collects every row of the reference into one value, which grows "
    "without bound; count or test membership instead",
    "array_unique_agg": "collect_set: collects every value of the reference into one value, "
    "which grows without bound; count or test membership instead",
    "group_concat": "string_agg: joins every row of the reference into one text, which grows "
    "without bound",
    "first": "first depends on the order rows arrive in, so a rerun may answer otherwise; use "
    "min, max or max_by",
    "last": "last depends on the order rows arrive in; use min, max or max_by",
    "any_value": "any_value depends on the order rows arrive in; use min, max or max_by",
    "first_value": "first_value depends on the order rows arrive in; use min or max",
    "last_value": "last_value depends on the order rows arrive in; use min or max",
    "count_min_sketch": "a sketch's parameters abort the job when out of range, and its binary "
    "value is nothing a rule compares",
    "histogram_numeric": "its result grows with its bin count and depends on the order rows "
    "arrive in",
    "hll_sketch_agg": "a sketch's binary value is nothing a rule compares",
    "hll_union_agg": "sketches of different precision abort the job",
    "grouping": "grouping() has no meaning outside GROUPING SETS",
}


#: On Spark 3.5 with ANSI, ``corr`` of a column whose values do not vary divides by zero and
#: aborts the job (found by the aggregate fuzz); Spark 4 gives null.
_SINCE = {"corr": 4}
for _name, _since in _SINCE.items():
    AGGREGATES[_name] = replace(AGGREGATES[_name], since=_since)


def spark_major() -> int:
    """The major version of this PySpark, which decides what a rule may call where a function
    aborts on older Sparks (a library without PySpark is checked as for the newest)."""
    try:
        import pyspark
    except ImportError:
        return 99
    return int(pyspark.__version__.split(".")[0])


def aggregate_problem(name: str) -> str | None:
    """Why the policy refuses the aggregate ``name`` (its canonical name), or None.

    >>> aggregate_problem("sum"), aggregate_problem("array_agg")[:12]
    (None, 'collect_list')
    >>> aggregate_problem("product")
    'product is not an aggregate the policy knows (its failure modes are not catalogued)'
    """
    if name in AGGREGATES:
        since = AGGREGATES[name].since
        if spark_major() < since:
            return (
                f"{AGGREGATES[name].spark} aborts the job on some values before Spark {since} "
                "(a division by zero under ANSI); it is refused on this Spark"
            )
        return None
    if name in REFUSED_AGGREGATES:
        return REFUSED_AGGREGATES[name]
    return f"{name} is not an aggregate the policy knows (its failure modes are not catalogued)"


def _number_literal(node: exp.Expr) -> float | None:
    sign = 1.0
    while isinstance(node, (exp.Paren, exp.Neg)):
        sign = -sign if isinstance(node, exp.Neg) else sign
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return sign * float(node.this)
        except ValueError:
            return None
    return None


def aggregate_refusal(
    node: exp.Expr, name: str, extra: Sequence[exp.Expr]
) -> tuple[str, exp.Expr] | None:
    """Why the policy refuses the call ``node`` of the aggregate ``name`` with the arguments
    ``extra`` after its column, and where; None when it may run. A percentile's percentage and
    accuracy must be literals in range (else one value aborts the job).

    >>> from sqlglot import parse_one
    >>> call = parse_one("percentile(x, 2)", read="spark")
    >>> aggregate_refusal(call, "quantile", [call.args["quantile"]])[0][:40]
    'percentile takes a literal percentage in'
    """
    problem = aggregate_problem(name)
    if problem is not None:
        return f"aggregate {problem}", node
    if AGGREGATES[name].hazard != "literal":
        return None
    for i, arg in enumerate(extra):
        values = list(arg.expressions) if isinstance(arg, exp.Array) else [arg]
        numbers = [_number_literal(v) for v in values]
        bad = any(v is None for v in numbers) or (
            i == 0 and any(not 0 <= v <= 1 for v in numbers if v is not None)
        ) or (i == 1 and any(v is not None and v <= 0 for v in numbers))  # fmt: skip
        if bad:
            spark = AGGREGATES[name].spark
            return (
                f"{spark} takes a literal percentage in [0, 1] (or an array of them) and a "
                "positive literal accuracy: any other value aborts the job",
                arg,
            )
    return None
