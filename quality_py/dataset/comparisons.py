"""Constraints that compare the data with something other than its own rows: its schema, or
another DataFrame (row counts, referential integrity, a dataset match).

These are not scan-shareable and have no mergeable state: each computes its metric with its own
small query (a join at most) when a verification runs, and stored states never hold them, so
verifying stored partitions recomputes them on the data at hand. A reference is a DataFrame or
the name of a view or table (``catalog.schema.table``) read in the data's own session through
the gate (:func:`quality_py.gate.reads.reference`): only a name the policy's allowed views hold,
since a ruleset is untrusted text and a check could otherwise probe any table (is this value in
it?) or read a file written as a table name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from quality_py.errors import ModelError
from quality_py.gate import reads
from quality_py.gate.names import name_parts
from quality_py.model.policy import RulePolicy
from quality_py.model.types import DataFrame
from quality_py.sql.snippets import quoted
from quality_py.sql.spark_types import compatible_types, parse_type, type_sql

_DECIMAL = re.compile(r"\bDECIMAL\b(?!\()")
#: an expected column's type that any type matches
_ANY = "any"


def _type_text(kind: str, case_sensitive: bool = False) -> str:
    """A type in one spelling, parsed (never compared as text): aliases resolved at every depth
    (``long`` is ``bigint`` inside an array too), spaces and case of type names dropped; the
    names of struct fields keep their case when Spark compares them with case
    (``spark.sql.caseSensitive``), else are compared without it, as Spark resolves them.

    >>> _type_text("DECIMAL(10, 2)"), _type_text("Integer"), _type_text("array< long >")
    ('decimal(10,2)', 'int', 'array<bigint>')
    >>> _type_text("decimal"), _type_text("map<string, numeric>")
    ('decimal(10,0)', 'map<string,decimal(10,0)>')
    >>> _type_text("struct<Name:int>", True), _type_text("map<string,integer>")
    ('struct<Name:int>', 'map<string,int>')
    """
    try:
        parsed = parse_type(kind)
    except Exception:  # sqlglot's parse errors: no type Spark knows either
        raise ModelError(f"cannot read the type {kind.strip()!r}") from None
    text = _DECIMAL.sub("DECIMAL(10,0)", type_sql(parsed))  # Spark's default precision
    if not case_sensitive:
        return text.lower().replace(": ", ":").replace(", ", ",")
    out = []
    for piece in _type_words(text):
        out.append(piece if piece.endswith(":") else piece.lower())
    return "".join(out).replace(": ", ":").replace(", ", ",")


def _type_words(text: str) -> list[str]:
    """``text`` cut before and after every field name (a word followed by ``:``)."""
    return re.split(r"([A-Za-z_][\w]*:|`[^`]*`:)", text)


def _columns(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


class DirectAnalyzer:
    """An analyzer that computes its metric from the DataFrame directly (no shared scan)."""

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        """The metric on ``df``."""
        raise NotImplementedError

    def references(self) -> tuple[object, ...]:
        """The views or tables it reads by name (the policy must allow each)."""
        if not hasattr(self, "reference"):
            return ()
        reference = self.reference
        return () if _is_frame(reference) else (reference,)

    @property
    def name(self) -> str:
        """A label for records and messages."""
        return type(self).__name__


def _reference(
    reference: DataFrame | str, df: DataFrame, policy: RulePolicy, what: str
) -> DataFrame:
    if _is_frame(reference):
        return reference  # type: ignore[return-value]
    # a name (or anything else a ruleset wrote): the gate reads it or says why not
    return reads.reference(df.sparkSession, reference, policy, what=what)


def _require_reference(reference: object) -> None:
    """A reference is a DataFrame or a table name (whether the policy allows it is asked when
    the check is validated or run)."""
    if not _is_frame(reference):
        name_parts(reference, what="a check's reference")


def _is_frame(value: object) -> bool:
    """A DataFrame (classic or Connect) the caller passed, as opposed to a name."""
    return hasattr(value, "sparkSession") and hasattr(value, "schema")


def _label(reference: DataFrame | str) -> str:
    return reference if isinstance(reference, str) else "the reference DataFrame"


@dataclass(frozen=True)
class SchemaMatch(DirectAnalyzer):
    """The share of the ``expected`` columns the data has with the expected type (``any``:
    whatever its type); ``strict``: extra columns of the data count against it too (DQX's
    ``has_valid_schema``); ``ordered``: the expected columns the data has are in the expected
    order, else the share is 0 (a Soda contract's schema check); ``compatible``: a column of
    another type of the same kind matches (DQX's ``has_valid_schema``).

    >>> SchemaMatch.of("id int, note string").expected
    (('id', 'int'), ('note', 'string'))
    >>> SchemaMatch.of({"id": "any"}, ordered=True).name
    'SchemaMatch(id any, ordered)'
    """

    expected: tuple[tuple[str, str], ...]
    strict: bool = False
    ordered: bool = False
    #: a column of another type of the same kind matches (:func:`compatible_types`)
    compatible: bool = False

    @staticmethod
    def of(
        expected: str | Mapping[str, str],
        strict: bool = False,
        ordered: bool = False,
        compatible: bool = False,
    ) -> SchemaMatch:
        """From a DDL-like text (``"id int, note string"``) or a ``{column: type}`` mapping."""
        if isinstance(expected, str):
            pairs = []
            for part in _split_ddl(expected):
                name, _, kind = part.strip().partition(" ")
                if not name or not kind.strip():
                    raise ModelError(f"cannot read the column {part.strip()!r}: write 'name type'")
                pairs.append((name.strip("`"), kind))
        else:
            pairs = [(str(k), str(v)) for k, v in expected.items()]
        if not pairs:
            raise ModelError("an expected schema names at least one column")
        typed = tuple(
            (n, _ANY if k.strip().lower() == _ANY else _type_text(k, True)) for n, k in pairs
        )
        return SchemaMatch(typed, bool(strict), bool(ordered), bool(compatible))

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        sensitive = _case_sensitive(df)
        actual = {
            f.name.lower(): _type_text(f.dataType.simpleString(), sensitive)
            for f in df.schema.fields
        }
        matched = sum(
            1
            for n, k in self.expected
            if n.lower() in actual and self._matches(actual[n.lower()], k, sensitive)
        )
        if self.ordered:
            places = {n.lower(): i for i, (n, _) in enumerate(self.expected)}
            seen = [places[name] for name in actual if name in places]
            if seen != sorted(seen):
                return 0.0
        extra = len(set(actual) - {n.lower() for n, _ in self.expected}) if self.strict else 0
        return matched / (len(self.expected) + extra)

    def _matches(self, actual: str, expected: str, sensitive: bool) -> bool:
        if expected == _ANY or actual == _type_text(expected, sensitive):
            return True
        return self.compatible and compatible_types(actual, expected)

    @property
    def name(self) -> str:
        cols = ", ".join(f"{n} {k}" for n, k in self.expected)
        flags = ", strict" * self.strict + ", ordered" * self.ordered
        flags += ", compatible" * self.compatible
        return f"SchemaMatch({cols}{flags})"


@dataclass(frozen=True)
class ColumnCount(DirectAnalyzer):
    """The number of top-level columns of the data (Deequ's ``ColumnCount``: no scan).

    >>> ColumnCount().name
    'ColumnCount'
    """

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        return float(len(df.columns))


@dataclass(frozen=True)
class MatchingColumns(DirectAnalyzer):
    """The number of the data's top-level columns whose name matches one of ``patterns`` (a
    ``*`` is any text, the rest as written; names compared as Spark resolves them).

    >>> MatchingColumns(("pii*", "ssn")).matches(["PII_email", "ssn", "ssn_hash", "id"], False)
    ['PII_email', 'ssn']
    """

    patterns: tuple[str, ...]

    def matches(self, names: list[str], sensitive: bool) -> list[str]:
        """The ``names`` that match a pattern."""
        fold = (lambda t: t) if sensitive else str.lower
        wanted = [fold(p) for p in self.patterns]
        return [n for n in names if any(_glob(p, fold(n)) for p in wanted)]

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        return float(len(self.matches(list(df.columns), _case_sensitive(df))))

    @property
    def name(self) -> str:
        return f"MatchingColumns({', '.join(self.patterns)})"


def _glob(pattern: str, name: str) -> bool:
    """Whether ``name`` is ``pattern`` with each ``*`` standing for any text: the pieces between
    the stars found in order, each at its leftmost place (exact for a pattern of stars alone),
    so a pattern of rule text costs a few scans of the name, never a regex's backtracking
    (``*a*a*a*a*a*a*a*a*a*a*a*a*b`` against forty ``a``).

    >>> _glob("pii*", "pii_email"), _glob("*SALARY*", "BASE_SALARY"), _glob("a*b*a", "aba")
    (True, True, True)
    >>> _glob("ssn", "ssn_hash"), _glob("a*a", "a"), _glob("*a" * 12 + "*b", "a" * 40)
    (False, False, False)
    """
    if "*" not in pattern:
        return name == pattern
    head, *middle, tail = pattern.split("*")
    if len(head) + len(tail) > len(name) or not name.startswith(head) or not name.endswith(tail):
        return False
    at, end = len(head), len(name) - len(tail)
    for piece in middle:
        found = name.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _case_sensitive(df: DataFrame) -> bool:
    """Whether Spark compares names with case in ``df``'s session (``spark.sql.caseSensitive``)."""
    try:
        value = df.sparkSession.conf.get("spark.sql.caseSensitive", "false")
    except Exception:  # a server that will not tell: Spark's default
        return False
    return str(value).lower() == "true"


def _split_ddl(text: str) -> list[str]:
    """Split ``a int, b decimal(10,2), c map<string,int>`` at the commas between columns."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "(<"
        depth -= ch in ")>"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


@dataclass(frozen=True)
class SizeRatio(DirectAnalyzer):
    """The data's rows over the reference's rows (None when the reference is empty)."""

    reference: DataFrame | str

    def __post_init__(self) -> None:
        _require_reference(self.reference)

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        other = _reference(self.reference, df, policy, self.name).count()
        return None if other == 0 else df.count() / other

    @property
    def name(self) -> str:
        return f"SizeRatio({_label(self.reference)})"


@dataclass(frozen=True)
class ReferentialIntegrity(DirectAnalyzer):
    """The share of rows whose key (``columns``, none of them null) exists in the reference's
    ``reference_columns``; rows with a null in the key are left out, as a foreign key allows
    them (None when no row has a whole key)."""

    columns: tuple[str, ...]
    reference: DataFrame | str
    reference_columns: tuple[str, ...]

    def __post_init__(self) -> None:
        _require_reference(self.reference)

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        from pyspark.sql import functions as F

        ref = _reference(self.reference, df, policy, self.name)
        keys = [F.col(quoted(c)).alias(f"__qp_k{i}") for i, c in enumerate(self.columns)]
        found = ref.select(
            *[F.col(quoted(c)).alias(f"__qp_r{i}") for i, c in enumerate(self.reference_columns)]
        ).distinct()
        mine = df.select(*keys).where(
            " AND ".join(f"__qp_k{i} IS NOT NULL" for i in range(len(self.columns)))
        )
        on = [F.col(f"__qp_k{i}") == F.col(f"__qp_r{i}") for i in range(len(self.columns))]
        joined = mine.join(found.withColumn("__qp_found", F.lit(1)), on, "left")
        row = joined.agg(F.count(F.lit(1)), F.count("__qp_found")).first()
        rows, hits = (0, 0) if row is None else (int(row[0]), int(row[1]))
        return None if rows == 0 else hits / rows

    @property
    def name(self) -> str:
        cols = ", ".join(self.columns)
        refs = ", ".join(self.reference_columns)
        return f"ReferentialIntegrity({cols} -> {_label(self.reference)}({refs}))"


@dataclass(frozen=True)
class DatasetMatch(DirectAnalyzer):
    """The share of the data's rows that the reference has: a reference row with the same
    ``keys`` and equal ``compare`` columns (nulls equal to nulls). ``compare`` empty: every
    column the two have in common besides the keys (Deequ's ``doesDatasetMatch``)."""

    reference: DataFrame | str
    keys: tuple[str, ...]
    compare: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _require_reference(self.reference)

    def compute(self, df: DataFrame, policy: RulePolicy) -> float | None:
        from pyspark.sql import functions as F

        ref = _reference(self.reference, df, policy, self.name)
        compare = self.compare or tuple(
            c for c in df.columns if c in set(ref.columns) and c not in set(self.keys)
        )
        cols = [*self.keys, *compare]
        mine = df.select(*[F.col(quoted(c)).alias(f"__qp_m{i}") for i, c in enumerate(cols)])
        theirs = ref.select(
            *[F.col(quoted(c)).alias(f"__qp_t{i}") for i, c in enumerate(cols)]
        ).distinct()
        on = [F.col(f"__qp_m{i}").eqNullSafe(F.col(f"__qp_t{i}")) for i in range(len(cols))]
        total = mine.count()
        if total == 0:
            return None
        return mine.join(theirs, on, "left_semi").count() / total

    @property
    def name(self) -> str:
        return f"DatasetMatch({_label(self.reference)} on {', '.join(self.keys)})"
