"""The builder methods of :class:`~quality_py.dataset.checks.Check`: one per constraint, each
returning a new check with one more constraint (Deequ's and DQX's checks, names in snake case).

Every public method here is a constraint name that YAML may use (``io/schema.py``); nothing else
is callable from YAML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from quality_py.dataset.analyzers import (
    Completeness,
    Compliance,
    Correlation,
    DataType,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Distribution,
    Entropy,
    Histogram,
    MutualInformation,
    Uniqueness,
)
from quality_py.dataset.sketches import ApproxCountDistinct, ApproxQuantile
from quality_py.sql.snippets import in_list, quoted

if TYPE_CHECKING:
    from quality_py.dataset.checks import Check

#: An assertion: a callable on the metric, or a threshold string (``">= 0.9"``).
Assertion = Callable[[Any], bool] | str


def _in_list(column: str, values: Sequence[Any]) -> str:
    return in_list(column, values)


def _quoted(column: str) -> str:
    return quoted(column)


class ConstraintBuilders:
    """The constraint builders a :class:`~quality_py.dataset.checks.Check` offers."""

    __slots__ = ()

    def _add(
        self,
        description: str,
        analyzer: Any,
        assertion: Assertion,
        pick: Callable[[Any], Any] | None = None,
    ) -> Check:
        raise NotImplementedError

    def has_size(self, assertion: Assertion) -> Check:
        """The number of rows meets ``assertion``.

        >>> Check("error", "t").has_size(">= 1000").constraints[-1].description
        'size >= 1000'
        """
        return self._add(
            f"size {assertion}" if isinstance(assertion, str) else "size", Size(), assertion
        )

    def is_complete(self, column: str) -> Check:
        """``column`` has no null value.

        >>> Check("error", "t").is_complete("carrier").constraints[-1].description
        'carrier is complete'
        """
        return self._add(f"{column} is complete", Completeness(column), "== 1")

    def has_completeness(self, column: str, assertion: Assertion) -> Check:
        """The share of non-null values of ``column`` meets ``assertion``.

        >>> Check("error", "t").has_completeness("tailnum", ">= 0.99").constraints[-1].description
        'tailnum completeness'
        """
        return self._add(f"{column} completeness", Completeness(column), assertion)

    def is_unique(self, column: str | Sequence[str]) -> Check:
        """Every value of ``column`` (or of the columns together) occurs once; rows with
        only nulls there are left out, as in Deequ.

        >>> Check("error", "t").is_unique("id").constraints[-1].description
        'id is unique'
        """
        return self._add(f"{column} is unique", Uniqueness(column), "== 1")

    def has_uniqueness(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        """The share of rows whose value occurs exactly once meets ``assertion``.

        >>> Check("error", "t").has_uniqueness("id", ">= 0.9").constraints[-1].description
        'id uniqueness'
        """
        return self._add(f"{column} uniqueness", Uniqueness(column), assertion)

    def has_distinctness(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        """Distinct values over rows meets ``assertion``.

        >>> Check("error", "t").has_distinctness("carrier", "< 0.1").constraints[-1].description
        'carrier distinctness'
        """
        return self._add(f"{column} distinctness", Distinctness(column), assertion)

    def has_count_distinct(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        """The number of distinct values meets ``assertion``.

        >>> Check("error", "t").has_count_distinct("carrier", "== 16").constraints[-1].description
        'carrier count distinct'
        """
        return self._add(f"{column} count distinct", CountDistinct(column), assertion)

    def has_entropy(self, column: str, assertion: Assertion) -> Check:
        """The entropy (natural log) of the value distribution meets ``assertion``.

        >>> Check("error", "t").has_entropy("carrier", "> 1").constraints[-1].description
        'carrier entropy'
        """
        return self._add(f"{column} entropy", Entropy(column), assertion)

    def satisfies(self, predicate: str, name: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows satisfying the SQL ``predicate`` (policy-checked) meets
        ``assertion``; ``name`` labels it.

        >>> check = Check("error", "t").satisfies("dep_delay < 600", "sane delays", ">= 0.99")
        >>> check.constraints[-1].description
        'sane delays'
        """
        return self._add(name, Compliance(name, predicate), assertion)

    def is_contained_in(self, column: str, values: Sequence[Any]) -> Check:
        """Every non-null value of ``column`` is one of ``values``.

        >>> check = Check("error", "t").is_contained_in("origin", ["EWR", "JFK"])
        >>> check.constraints[-1].description
        "origin in ['EWR', 'JFK']"
        """
        pred = f"{_quoted(column)} IS NULL OR {_in_list(column, values)}"
        return self._add(
            f"{column} in {list(values)}", Compliance(f"{column} contained", pred), "== 1"
        )

    def is_in_range(self, column: str, low: float, high: float) -> Check:
        """Every non-null value of ``column`` lies in ``[low, high]``.

        >>> Check("error", "t").is_in_range("month", 1, 12).constraints[-1].description
        'month in [1, 12]'
        """
        c = _quoted(column)
        pred = f"{c} IS NULL OR ({c} >= {low!r} AND {c} <= {high!r})"
        return self._add(
            f"{column} in [{low}, {high}]", Compliance(f"{column} range", pred), "== 1"
        )

    def is_non_negative(self, column: str) -> Check:
        """No non-null value of ``column`` is negative.

        >>> Check("error", "t").is_non_negative("distance").constraints[-1].description
        'distance >= 0'
        """
        c = _quoted(column)
        return self._add(
            f"{column} >= 0",
            Compliance(f"{column} non-negative", f"{c} IS NULL OR {c} >= 0"),
            "== 1",
        )

    def is_less_than(self, first: str, second: str) -> Check:
        """``first < second`` on every row.

        >>> Check("error", "t").is_less_than("dep_time", "arr_time").constraints[-1].description
        'dep_time < arr_time'
        """
        pred = f"{_quoted(first)} < {_quoted(second)}"
        return self._add(f"{first} < {second}", Compliance(f"{first} < {second}", pred), "== 1")

    def has_min(self, column: str, assertion: Assertion) -> Check:
        """The smallest value of ``column`` meets ``assertion``.

        >>> Check("error", "t").has_min("month", "== 1").constraints[-1].description
        'min(month)'
        """
        return self._add(f"min({column})", Minimum(column), assertion)

    def has_max(self, column: str, assertion: Assertion) -> Check:
        """The largest value of ``column`` meets ``assertion``.

        >>> Check("error", "t").has_max("month", "== 12").constraints[-1].description
        'max(month)'
        """
        return self._add(f"max({column})", Maximum(column), assertion)

    def has_mean(self, column: str, assertion: Assertion) -> Check:
        """The mean of ``column`` meets ``assertion``.

        >>> Check("error", "t").has_mean("distance", "> 500").constraints[-1].description
        'mean(distance)'
        """
        return self._add(f"mean({column})", Mean(column), assertion)

    def has_sum(self, column: str, assertion: Assertion) -> Check:
        """The sum of ``column`` meets ``assertion``.

        >>> Check("error", "t").has_sum("distance", "> 0").constraints[-1].description
        'sum(distance)'
        """
        return self._add(f"sum({column})", Sum(column), assertion)

    def has_standard_deviation(self, column: str, assertion: Assertion) -> Check:
        """The population standard deviation of ``column`` meets ``assertion``.

        >>> check = Check("error", "t").has_standard_deviation("distance", "< 1000")
        >>> check.constraints[-1].description
        'stddev(distance)'
        """
        return self._add(f"stddev({column})", StandardDeviation(column), assertion)

    def has_correlation(self, first: str, second: str, assertion: Assertion) -> Check:
        """Pearson's correlation of two columns meets ``assertion``.

        >>> check = Check("error", "t").has_correlation("distance", "air_time", "> 0.9")
        >>> check.constraints[-1].description
        'corr(distance, air_time)'
        """
        return self._add(f"corr({first}, {second})", Correlation(first, second), assertion)

    def has_approx_count_distinct(self, column: str, assertion: Assertion) -> Check:
        """The HyperLogLog estimate of distinct values meets ``assertion``.

        >>> check = Check("error", "t").has_approx_count_distinct("tailnum", "> 4000")
        >>> check.constraints[-1].description
        'approx count distinct(tailnum)'
        """
        return self._add(f"approx count distinct({column})", ApproxCountDistinct(column), assertion)

    def has_approx_quantile(self, column: str, quantile: float, assertion: Assertion) -> Check:
        """The approximate ``quantile`` of ``column`` (KLL, Spark 4.1+) meets
        ``assertion``.

        >>> check = Check("error", "t").has_approx_quantile("dep_delay", 0.5, "< 10")
        >>> check.constraints[-1].description
        'approx quantile(dep_delay, 0.5)'
        """
        return self._add(
            f"approx quantile({column}, {quantile})", ApproxQuantile(column, quantile), assertion
        )

    def has_mutual_information(self, first: str, second: str, assertion: Assertion) -> Check:
        """The mutual information (natural log) of two columns meets ``assertion``.

        >>> check = Check("error", "t").has_mutual_information("origin", "dest", "> 0")
        >>> check.constraints[-1].description
        'mutual information(origin, dest)'
        """
        return self._add(
            f"mutual information({first}, {second})", MutualInformation(first, second), assertion
        )

    def has_consistent_type(self, column: str) -> Check:
        """All non-null values of ``column`` have one inferred type (integral, fractional, ...).

        >>> Check("error", "t").has_consistent_type("flight").constraints[-1].description
        'flight has a consistent type'
        """
        return self._add(f"{column} has a consistent type", DataType(column), "== 1")

    def has_data_type(self, column: str, kind: str, assertion: Assertion = "== 1") -> Check:
        """The share of non-null values of ``column`` whose inferred type is ``kind``.

        >>> Check("error", "t").has_data_type("year", "integral").constraints[-1].description
        'year is integral'
        """
        return self._add(f"{column} is {kind}", DataType(column, kind), assertion)

    def has_histogram_values(
        self, column: str, assertion: Assertion, value: str | None = None
    ) -> Check:
        """An assertion on the histogram of ``column``.

        With ``value`` the assertion sees that value's share of rows (a threshold string works);
        without, it sees the whole :class:`Distribution` (use a callable).

        >>> check = Check("warning", "t").has_histogram_values("origin", "> 0.3", "EWR")
        >>> check.constraints[-1].description
        'histogram(origin)[EWR]'
        """
        if value is None:
            return self._add(f"histogram({column})", Histogram(column), assertion)

        def share(d: Distribution) -> float:
            return d.ratio(value)

        return self._add(f"histogram({column})[{value}]", Histogram(column), assertion, share)
