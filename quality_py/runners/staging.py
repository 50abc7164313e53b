"""Staging shared by every DataFrame runner: the input as rules see it, each rule's value
and result code in hidden columns, Spark's analysis of the suite, and the determinism gate.

The data-quality runner, the rule engine, the rule folder and quality runs all start here
(:func:`stage_rule_codes`), then build their own struct from :meth:`StagedCodes.code_refs`.
Analysis runs no Spark job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeGuard

from sqlglot import exp

from quality_py.errors import ModelError, RuleAnalysisError
from quality_py.model.layout import CompactLayout
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.runners.direct_codes import direct_codes, direct_families
from quality_py.runners.frames import select_exprs
from quality_py.runners.one_projection import inline_allowed, inline_codes
from quality_py.runners.rule_gates import (
    analysis_errors,
    first_line,
    require_deterministic,
    rule_errors,
    value_sqls,
)
from quality_py.sql.coding import family_of, result_code_sql
from quality_py.sql.compiler import (
    CompiledSuite,
    TypeOracle,
    answers_hold,
    compile_suite,
)
from quality_py.sql.garbage import fewer_collections, suite_size
from quality_py.sql.own_table import input_types

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    #: A step that makes rules over rows see more than the input: the input with hidden
    #: columns, the compiled rules reading them, and those columns' names.
    RowsStep = Callable[
        [DataFrame, CompiledSuite], tuple[DataFrame, CompiledSuite, tuple[str, ...]]
    ]

#: Alias the runner gives the input DataFrame so rules can correlate subqueries (``main.col``).
MAIN_ALIAS = "main"


def as_layout(layout: Layout | str) -> Layout:
    """The :class:`Layout` named by ``layout`` (``"map"``/``"compact"`` or a Layout)."""
    return Layout(layout) if isinstance(layout, str) else layout


def input_frame(df: DataFrame, sqls: Sequence[str]) -> DataFrame:
    """The input as rules see it: aliased ``main`` for correlated subqueries, unless the rules
    are written against the input's own qualifiers (``src.account`` on ``src.join(...)``).

    Aliasing replaces every qualifier of a joined DataFrame, so when the rules analyse only
    without the alias, the input is used as it is. Analysis runs no job. When neither analyses,
    the aliased frame is returned and the caller reports the errors rule by rule.
    """
    aliased = df.alias(MAIN_ALIAS)
    if not sqls:
        return aliased
    errors = analysis_errors()
    try:
        aliased.selectExpr(*sqls).schema  # noqa: B018 - analysis only
        return aliased
    except errors:
        pass
    try:
        df.selectExpr(*sqls).schema  # noqa: B018 - analysis only
        return df
    except errors:
        return aliased


def type_oracle(df: DataFrame) -> Callable[[str], str | None]:
    """Spark's type of a SQL expression over ``df`` (analysis only, no job), cached per text.

    >>> type_of = type_oracle(spark.createDataFrame([(1, "x")], "a int, s string"))
    >>> type_of("named_struct('k', a, 'v', s)"), type_of("nope + 1")
    ('struct<k:int,v:string>', None)
    """
    cache: dict[str, str | None] = {}
    empty = df.limit(0)

    def type_of(sql: str) -> str | None:
        if sql not in cache:
            try:
                frame = input_frame(empty, [sql])
                cache[sql] = type_string(frame.selectExpr(sql).schema.fields[0].dataType)
            except analysis_errors():
                cache[sql] = None
        return cache[sql]

    return type_of


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def type_string(kind: Any) -> str:
    """Spark's ``simpleString`` of a type, with struct field names that are not plain
    identifiers back-quoted so that the string parses back (``struct<`f 0`:int>``).

    >>> from pyspark.sql.types import IntegerType, StructField, StructType
    >>> fields = [StructField("f 0", IntegerType()), StructField("b", IntegerType())]
    >>> type_string(StructType(fields))
    'struct<`f 0`:int,b:int>'
    """
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(kind, StructType):
        fields = [
            (f.name if _PLAIN_NAME.fullmatch(f.name) else "`" + f.name.replace("`", "``") + "`")
            + ":"
            + type_string(f.dataType)
            for f in kind.fields
        ]
        return "struct<" + ",".join(fields) + ">"
    if isinstance(kind, ArrayType):
        return f"array<{type_string(kind.elementType)}>"
    if isinstance(kind, MapType):
        return f"map<{type_string(kind.keyType)},{type_string(kind.valueType)}>"
    return str(kind.simpleString())


def _with_rule_values(
    df: DataFrame,
    compiled: CompiledSuite,
    probe: Sequence[str] = (),
    base: DataFrame | None = None,
    analysed: DataFrame | None = None,
    slots: Sequence[int] | None = None,
) -> tuple[DataFrame, list[str | None]]:
    """``df`` (see :func:`input_frame`) plus one hidden column per distinct rule value (see
    :func:`rule_slots`; every rule when ``slots`` is None), and each rule's value family.
    ``probe``: more SQL (outputs) that decides the input's naming with the rules.
    ``analysed``: ``base`` with exactly these value columns, already analysed (reused).

    Spark analyses every rule here (no job runs). A suite that does not analyse is diagnosed
    rule by rule, and :class:`RuleAnalysisError` lists every rule that fails or whose value
    cannot be a rule result.
    """
    names = [f"__qp_v{i}" for i in range(len(compiled.rules))]
    clash = {*names, *(n.replace("_v", "_c") for n in names)} & set(df.columns)
    if clash:
        raise ModelError(f"input columns clash with internal names: {sorted(clash)}")
    slots = tuple(range(len(compiled.rules))) if slots is None else tuple(slots)
    sqls = value_sqls(compiled, slots)
    if base is None:  # the caller may have decided the input's naming already
        base = input_frame(df, [*sqls, *probe])
    try:
        values = analysed if analysed is not None else select_exprs(base, ["*", *sqls])
        kept = values.schema.fields[len(df.columns) :]
    except analysis_errors():
        problems = []
        for rule, sql in zip(compiled.rules, value_sqls(compiled), strict=True):
            try:
                base.selectExpr(sql).schema  # noqa: B018 - analysis only
            except analysis_errors() as err:
                problems.append((rule, first_line(str(err))))
        if not problems:  # pragma: no cover - the whole failed but no part did
            raise RuleAnalysisError("the suite does not analyse against this DataFrame") from None
        raise rule_errors(problems) from None
    if not compiled.policy.random_allowed:
        require_deterministic(base, values, compiled, value_sqls(compiled))
    at = {slot: n for n, slot in enumerate(sorted(set(slots)))}
    fields = [kept[at[slot]] for slot in slots]
    families = [
        "code" if rule.coded else family_of(f.dataType.simpleString())
        for rule, f in zip(compiled.rules, fields, strict=True)
    ]
    bad = [
        (rule, f"a rule must yield a boolean, number or string, not {f.dataType.simpleString()}")
        for rule, f, fam in zip(compiled.rules, fields, families, strict=True)
        if fam is None
    ]
    if bad:
        raise rule_errors(bad)
    return values, families


def rule_slots(compiled: CompiledSuite) -> tuple[int, ...]:
    """For each rule, the first rule computing the same value: rules whose SQL (and coding) is
    identical share one hidden value and code column, so a suite that repeats a predicate
    computes it once (not left to Spark's subexpression elimination, which a plan wider than
    ``spark.sql.codegen.maxFields`` does not get). Only where every rule is deterministic: a
    policy that allows random values or trusts the rules keeps one column per rule (two
    ``rand()`` are two draws).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> rules = [Rule(Id(i, 1), t) for i, t in enumerate(["a > 1", "b > 1", "a > 1"])]
    >>> rule_slots(compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(1, 1), rules)])))
    (0, 1, 0)
    """
    if compiled.policy.random_allowed:
        return tuple(range(len(compiled.rules)))
    first: dict[tuple[str, bool], int] = {}
    return tuple(first.setdefault((r.sql, r.coded), i) for i, r in enumerate(compiled.rules))


def reusable(
    compiled: CompiledSuite | None, prepared: RuleSuite, type_of: TypeOracle
) -> TypeGuard[CompiledSuite]:
    """Whether ``compiled`` (a suite compiled earlier: before any data was read, as a job and
    the CLI do to report rule errors first, or for an earlier micro-batch) is what compiling
    ``prepared`` over this input gives: the same suite, and every question its compile put to
    the type oracle answered the same here (a compile without data answered each None).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "to_yaml(m) = '1'")])])
    >>> early = compile_suite(suite)
    >>> reusable(early, suite, lambda sql: None), reusable(early, suite, lambda sql: "int")
    (True, False)
    """
    if compiled is None:
        return False
    if compiled.suite is not prepared and compiled.suite != prepared:
        return False
    return answers_hold(compiled, type_of)


def _analysed_on_alias(
    df: DataFrame, compiled: CompiledSuite, extra: Sequence[str], slots: Sequence[int]
) -> DataFrame | None:
    """The input aliased ``main`` with every rule value, when that analyses (with ``extra``);
    one analysis decides the naming and types the values. None: see :func:`input_frame`."""
    errors = analysis_errors()
    aliased = df.alias(MAIN_ALIAS)
    try:
        analysed = select_exprs(aliased, ["*", *value_sqls(compiled, slots)])
        analysed.schema  # noqa: B018 - analysis only
        if extra:
            aliased.selectExpr(*extra).schema  # noqa: B018 - analysis only
    except errors:
        return None
    return analysed


def orderable(kind: DataType) -> bool:
    """Whether Spark can sort values of the type ``kind`` (maps and variants it cannot).

    >>> from pyspark.sql.types import ArrayType, IntegerType, MapType, StringType
    >>> orderable(ArrayType(IntegerType())), orderable(MapType(StringType(), IntegerType()))
    (True, False)
    """
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(kind, MapType) or type(kind).__name__ == "VariantType":
        return False
    if isinstance(kind, ArrayType):
        return orderable(kind.elementType)
    if isinstance(kind, StructType):
        return all(orderable(f.dataType) for f in kind.fields)
    return True


def over_rows(df: DataFrame, compiled: CompiledSuite) -> CompiledSuite:
    """``compiled`` ready for ``df`` when rules see more than one row: windows refused on a
    streaming input, where Spark cannot compute them (run the suite per micro-batch, inside
    ``foreachBatch``: quality_py.actions' streaming helper does), and ranking made
    deterministic (:func:`ordered_totally`)."""
    from quality_py.sql.windows import key_sets

    windowed = [r for r in compiled.rules if key_sets(r.tree)]
    if not windowed:
        return compiled
    if df.isStreaming:
        raise ModelError(
            f"rule {windowed[0].rule_id!r} sees more than one row (a window over its key), "
            "which Spark cannot compute on a stream: check each micro-batch as a table inside "
            "foreachBatch (quality_py's streaming helper does), where it sees the batch's rows",
            code="STREAMING_INPUT",
        )
    return ordered_totally(compiled, df.schema)


def ordered_totally(compiled: CompiledSuite, schema: StructType) -> CompiledSuite:
    """``compiled`` with every ``row_number``/``ntile`` also ordered by the row's own values
    (the columns of ``schema``, a StructType; see :mod:`quality_py.sql.windows`), so that tied
    rows are numbered the same way in every job over the same data."""

    from quality_py.sql.windows import needs_total_order, with_total_order

    if not any(needs_total_order(r.tree) for r in compiled.rules):
        return compiled
    counts: dict[str, int] = {}
    for f in schema.fields:
        counts[f.name.lower()] = counts.get(f.name.lower(), 0) + 1
    columns = [
        (f.name, orderable(f.dataType)) for f in schema.fields if counts[f.name.lower()] == 1
    ]
    rules = tuple(
        replace(r, tree=with_total_order(r.tree, columns)) if needs_total_order(r.tree) else r
        for r in compiled.rules
    )
    return replace(compiled, rules=rules)


def rule_families(df: DataFrame, compiled: CompiledSuite) -> list[str | None]:
    """The type family of every compiled rule's value when evaluated against ``df``."""
    return _with_rule_values(df, compiled)[1]


#: Why a runner cannot run inside a declarative pipeline's query function, and what can.
IN_PIPELINE = (
    "the rules are analysed against the data's schema before the column is built, and a "
    "declarative pipeline forbids analysis inside a query function: analyse them where the "
    "pipeline allows it, at the file's top level, with the input's schema declared: "
    "checks = pipeline_checks(suite, 'id INT, amount DOUBLE'), then return checks.apply(df) "
    "from the query function (docs/pipelines.md)"
)


def require_new_columns(df: DataFrame, *names: str) -> None:
    """Refuse to add a column the input already has (a checked frame checked again would
    otherwise carry two columns of one name, and readers would pick one at random)."""
    try:
        columns = df.columns
    except Exception as err:  # the first analysis every runner asks for
        if "ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION" in str(err):
            raise ModelError(IN_PIPELINE, code="INVALID_MODEL") from None
        raise
    taken = [n for n in names if n in columns]
    if taken:
        raise ModelError(
            f"the input already has a column named {', '.join(taken)}: drop it first or give the "
            "output another name",
            code="DUPLICATE_COLUMNS",
        )


def wrap_column(sql: str, suite: RuleSuite, layout: Layout, name: str) -> Column:
    """One SQL string as the named output Column (compact layouts carry their ids as metadata)."""
    from pyspark.sql import functions as F

    column = F.expr(sql)
    if layout is Layout.COMPACT:
        return column.alias(name, metadata=CompactLayout.of(suite).to_metadata())
    return column.alias(name)


@dataclass(frozen=True)
class StagedCodes:
    """A DataFrame holding every rule's result code in a hidden column, ready for a struct.

    Three projections: rule values (also the type probe), result codes, then whatever struct the
    runner builds from :meth:`code_refs` (two where the rules' text types them: the codes
    straight from the input, :mod:`quality_py.runners.direct_codes`). Each rule is evaluated
    once into a hidden column; a runner's struct references every code at least twice (results
    + overall), so Spark keeps that projection apart instead of inlining every rule into one
    huge expression.
    """

    frame: DataFrame
    families: list[str | None]
    compiled: CompiledSuite
    hidden: tuple[str, ...]
    #: each rule's value column (:func:`rule_slots`); empty: one per rule
    slots: tuple[int, ...] = ()
    #: whether rules of one value share its code column too (see :func:`stage_rule_codes`)
    shared_codes: bool = False
    #: the suite as compiled for this input, before staging fitted it: another input reuses it
    #: where its compile's questions get the same answers (:func:`reusable`)
    early: CompiledSuite | None = None
    #: the input as the rules see it (aliased or not, :func:`input_frame`), where nothing was
    #: joined to it for rules over rows: a struct can be one projection from it
    #: (:mod:`quality_py.runners.one_projection`)
    source: DataFrame | None = None
    #: each rule's code over its own SQL, when asked for and allowed
    #: (:func:`~quality_py.runners.one_projection.inline_codes`): then no code column is built
    #: (``frame`` holds the values only) and the struct is one projection from ``source``
    inline: tuple[exp.Expr, ...] | None = None

    def _slot_of(self) -> Sequence[int]:
        return self.slots or range(len(self.compiled.rules))

    def code_names(self) -> list[str]:
        """Each rule's hidden code column, in ``suite.iter_rules()`` order."""
        if self.shared_codes:
            return [f"__qp_c{i}" for i in self._slot_of()]
        return [f"__qp_c{i}" for i in range(len(self.compiled.rules))]

    def value_names(self) -> list[str]:
        """Each rule's hidden value column, in ``suite.iter_rules()`` order (rules computing
        the same value share one). Codes selected straight from the input
        (:mod:`~quality_py.runners.direct_codes`) have none: asking is a bug, refused."""
        names = [f"__qp_v{i}" for i in self._slot_of()]
        if not set(names) <= set(self.hidden):
            raise ValueError("these codes were staged without value columns")
        return names

    def code_refs(self) -> list[exp.Expr]:
        """Column references to the codes, in ``suite.iter_rules()`` order."""
        return [exp.column(name) for name in self.code_names()]

    def finish(self, *columns: Column) -> DataFrame:
        """Append ``columns`` (built from the codes) and drop the hidden columns.

        One projection when the input's names are unique (each DataFrame step re-checks the
        whole plan: ~0.2 s at 1000 rules); a join's input may repeat a name, and then the
        hidden columns are dropped by name instead.
        """
        from pyspark.sql import functions as F

        hidden = set(self.hidden)
        names = [c for c in self.frame.columns if c not in hidden]
        if len({n.lower() for n in names}) == len(names):
            kept = [F.col("`" + n.replace("`", "``") + "`") for n in names]
            return self.frame.select(*kept, *columns)
        return self.frame.select("*", *columns).drop(*self.hidden)

    def finish_inline(self, *columns: Column) -> DataFrame:
        """``source`` with ``columns`` (built over :attr:`inline`) appended: one projection."""
        assert self.source is not None
        return replace(self, frame=self.source, hidden=()).finish(*columns)


def stage_rule_codes(
    df: DataFrame,
    suite: RuleSuite,
    probe: Callable[[CompiledSuite], Sequence[str]] | None = None,
    type_of: TypeOracle | None = None,
    compiled: CompiledSuite | None = None,
    rows: RowsStep | None = None,
    shared_codes: bool = False,
    one_projection: bool = False,
) -> StagedCodes:
    """Fit ``suite`` to ``df``'s schema, compile it, analyse it and stage the result codes.

    Meta rule sets and missing-attribute fallbacks are resolved here
    (:func:`quality_py.prepare.prepare_for_schema`); ``compiled.suite`` is the prepared suite.
    The input keeps its own qualifiers when the rules use them (:func:`input_frame`);
    ``probe`` gives more SQL over the input (e.g. the engine's outputs) for that decision.
    ``rows`` makes rules over rows see more than the input (a growing table's counts per key:
    ``quality_py.actions.table_rows``): the input with hidden columns, the rules reading them.

    ``one_projection``, where the session allows it
    (:func:`~quality_py.runners.one_projection.session_form`): where the rules allow it too
    (:func:`~quality_py.runners.one_projection.inline_codes`), no code column is built and
    :attr:`StagedCodes.inline` holds each rule's code instead.

    Rules of one value (:func:`rule_slots`) share its column; with ``shared_codes`` they share
    its code column too. A quality run asks for that: its writes read the codes (names, ids,
    counts), and fewer code columns keep its codes' projection under
    ``spark.sql.codegen.maxFields``, with generated code (W6, 84 rules of 27 predicates: the run
    1.58x -> 1.37x the hand-written one). The struct runners keep a code per rule, a cheap
    ``CASE``: a struct over fewer columns falls into one whole-stage generated method, which
    HotSpot does not compile past 8 KB under Spark's default method limit (W6's compact column
    took 8-9 s instead of 2.5-3 s when its codes were shared).
    """
    with fewer_collections(suite_size(suite)):  # syntax trees are cycles: collect them later
        staged = _stage(df, suite, probe, type_of, compiled, rows, shared_codes, one_projection)
    return staged


def _staged_direct(
    df: DataFrame,
    compiled: CompiledSuite,
    extra: Sequence[str],
    slots: tuple[int, ...],
    early: CompiledSuite,
    one_projection: bool,
) -> StagedCodes | None:
    """The codes selected from the input in one analysis where the rules' text types them
    (:mod:`quality_py.runners.direct_codes`); None: stage values first."""
    from quality_py.runners.implicit_casts import apply_if_enabled

    families = direct_families(compiled, slots)
    if families is None or any(c.lower().startswith("__qp_") for c in df.columns):
        return None  # (a clash with the hidden names is reported by the staged path)
    base = df.alias(MAIN_ALIAS)
    if one_projection and inline_allowed(compiled, base):
        return None  # one projection runs cheaper; it takes its types from staged values
    codes = direct_codes(base, compiled, families, extra)
    if codes is None:  # the staged path decides the naming and names the failing rules
        return None
    apply_if_enabled(base, compiled)  # the refusal only: direct_families ruled containment out
    hidden = tuple(f"__qp_c{i}" for i in range(len(compiled.rules)))
    return StagedCodes(codes, [*families], compiled, hidden, slots, early=early, source=base)


def _stage(
    df: DataFrame,
    suite: RuleSuite,
    probe: Callable[[CompiledSuite], Sequence[str]] | None,
    type_of: TypeOracle | None,
    compiled: CompiledSuite | None,
    rows: RowsStep | None = None,
    shared_codes: bool = False,
    one_projection: bool = False,
) -> StagedCodes:
    from quality_py.prepare import prepare_for_schema
    from quality_py.runners.implicit_casts import apply_if_enabled

    prepared = prepare_for_schema(suite, df.schema)
    oracle = type_of or type_oracle(df)
    view = getattr(rows, "view", None)  # the table itself: its columns are the input's
    if view:
        oracle = input_types(oracle, view, df.columns)
    if not reusable(compiled, prepared, oracle):
        compiled = compile_suite(prepared, type_of=oracle)
    early = compiled
    compiled = over_rows(df, compiled)
    joined: tuple[str, ...] = ()
    if rows is not None:
        df, compiled, joined = rows(df, compiled)
    extra = list(probe(compiled)) if probe is not None else []
    from quality_py.runners.arrow_functions import register_arrow_functions

    register_arrow_functions(df.sparkSession, [*(r.sql for r in compiled.rules), *extra])
    # One analysis decides the naming and, when no implicit cast needs containing, is the
    # values projection itself (each analysis of 1000 rules costs ~0.2 s).
    slots = rule_slots(compiled)
    if rows is None and not shared_codes:  # the codes from the input where the text types them
        direct = _staged_direct(df, compiled, extra, slots, early, one_projection)
        if direct is not None:
            return direct
    analysed = _analysed_on_alias(df, compiled, extra, slots)
    if analysed is not None:
        base = df.alias(MAIN_ALIAS)
    else:
        base = input_frame(df, [*(r.sql for r in compiled.rules), *extra])
    contained = apply_if_enabled(base, compiled)
    if contained is not compiled:
        compiled, analysed = contained, None
        slots = rule_slots(compiled)
    values, families = _with_rule_values(df, compiled, extra, base, analysed, slots)
    value_cols = [f"__qp_v{i}" for i in sorted(set(slots))]
    source = base if rows is None else None
    inline = inline_codes(compiled, families, source) if one_projection else None
    if inline is not None:  # no code column: the struct is one projection from the input
        values_only = (*value_cols, *joined)
        return StagedCodes(
            values,
            families,
            compiled,
            values_only,
            slots,
            shared_codes,
            early,
            source,
            tuple(inline),
        )
    # one code per rule unless asked (shared_codes): see stage_rule_codes
    coded = sorted(set(slots)) if shared_codes else range(len(slots))
    code_cols = [f"__qp_c{i}" for i in coded]
    codes = select_exprs(
        values,
        [
            "*",
            *(
                f"{result_code_sql(f'__qp_v{slots[i]}', families[i])} AS {c}"
                for i, c in zip(coded, code_cols, strict=True)
            ),
        ],
    )
    hidden = (*value_cols, *code_cols, *joined)
    return StagedCodes(codes, families, compiled, hidden, slots, shared_codes, early, source)
