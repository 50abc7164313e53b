"""The builder methods of :class:`~quality_py.dataset.checks.Check`: one per constraint, each
returning a new check with one more constraint (Deequ's and DQX's checks, names in snake case).

Every public method here is a constraint name that YAML may use (``io/schema.py``); nothing else
is callable from YAML.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from quality_py.dataset.analyzers import (
    BinnedDistribution,
    Completeness,
    Compliance,
    Correlation,
    DataType,
    HistogramBinned,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.comparisons import (
    ColumnCount,
    DatasetMatch,
    MatchingColumns,
    ReferentialIntegrity,
    SchemaMatch,
    SizeRatio,
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
from quality_py.dataset.patterns import SSN
from quality_py.dataset.sketches import ApproxCountDistinct, ApproxQuantile
from quality_py.dataset.time_constraints import TimeConstraintBuilders
from quality_py.errors import ModelError
from quality_py.gate.numbers import number
from quality_py.model.types import DataFrame
from quality_py.sql.snippets import in_list, quoted

if TYPE_CHECKING:
    from quality_py.dataset.checks import Check

#: An assertion: a callable on the metric, or a threshold string (``">= 0.9"``).
Assertion = Callable[[Any], bool] | str


#: An e-mail address somewhere in a value: a local part, ``@``, and a domain with at least one
#: dot that ends in a letter or digit (ours, simpler than RFC 5322 and Deequ's: no quoted local
#: parts, no IP-literal domains; written so that the regex safety check proves it linear).
EMAIL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]*[A-Za-z0-9]"
#: An http, https or ftp URL: the scheme, ``://`` and at least two characters with no space,
#: the first not one of ``/$.?#``.
URL = r"(?:https?|ftp)://[^\s/$.?#]\S+"
_SEP_CARD = ("", " ", "-")
#: Card numbers of Visa, MasterCard, Amex, Diners Club and Discover prefixes, groups separated
#: the same way throughout: one alternative per separator instead of a back-reference, whose
#: matching time is not linear.
CREDIT_CARD = (
    r"\b(?:"
    + "|".join(rf"3[47]\d{{2}}{s}\d{{6}}{s}\d\d{{4}}" for s in _SEP_CARD)
    + "|"
    + "|".join(
        rf"(?:(?:4\d|5[1-5]|65)\d{{2}}|6011){s}\d{{4}}{s}\d{{4}}{s}\d{{4}}" for s in _SEP_CARD
    )
    + r")\b"
)


def _label(reference: DataFrame | str) -> str:
    return reference if isinstance(reference, str) else "the reference DataFrame"


def _in_list(column: str, values: Sequence[Any]) -> str:
    for value in values:  # NaN is in no list and equal to nothing: a typo, never meant
        if isinstance(value, float):
            number(value, name="a listed value")
    return in_list(column, values)


def _quoted(column: str) -> str:
    return quoted(column)


class ConstraintBuilders(TimeConstraintBuilders):
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
        only nulls there are left out, as in Deequ. This passes or fails the table; the row rule
        ``is_unique(column)`` fails the very rows behind a failure (on several columns, Deequ's
        comparison is ``(a IS NULL AND b IS NULL) OR is_unique_nulls_equal(a, b)``:
        docs/rules-over-rows.md).

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
        low, high = number(low, name="low"), number(high, name="high")
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
        quantile = number(quantile, name="quantile", low=0, high=1)
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

    # -- text, keys and shapes (Deequ's and DQX's everyday checks) ---------------------------

    def has_pattern(self, column: str, pattern: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` contains a match of the regex ``pattern`` (Java
        syntax, found anywhere in the value: anchor it with ``^...$`` for a whole match) meets
        ``assertion``; nulls do not match. The pattern passes the rules' regex safety check.

        >>> Check("error", "t").has_pattern("code", "^[A-Z]{3}$").constraints[-1].description
        "code matches '^[A-Z]{3}$'"
        """
        return self._add(f"{column} matches {pattern!r}", PatternMatch(column, pattern), assertion)

    def contains_email(self, column: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` contains an e-mail address meets ``assertion``.

        >>> Check("error", "t").contains_email("mail").constraints[-1].description
        'mail contains an e-mail address'
        """
        return self._add(
            f"{column} contains an e-mail address", PatternMatch(column, EMAIL), assertion
        )

    def contains_url(self, column: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` contains an http, https or ftp URL."""
        return self._add(f"{column} contains a URL", PatternMatch(column, URL), assertion)

    def contains_credit_card_number(self, column: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` contains a Visa, MasterCard, Amex, Diners Club or
        Discover number (groups separated by nothing, spaces or dashes, the same throughout).
        Usually asserted ``== 0``: no card number leaks into a free-text column."""
        return self._add(
            f"{column} contains a credit card number", PatternMatch(column, CREDIT_CARD), assertion
        )

    def contains_social_security_number(self, column: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` contains a US social security number (Deequ's
        pattern: see :data:`SSN`) meets ``assertion``; usually ``== 0`` on free text.

        >>> Check("error", "t").contains_social_security_number("note", "== 0").constraints[
        ...     -1].description
        'note contains a social security number'
        """
        return self._add(
            f"{column} contains a social security number", PatternMatch(column, SSN), assertion
        )

    def has_column_count(self, assertion: Assertion) -> Check:
        """The number of the data's columns meets ``assertion`` (Deequ's ``hasColumnCount``).

        >>> Check("error", "t").has_column_count("== 19").constraints[-1].description
        'column count'
        """
        return self._add("column count", ColumnCount(), assertion)

    def has_no_columns(self, patterns: str | Sequence[str]) -> Check:
        """No column's name matches one of ``patterns`` (``"pii*"``: a ``*`` is any text; names
        compared as Spark resolves them): columns that must not reach the output, such as
        personal data. The metric is the number of matching columns.

        >>> Check("error", "t").has_no_columns(["pii*", "ssn"]).constraints[-1].description
        'no column named pii*, ssn'
        """
        wanted = (patterns,) if isinstance(patterns, str) else tuple(patterns)
        if not wanted or not all(isinstance(p, str) and p for p in wanted):
            raise ModelError("has_no_columns takes one or more names or patterns")
        return self._add(f"no column named {', '.join(wanted)}", MatchingColumns(wanted), "== 0")

    def has_min_length(self, column: str, assertion: Assertion) -> Check:
        """The shortest non-null value of the text ``column`` (in characters) meets ``assertion``.

        >>> Check("error", "t").has_min_length("code", ">= 2").constraints[-1].description
        'code min length'
        """
        return self._add(f"{column} min length", MinLength(column), assertion)

    def has_max_length(self, column: str, assertion: Assertion) -> Check:
        """The longest non-null value of the text ``column`` (in characters) meets ``assertion``."""
        return self._add(f"{column} max length", MaxLength(column), assertion)

    def is_positive(self, column: str, assertion: Assertion = "== 1") -> Check:
        """The share of rows whose ``column`` is positive meets ``assertion`` (default: every
        row). As Deequ's ``isPositive``, the value is read as a double and a null (or a text that
        is no number) counts as positive: ``COALESCE(CAST(c AS DOUBLE), 1.0) > 0``.

        >>> Check("error", "t").is_positive("distance", ">= 0.9").constraints[-1].assertion
        '>= 0.9'
        """
        c = _quoted(column)
        predicate = f"COALESCE(CAST({c} AS DOUBLE), 1.0) > 0"
        return self._add(f"{column} > 0", Compliance(f"{column} positive", predicate), assertion)

    def is_primary_key(self, columns: str | Sequence[str], complete: bool = True) -> Check:
        """``columns`` identify every row: complete, and unique together. Stricter than
        Deequ's ``isPrimaryKey``, as DQX's: a null is no key; ``complete=False`` is Deequ's
        meaning (uniqueness alone).

        >>> [c.description for c in Check("error", "t").is_primary_key(["a", "b"]).constraints]
        ['a is complete', 'b is complete', "['a', 'b'] is a primary key"]
        >>> len(Check("error", "t").is_primary_key("a", complete=False).constraints)
        1
        """
        names = [columns] if isinstance(columns, str) else list(columns)
        check = self
        for name in names if complete else []:
            check = check.is_complete(name)
        key: str | list[str] = names[0] if len(names) == 1 else names
        return check._add(f"{key} is a primary key", Uniqueness(key), "== 1")

    def has_schema(
        self,
        expected: str | Mapping[str, str],
        strict: bool = False,
        ordered: bool = False,
        compatible: bool = False,
    ) -> Check:
        """The data has the ``expected`` columns (``"id int, note string"`` or a mapping; the
        type ``any`` matches every type) with those types; ``strict``: and no other column;
        ``ordered``: the expected columns it has are in that order; ``compatible``: a type of
        the same kind stands for the expected one (any number for a number, any text for a
        text, a date or time for a date or time; arrays, maps and structs by their parts; a
        variant for anything). The metric is the share of expected columns found with their
        type (extra columns count against it when strict; 0 when out of order).

        >>> Check("error", "t").has_schema("id int").constraints[-1].description
        'schema has id int'
        >>> check = Check("error", "t").has_schema("id any, b int", ordered=True)
        >>> check.constraints[-1].description
        'schema has id any, b int, in that order'
        """
        match = SchemaMatch.of(expected, strict, ordered, compatible)
        cols = ", ".join(f"{n} {k}" for n, k in match.expected)
        order = ", in that order" * ordered + ", or compatible types" * compatible
        return self._add(f"schema {'is' if strict else 'has'} {cols}{order}", match, "== 1")

    def has_size_ratio(self, reference: DataFrame | str, assertion: Assertion) -> Check:
        """The data's rows over the ``reference``'s rows (a DataFrame or a table name) meet
        ``assertion`` (``"== 1"``: as many rows; ``">= 0.95"``: lost at most 5 %).

        >>> Check("error", "t").has_size_ratio("raw.flights", "== 1").constraints[-1].description
        'rows / rows of raw.flights'
        """
        analyzer = SizeRatio(reference)
        return self._add(f"rows / rows of {_label(reference)}", analyzer, assertion)

    def has_referential_integrity(
        self,
        columns: str | Sequence[str],
        reference: DataFrame | str,
        reference_columns: str | Sequence[str] | None = None,
        assertion: Assertion = "== 1",
    ) -> Check:
        """The share of rows whose key (``columns``) exists among the ``reference``'s
        ``reference_columns`` (default: the same names) meets ``assertion``; rows with a null in
        the key are left out, as SQL foreign keys allow them. The row rule
        ``in_reference('view', 'reference_column', column)`` fails the very rows that miss
        (docs/rules-over-rows.md).

        >>> check = Check("error", "t").has_referential_integrity("carrier", "airlines")
        >>> check.constraints[-1].description
        '[carrier] in airlines[carrier]'
        """
        mine = (columns,) if isinstance(columns, str) else tuple(columns)
        theirs = mine if reference_columns is None else (
            (reference_columns,) if isinstance(reference_columns, str) else tuple(reference_columns)
        )  # fmt: skip
        if len(mine) != len(theirs) or not mine:
            raise ModelError("referential integrity pairs as many reference columns as columns")
        analyzer = ReferentialIntegrity(mine, reference, theirs)
        label = f"[{', '.join(mine)}] in {_label(reference)}[{', '.join(theirs)}]"
        return self._add(label, analyzer, assertion)

    def matches_dataset(
        self,
        reference: DataFrame | str,
        keys: str | Sequence[str],
        compare: Sequence[str] = (),
        assertion: Assertion = "== 1",
    ) -> Check:
        """The share of rows the ``reference`` also has (same ``keys``, equal ``compare``
        columns, nulls equal to nulls; default: every common column) meets ``assertion``.

        >>> Check("error", "t").matches_dataset("prod.t", "id").constraints[-1].description
        'rows match prod.t on id'
        """
        key = (keys,) if isinstance(keys, str) else tuple(keys)
        analyzer = DatasetMatch(reference, key, tuple(compare))
        return self._add(f"rows match {_label(reference)} on {', '.join(key)}", analyzer, assertion)

    def has_histogram_bins(
        self,
        column: str,
        edges: Sequence[float],
        assertion: Assertion,
        bin: int | str | None = None,
    ) -> Check:
        """An assertion on the binned histogram of the numeric ``column`` between ``edges``
        (bin i is ``[edges[i], edges[i+1])``, the last includes its upper edge). With ``bin``
        (0-based, ``"outside"`` or ``"null"``) the assertion sees that bin's share of all rows;
        without, the whole :class:`~quality_py.dataset.analyzers.BinnedDistribution`.

        >>> check = Check("warning", "t").has_histogram_bins("delay", [0, 15, 60], "> 0.5", 0)
        >>> check.constraints[-1].description
        'histogram(delay, [0, 15, 60])[0]'
        """
        analyzer = HistogramBinned(column, tuple(edges))
        label = f"histogram({column}, {list(edges)})"
        if bin is None:
            return self._add(label, analyzer, assertion)
        if bin not in ("outside", "null") and not (
            isinstance(bin, int) and 0 <= bin < len(analyzer.edges) - 1
        ):
            raise ModelError(f"bin {bin!r} is not 0 to {len(analyzer.edges) - 2}, outside or null")

        def share(d: BinnedDistribution) -> float:
            return d.ratio(bin)

        return self._add(f"{label}[{bin}]", analyzer, assertion, share)
