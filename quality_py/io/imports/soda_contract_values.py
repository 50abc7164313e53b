"""What a Soda v4 contract's checks compute, as Spark SQL: thresholds (``ThresholdImpl``),
missing and invalid values (``MissingAndValidity``), the scope of a check's counts; used by
:mod:`quality_py.io.imports.soda_contract`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from quality_py.io.imports.dqx_functions import Unmappable, text_literal
from quality_py.io.imports.soda_metrics import in_list, number_literal

_SINGLE = {"must_be_greater_than": ">", "must_be_greater_than_or_equal": ">=",
           "must_be_less_than": "<", "must_be_less_than_or_equal": "<=", "must_be": "=",
           "must_not_be": "<>"}  # fmt: skip
_RANGES = ("must_be_between", "must_be_not_between")
_ENDS = {"greater_than": ">", "greater_than_or_equal": ">=", "less_than": "<",
         "less_than_or_equal": "<="}  # fmt: skip
_THRESHOLD_KEYS = frozenset({*_SINGLE, *_RANGES, "level", "additional", "metric", "unit"})
#: the missing and validity keys of a check or a column (``MissingAndValidityYaml``)
MISSING_KEYS = ("missing_values", "missing_format")
VALID_KEYS = ("invalid_values", "invalid_format", "valid_values", "valid_format", "valid_min",
               "valid_max", "valid_length", "valid_min_length", "valid_max_length",
               "valid_reference_data")  # fmt: skip


@dataclass(frozen=True)
class Scope:
    """Where a check's counts are taken: the contract's filter and the check's own."""

    dataset: str | None
    check: str | None

    def where(self, *more: str) -> str:
        """Every condition, each in parentheses (``TRUE`` for none)."""
        parts = [p for p in (self.dataset, self.check, *more) if p]
        return " AND ".join(f"({p})" for p in parts) or "TRUE"

    def count(self, *more: str) -> str:
        """Soda's ``SUM(CASE WHEN ... THEN 1)``, 0 without rows.

        >>> Scope("d > 0", None).count("c IS NULL")
        'COUNT(CASE WHEN (d > 0) AND (c IS NULL) THEN 1 END)'
        """
        return f"COUNT(CASE WHEN {self.where(*more)} THEN 1 END)"


@dataclass(frozen=True)
class Test:
    """A threshold's passing test of a value, and whether NaN passes it."""

    sql: Callable[[str], str]
    nan_passes: bool = False


def mapping_of(v: object, key: str) -> dict[str, Any]:
    """``v`` as a mapping (nothing is an empty one); another kind leaves the check out."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise Unmappable(f"{key} must be a mapping")
    return v


def _bound(v: object, key: str) -> str:
    return text_literal(v) if isinstance(v, str) else number_literal(v, key)


def _comparison(th: dict[str, Any]) -> Test:
    """The SQL of a value passing one threshold (``ThresholdImpl.passes``)."""
    singles = [k for k in _SINGLE if th.get(k) is not None]
    ranges = [k for k in _RANGES if th.get(k) is not None]
    if len(singles) + len(ranges) != 1:
        raise Unmappable("Soda evaluates a threshold of exactly one comparison or range")
    if singles:
        op, n = _SINGLE[singles[0]], number_literal(th[singles[0]], singles[0])
        return Test(lambda v: f"{v} {op} {n}", op == "<>")
    key = ranges[0]
    ends = mapping_of(th[key], key)
    greater = [k for k in ("greater_than", "greater_than_or_equal") if ends.get(k) is not None]
    less = [k for k in ("less_than", "less_than_or_equal") if ends.get(k) is not None]
    if len(greater) != 1 or len(less) != 1 or set(ends) - set(_ENDS):
        raise Unmappable(f"{key} takes one greater and one less bound")
    g, lo = number_literal(ends[greater[0]], key), number_literal(ends[less[0]], key)
    gop, lop = _ENDS[greater[0]], _ENDS[less[0]]
    if float(g) >= float(lo) if key == "must_be_between" else float(g) <= float(lo):
        raise Unmappable(f"{key}: Soda refuses these bounds (contract_yaml.py, RangeYaml)")
    if key == "must_be_between":
        return Test(lambda v: f"{v} {gop} {g} AND {v} {lop} {lo}")
    return Test(lambda v: f"({v} {gop} {g} OR {v} {lop} {lo})")


def _level(th: dict[str, Any]) -> str:
    """Our level of a Soda threshold's (only ``warn`` warns: ``normalize_threshold_level``)."""
    return "warning" if str(th.get("level")).lower() == "warn" else "error"


def thresholds(th: object, default: str | None) -> list[tuple[str, Test]]:
    """Each level's passing test (``ThresholdImpl.create``); ``default`` is the check type's
    own comparison (``must_be: 0`` ...), used when the threshold has none.

    >>> [(lv, t.sql("v")) for lv, t in thresholds({"level": "warn"}, "must_be: 0")]
    [('warning', 'v = 0')]
    """
    th = mapping_of(th, "threshold")
    unknown = sorted(set(th) - _THRESHOLD_KEYS)
    if unknown:
        raise Unmappable(f"the threshold key(s) {', '.join(unknown)} are not Soda's")
    has_any = any(th.get(k) is not None for k in (*_SINGLE, *_RANGES))
    extra = th.get("additional")
    if extra is not None:
        extra = mapping_of(extra, "additional")
        if not has_any or _level(th) == _level(extra) or set(extra) - {*_SINGLE, *_RANGES, "level"}:
            raise Unmappable("an additional threshold needs its own comparison and the other level")
        return [(_level(th), _comparison(th)), (_level(extra), _comparison(extra))]
    if not has_any:
        if default is None:
            raise Unmappable("this check type needs a threshold (Soda has no default for it)")
        key, n = default.split(": ")
        return [(_level(th), _comparison({key: float(n) if "." in n else int(n)}))]
    return [(_level(th), _comparison(th))]


def judge(test: Test, v: str, floating: bool) -> str:
    """``test`` of a value Soda reads as a Python number: none is not evaluated (passes); NaN
    compares false, so it passes only ``must_not_be``.

    >>> judge(Test(lambda v: f"{v} <> 1", True), "m", True)
    "m IS NULL OR (CASE WHEN typeof(m) IN ('double', 'float') THEN isnan(m) ELSE false END) \
OR (m <> 1)"
    """
    if not floating:
        return test.sql(v)
    nan = f"(CASE WHEN typeof({v}) IN ('double', 'float') THEN isnan({v}) ELSE false END)"
    if test.nan_passes:
        return f"{v} IS NULL OR {nan} OR ({test.sql(v)})"
    return f"{v} IS NULL OR NOT {nan} AND ({test.sql(v)})"


def percent(part: str, whole: str) -> str:
    """Soda's ``fraction * 100 / total``, 0 without a total."""
    return f"(CASE WHEN {whole} = 0 THEN 0 ELSE {part} * 100 / {whole} END)"


def _regex(fmt: object, key: str) -> str:
    """A ``*_format``'s regex as a Spark literal. Soda pastes the regex between quotes, so
    Spark reads ``'\\d'`` as ``d``; the regex the contract writes is the one matched here (a
    stated difference, docs/migrating.md)."""
    fmt = mapping_of(fmt, key)
    if not isinstance(fmt.get("regex"), str):
        raise Unmappable(f"{key} names a format without a regex")
    return text_literal(fmt["regex"])


def missing_sql(c: str, cfg: dict[str, Any]) -> str:
    """``MissingAndValidity.is_missing_expr``.

    >>> missing_sql("c", {"missing_values": ["NA"]})
    "c IS NULL OR CAST(c AS STRING) IN ('NA')"
    """
    clauses = [f"{c} IS NULL"]
    if isinstance(cfg.get("missing_values"), list):
        clauses.append(in_list(c, cfg["missing_values"], "missing_values"))
    if cfg.get("missing_format") is not None:
        clauses.append(f"regexp_like({c}, {_regex(cfg['missing_format'], 'missing_format')})")
    return " OR ".join(clauses)


def _listed(c: str, values: list[object], key: str, valid: bool) -> str:
    present = [v for v in values if v is not None]
    if not values:
        return "1 = 1" if valid else "1 = 0"
    inside = in_list(c, present, key) if present else "NULL"
    if None in values:
        return f"NOT ({inside}) AND {c} IS NOT NULL" if valid else f"{inside} AND {c} IS NULL"
    return f"NOT ({inside})" if valid else inside


def invalid_sql(c: str, cfg: dict[str, Any]) -> str | None:
    """``MissingAndValidity.is_invalid_expr`` (None: no validity configured) but the reference
    data, which the check reads apart.

    >>> invalid_sql("c", {"valid_min": 0, "valid_max_length": 3})
    'c < 0 OR LENGTH(c) > 3'
    """
    out = []
    if isinstance(cfg.get("valid_values"), list):
        out.append(_listed(c, cfg["valid_values"], "valid_values", True))
    if isinstance(cfg.get("invalid_values"), list):
        out.append(_listed(c, cfg["invalid_values"], "invalid_values", False))
    if cfg.get("valid_format") is not None:
        out.append(f"NOT regexp_like({c}, {_regex(cfg['valid_format'], 'valid_format')})")
    for key, op in (("valid_min", "<"), ("valid_max", ">")):
        if cfg.get(key) is not None:
            out.append(f"{c} {op} {_bound(cfg[key], key)}")
    if cfg.get("invalid_format") is not None:
        out.append(f"regexp_like({c}, {_regex(cfg['invalid_format'], 'invalid_format')})")
    for key, op in (("valid_length", "<>"), ("valid_min_length", "<"), ("valid_max_length", ">")):
        if cfg.get(key) is not None:
            out.append(f"LENGTH({c}) {op} {number_literal(cfg[key], key)}")
    return " OR ".join(out) or None


def effective(check: dict[str, Any], column: dict[str, Any]) -> dict[str, Any]:
    """The check's missing and validity keys, or its column's where it names none of a kind
    (``MissingAndValidity.apply_column_defaults``)."""
    out = dict(check)
    for keys in (MISSING_KEYS, VALID_KEYS):
        if all(check.get(k) is None for k in keys):
            out.update({k: column.get(k) for k in keys})
    return out
