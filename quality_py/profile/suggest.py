"""Constraint suggestion from a profile (the Deequ paper's section 4.2), as a YAML ruleset.

Each rule below looks at one column's profile and may suggest a dataset check constraint and a
row rule; every suggestion holds on the data it was learned from (the bounds are the data's own
or below it), and :func:`evaluate` measures how many hold on held-out data:

=================  ===============================================  ==========================
rule               when                                             suggests
=================  ===============================================  ==========================
complete           completeness 1                                   ``is_complete``; rule
                                                                    ``c IS NOT NULL``
retain completeness  0.2 <= completeness < 1                        ``has_completeness >=`` the
                                                                    lower end of its 95%
                                                                    confidence interval
unique             exact distinct count = rows, no nulls            ``is_unique``
retain type        a text column whose values are all integral,     ``has_data_type``; rule
                   all fractional or all boolean                    ``c RLIKE <pattern>``
categorical        at most ``max_categories`` values, each seen     ``is_contained_in``; rule
                   ``min_repeats`` times on average                 ``c IN (...)``
non-negative       a numeric column with minimum >= 0               ``is_non_negative``; rule
                                                                    ``c >= 0``
=================  ===============================================  ==========================
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quality_py.dataset.analyzers import TYPE_PATTERNS
from quality_py.model.types import DataFrame
from quality_py.model.yaml_text import dump_yaml
from quality_py.profile.profiler import ColumnProfile, DatasetProfile

#: The SQL text (backslashes escaped for a Spark string literal) of the patterns by which
#: :class:`~quality_py.dataset.analyzers.DataType` infers a value's type.
_PATTERNS = dict(TYPE_PATTERNS)


@dataclass(frozen=True)
class Suggestion:
    """One suggested constraint (a ``Check`` method and its arguments) and row rule."""

    column: str
    rule: str
    reason: str
    constraint: str
    arguments: tuple[Any, ...]
    row_rule: str | None = None

    def apply(self, check: Any) -> Any:
        """``check`` with this constraint added."""
        return getattr(check, self.constraint)(*self.arguments)


def _sql_name(name: str) -> str:
    plain = name.replace("_", "").isalnum() and not name[0].isdigit()
    return name if plain else "`" + name.replace("`", "``") + "`"


def _sql_literal(value: str, numeric: bool) -> str:
    if numeric:
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _lower_bound(p: float, n: int) -> float:
    """The lower end of the 95% (Wald) confidence interval of a share, rounded down."""
    low = p - 1.96 * math.sqrt(p * (1 - p) / n) if n else p
    return max(0.0, math.floor(low * 100) / 100)


def _column(c: ColumnProfile, rows: int, max_categories: int, min_repeats: int) -> list[Suggestion]:
    out: list[Suggestion] = []
    name = _sql_name(c.name)
    share = c.completeness
    if share is None or rows == 0:
        return out
    if share == 1.0:
        out.append(
            Suggestion(c.name, "complete", f"no nulls in {rows} rows", "is_complete", (c.name,),
                       f"{name} IS NOT NULL")
        )  # fmt: skip
    elif share >= 0.2:
        bound = _lower_bound(share, rows)
        out.append(
            Suggestion(c.name, "retain completeness", f"completeness {share:.4f} of {rows} rows",
                       "has_completeness", (c.name, f">= {bound}"))
        )  # fmt: skip
    nonnull = round(share * rows)
    if share == 1.0 and c.exact_distinct is not None and c.exact_distinct == nonnull:
        out.append(
            Suggestion(c.name, "unique", f"{nonnull} distinct values in {rows} rows", "is_unique",
                       (c.name,))
        )  # fmt: skip
    kind = c.inferred_type
    if kind in _PATTERNS and not c.is_numeric:
        pattern = _PATTERNS[kind]
        out.append(
            Suggestion(c.name, "retain type", f"every value is {kind}", "has_data_type",
                       (c.name, kind), f"{name} IS NULL OR {name} RLIKE '{pattern}'")
        )  # fmt: skip
    values = c.histogram
    categorical = c.spark_type in ("string", "boolean") or c.spark_type.endswith("int")
    if (
        values
        and categorical
        and len(values) <= max_categories
        and nonnull >= min_repeats * len(values)
    ):
        numeric = c.spark_type != "string" and c.spark_type != "boolean"
        ordered = sorted(values, key=(lambda v: int(v)) if numeric else str)
        shown: list[Any] = [int(v) for v in ordered] if numeric else list(ordered)
        if c.spark_type == "boolean":
            shown = [v == "true" for v in ordered]
        literals = ", ".join(
            v.upper() if c.spark_type == "boolean" else _sql_literal(v, numeric) for v in ordered
        )
        out.append(
            Suggestion(c.name, "categorical", f"{len(values)} values, each about "
                       f"{nonnull // len(values)} times", "is_contained_in", (c.name, shown),
                       f"{name} IS NULL OR {name} IN ({literals})")
        )  # fmt: skip
    if c.is_numeric and c.minimum is not None and c.minimum >= 0:
        out.append(
            Suggestion(c.name, "non-negative", f"minimum {c.minimum:g}", "is_non_negative",
                       (c.name,), f"{name} IS NULL OR {name} >= 0")
        )  # fmt: skip
    return out


def suggest(
    profile: DatasetProfile, *, max_categories: int = 50, min_repeats: int = 10
) -> list[Suggestion]:
    """Every suggestion for every column of ``profile`` (see the module docs).

    >>> from quality_py.profile.profiler import profile as run_profile
    >>> rows = [(i % 3, "a" if i % 2 else "b") for i in range(60)]
    >>> df = spark.createDataFrame(rows, "n int, s string")
    >>> [(s.column, s.rule) for s in suggest(run_profile(df))]  # doctest: +NORMALIZE_WHITESPACE
    [('n', 'complete'), ('n', 'categorical'), ('n', 'non-negative'), ('s', 'complete'),
     ('s', 'categorical')]
    """
    out = []
    for column in profile.columns:
        out += _column(column, profile.rows, max_categories, min_repeats)
    return out


def suggested_checks(suggestions: Sequence[Suggestion], level: str = "error") -> Any:
    """The suggestions' constraints as one :class:`~quality_py.dataset.checks.Check`."""
    from quality_py.dataset.checks import Check

    check = Check(level, "suggested from the profile")
    for s in suggestions:
        check = s.apply(check)
    return check


def _comment(text: str) -> str:
    r"""``text`` for a YAML comment line: data (a column name, a path) may hold line breaks,
    which would end the comment and start YAML of its own, so everything outside printable
    ASCII is escaped as JSON escapes it (``"a\nb"``); names are quoted.

    >>> _comment("ok"), _comment("x\nsql_checks: []")
    ('ok', '"x\\nsql_checks: []"')
    """
    import json

    plain = text.isascii() and text.isprintable() and '"' not in text and "\\" not in text
    return text if plain and text.strip() == text else json.dumps(text, ensure_ascii=True)


def suggested_ruleset(
    profile: DatasetProfile,
    suggestions: Sequence[Suggestion],
    *,
    suite_id: int = 1,
    source: str = "the input",
) -> str:
    """A ready-to-edit YAML ruleset: one rule per suggested row rule, the constraints as a
    dataset check, and the profile as comments."""

    lines = [
        f"# Suggested by `python -m quality_py profile` from {profile.rows} rows of "
        f"{_comment(source)}.",
        "# Every rule and constraint held on that data; edit, then validate with",
        "# `python -m quality_py validate THIS.yaml --input ...` before relying on it.",
        "#",
        "# column profile: completeness, approx. distinct, type / min..max",
    ]
    for c in profile.columns:
        extra = c.inferred_type or ""
        if c.minimum is not None:
            extra = f"{c.minimum:g}..{c.maximum:g}"
        share = "-" if c.completeness is None else f"{c.completeness:.4f}"
        lines.append(
            f"#   {_comment(c.name)} ({_comment(c.spark_type)}): {share}, {c.approx_distinct}, "
            f"{_comment(extra)}"
        )
    rules = []
    for i, s in enumerate(x for x in suggestions if x.row_rule):
        rules.append(
            {
                "id": 100 + i,
                "version": 1,
                "expression": s.row_rule,
                "description": f"{s.column}: {s.rule} ({s.reason})",
            }
        )
    constraints = [{s.constraint: list(s.arguments)} for s in suggestions]
    doc: dict[str, Any] = {
        "suite": {
            "id": suite_id,
            "version": 1,
            "description": f"suggested from a profile of {profile.rows} rows of {source}",
        },
        "rule_sets": [{"id": 1, "version": 1, "rules": rules}] if rules else [],
        "checks": [
            {
                "level": "error",
                "description": "suggested from the profile",
                "constraints": constraints,
            }
        ],
    }
    body = dump_yaml(doc)
    return "\n".join(lines) + "\n" + body


@dataclass(frozen=True)
class Evaluation:
    """How the suggestions learned on a training split fare on the held-out rest."""

    train_rows: int
    test_rows: int
    #: (constraint, held on the training split, held on the test split)
    outcomes: tuple[tuple[str, bool, bool], ...]

    @property
    def test_precision(self) -> float | None:
        """The share of suggestions that also held on the test split."""
        if not self.outcomes:
            return None
        return sum(1 for _, _, ok in self.outcomes if ok) / len(self.outcomes)


def evaluate(
    df: DataFrame, *, train_fraction: float = 0.7, seed: int = 7, **options: Any
) -> Evaluation:
    """Profile a random ``train_fraction`` of ``df``, suggest, and verify the suggestions on
    both splits (the paper's train/test evaluation of suggested constraints)."""
    from quality_py.dataset.checks import verify
    from quality_py.profile.profiler import profile as run_profile

    train, test = df.randomSplit([train_fraction, 1 - train_fraction], seed)
    train, test = train.cache(), test.cache()
    try:
        learned = run_profile(train, max_categories=options.get("max_categories", 120))
        suggestions = suggest(learned, **options)
        check = suggested_checks(suggestions)
        on_train = {r.constraint: r.passed for r in verify(train, [check]).results}
        on_test = {r.constraint: r.passed for r in verify(test, [check]).results}
        outcomes = tuple((k, on_train[k], on_test.get(k, False)) for k in on_train)
        return Evaluation(learned.rows, int(test.count()), outcomes)
    finally:
        train.unpersist()
        test.unpersist()
