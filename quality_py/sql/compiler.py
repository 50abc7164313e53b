"""The compiler's front door: rule, lambda and output text to Spark-ready syntax trees.

Every text goes the same way: the policy's limits on the raw text (one scan, before any parser
runs), the parse, the policy's allowlist on the tree (:mod:`quality_py.sql.allowed.enforce`), then
the passes (:mod:`quality_py.sql.passes`). Errors name the rule, lambda or output.

* :func:`compile_expression` compiles one text;
* :func:`compile_lambdas` builds a suite's lambda library;
* :func:`compile_output` and :func:`compile_folder_output` compile the rule engine's and the
  rule folder's output expressions (``set(...)`` sugar included);
* :func:`compile_suite` compiles a whole suite. With ``collect=True`` it does not stop at the
  first error: it records every problem as a :class:`CompileIssue` and compiles everything else
  (validation is a thin adapter over this mode).

Nothing here needs Spark; runners that hold a DataFrame pass a ``type_of`` oracle so that
``update_field`` works on any struct expression.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from sqlglot import exp

from quality_py.errors import ModelError, PolicyError, QualityError, RuleSyntaxError
from quality_py.model.ids import Id
from quality_py.model.layout import ResultLayout
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.results import Layout
from quality_py.model.rules import LambdaFunction, OutputExpression, Rule, RuleSuite
from quality_py.sql.allowed.enforce import enforce
from quality_py.sql.build import SUBSTITUTION, call, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.garbage import fewer_collections, suite_size
from quality_py.sql.lambdas import LambdaLibrary, check_callable_name
from quality_py.sql.parse import (
    ParsedLambda,
    check_text,
    lambda_arity,
    parse_expression,
    parse_lambda,
)
from quality_py.sql.passes import run_passes
from quality_py.sql.shapes import Shape
from quality_py.sql.suite_bounds import past_bounds

#: Spark's type (DDL) of a SQL expression over the input, None when it does not analyse.
TypeOracle = Callable[[str], "str | None"]

#: The lambda variable of ``set(...)`` sugar in folder outputs (contract 3.3).
SET_PARAM = "currentResult"


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """One rule after the passes: its ids, original text and rewritten AST."""

    rule_set_id: Id
    rule_id: Id
    source: str
    tree: exp.Expr
    #: The tree as parsed and policy-checked, before the passes (for name checks).
    parsed: exp.Expr | None = None
    #: Whether ``tree`` is already the INT result code (a rule with a ``filter`` or inactive),
    #: not a value still to be coded: use :func:`rule_code` rather than reading ``tree``.
    coded: bool = False
    #: The rule's name, when it has one (errors and outputs name the rule as its author does).
    name: str | None = None
    #: ``tree``'s SQL, generated once: by the compile that made the rule, else on first use.
    #: ``dataclasses.replace`` (a new tree) starts it afresh; trees are never changed in place.
    _sql: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def sql(self) -> str:
        """The rule's Spark SQL after the passes (generated once per rule)."""
        text = self._sql
        if text is None:
            text = to_sql(self.tree)
            object.__setattr__(self, "_sql", text)
        return text


@dataclass(frozen=True, slots=True)
class CompiledOutput:
    """An output expression: the engine form (``tree``) or a folder lambda (``param``)."""

    id: Id
    source: str
    parsed: exp.Expr
    #: After the passes; None for folder outputs, which need the starting struct's type.
    tree: exp.Expr | None
    #: The folder lambda's parameter (``currentResult`` for ``set(...)``); None: engine form.
    param: str | None = None


@dataclass(frozen=True, slots=True)
class CompileIssue:
    """One problem found by ``compile_suite(..., collect=True)``."""

    error: QualityError
    item_kind: str
    item_id: Id | None
    source: str
    #: The parsed, policy-checked tree when the problem came later (in the passes).
    parsed: exp.Expr | None = None


@dataclass(frozen=True, slots=True)
class CompiledSuite:
    """Every rule of a suite compiled, in declaration order (and, in collect mode, every
    output expression and every problem)."""

    suite: RuleSuite
    rules: tuple[CompiledRule, ...]
    lambdas: LambdaLibrary
    policy: RulePolicy = DEFAULT_POLICY
    outputs: tuple[CompiledOutput, ...] = ()
    issues: tuple[CompileIssue, ...] = field(default=())
    #: every question the compile put to its type oracle, with the answer, in order (a compile
    #: without an oracle records the questions it would have asked, answered None): the compile
    #: is the same wherever the same questions get the same answers (:func:`answers_hold`)
    asked: tuple[tuple[str, str | None], ...] = ()


def _generates_faithfully(tree: exp.Expr, ctx: PassContext) -> exp.Expr:
    """The tree, once it is known to generate as Spark SQL with every argument kept: sqlglot
    drops what it cannot express in the target dialect (``levenshtein``'s threshold,
    ``initcap``'s delimiters ...) with only a log line, which would change what the rule means."""
    _faithful_sql(tree, ctx)
    return tree


def _faithful_sql(tree: exp.Expr, ctx: PassContext) -> str:
    """The tree's SQL (as :func:`to_sql` writes it), once it generates with every argument kept
    (see :func:`_generates_faithfully`)."""
    from sqlglot.errors import ErrorLevel

    from quality_py.sql.dialect import DIALECT

    try:
        text = tree.sql(dialect=DIALECT, unsupported_level=ErrorLevel.RAISE)
    except Exception as err:
        raise RuleSyntaxError(
            f"the {ctx.item_kind} cannot be written as Spark SQL without changing it: "
            f"{str(err).splitlines()[0] if str(err) else type(err).__name__}",
            item_id=ctx.item_id,
            item_kind=ctx.item_kind,
            source=ctx.source,
        ) from None
    return text if SUBSTITUTION not in text else to_sql(tree)


def _checked_tree(text: str, ctx: PassContext, kind: str) -> exp.Expr:
    """Limits, parse, then the policy's allowlist: the tree of untrusted text, or an error."""
    check_text(text, ctx.policy, item_id=ctx.item_id, kind=kind)
    tree = parse_expression(text, item_id=ctx.item_id, kind=kind, limits=None)
    enforce(tree, ctx.policy, ctx)
    return tree


def compile_expression(
    text: str,
    *,
    item_id: Id | None = None,
    kind: str = "rule",
    lambdas: LambdaLibrary | None = None,
    layout: ResultLayout = Layout.MAP,
    policy: RulePolicy = DEFAULT_POLICY,
    type_of: TypeOracle | None = None,
) -> exp.Expr:
    """Check one expression against ``policy``, parse it and run every pass over it.

    ``type_of`` (from a runner holding a DataFrame) gives Spark's type of a SQL expression over
    the input, so ``update_field`` works on any struct expression.

    >>> compile_expression("pack_ints(1, 2) > 0").sql("spark")
    'CAST(4294967298 AS BIGINT) > 0'
    """
    return _compile(text, item_id, kind, lambdas, layout, policy, type_of)[1]


def _compile(
    text: str,
    item_id: Id | None,
    kind: str,
    lambdas: LambdaLibrary | None,
    layout: ResultLayout,
    policy: RulePolicy,
    type_of: TypeOracle | None,
) -> tuple[exp.Expr, exp.Expr]:
    ctx = PassContext(
        item_id, kind, text, lambdas or LambdaLibrary(), layout, policy=policy, type_of=type_of
    )
    tree = _checked_tree(text, ctx, kind)
    return tree, _generates_faithfully(run_passes(tree, ctx), ctx)


def compile_lambdas(
    lambdas: Sequence[LambdaFunction],
    policy: RulePolicy = DEFAULT_POLICY,
    issues: list[CompileIssue] | None = None,
) -> LambdaLibrary:
    """The lambda library of a suite: limits, parse, duplicates and the policy on each body.

    With ``issues`` (collect mode) a broken lambda is recorded and left out, and every body is
    also expanded once, which finds recursion and calls of undefined arities; otherwise the
    first problem raises.

    >>> lib = compile_lambdas([LambdaFunction("pos", "x -> x > 0", Id(9, 1))])
    >>> lib.arities("pos")
    (1,)
    """
    parsed: list[ParsedLambda] = []
    seen: dict[tuple[str, int], Id] = {}
    for fn in lambdas:
        try:
            check_text(fn.expression, policy, item_id=fn.id, kind="lambda")
            check_callable_name(fn.name, fn.id)
            lam = parse_lambda(fn, limits=None)
            key = (fn.name.lower(), lam.arity)
            if key in seen and issues is not None:
                raise QualityError(
                    f"lambda {fn.name} with {lam.arity} argument(s) is also defined by "
                    f"{seen[key]!r}",
                    item_id=fn.id,
                    item_kind="lambda",
                    source=fn.expression,
                    code="DUPLICATE_LAMBDA",
                )
        except QualityError as err:
            if issues is None:
                raise
            issues.append(CompileIssue(err, "lambda", fn.id, fn.expression))
            continue
        seen.setdefault(key, fn.id)
        parsed.append(lam)
    library = LambdaLibrary.from_parsed(parsed)
    for lam in library.all():  # the policy, with the other lambdas callable
        if issues is not None and lam.id in {i.error.item_id or i.item_id for i in issues}:
            continue  # already reported (a recursion cycle is reported once, for its culprit)
        ctx = PassContext(lam.id, "lambda", lam.source, library, policy=policy)
        try:
            enforce(lam.body, policy, ctx)
            if issues is not None:  # expanding a body finds recursion and bad arities in it
                run_passes(lam.body, ctx)
        except QualityError as err:
            if issues is None:
                raise
            issues.append(CompileIssue(err, "lambda", lam.id, lam.source))
    return library


def is_folder_output(text: str) -> bool:
    """Whether an output is a folder output: a lambda ``x -> ...`` or ``set(...)`` sugar.

    >>> is_folder_output("x -> x"), is_folder_output("set(a = 1)"), is_folder_output("'big'")
    (True, True, False)
    """
    if lambda_arity(text) > 0:
        return True
    head = text.lstrip()
    return head.startswith("set") and head[3:].lstrip().startswith("(")


def compile_output(
    out: OutputExpression,
    lambdas: LambdaLibrary,
    policy: RulePolicy = DEFAULT_POLICY,
    type_of: TypeOracle | None = None,
) -> exp.Expr:
    """A rule-engine output: an expression compiled like a rule (kind ``output``).

    >>> compile_output(OutputExpression(Id(1000, 1), "'big'"), LambdaLibrary()).sql("spark")
    "'big'"
    """
    return compile_expression(
        out.expression,
        item_id=out.id,
        kind="output",
        lambdas=lambdas,
        policy=policy,
        type_of=type_of,
    )


def _set_sugar(tree: exp.Expr) -> exp.Expr | None:
    """``set(a = e, b.c = f)`` as ``update_field(currentResult, 'a', e, 'b.c', f)``, else None."""
    if not (isinstance(tree, exp.Anonymous) and tree.this == "set" and tree.expressions):
        return None
    args: list[exp.Expr] = [exp.column(SET_PARAM)]
    for item in tree.expressions:
        if not (isinstance(item, exp.EQ) and isinstance(item.this, exp.Column)):
            return None  # malformed: left as written, rejected with the output's id
        path = ".".join(p.name for p in item.this.parts)
        args += [exp.Literal.string(path), item.expression.copy()]
    return call("update_field", *args)


def parse_folder_output(
    out: OutputExpression,
    policy: RulePolicy,
    used_by: Sequence[Id] = (),
    lambdas: LambdaLibrary | None = None,
) -> tuple[str, exp.Expr]:
    """A folder output's parameter and policy-checked body, before the passes.

    ``set(a = e, ...)`` is sugar for ``currentResult -> update_field(currentResult, 'a', e)``.

    >>> parse_folder_output(OutputExpression(Id(9, 1), "set(a = 1)"), DEFAULT_POLICY)[0]
    'currentResult'
    """
    ctx = PassContext(out.id, "output", out.expression, lambdas or LambdaLibrary(), policy=policy)
    check_text(out.expression, policy, item_id=out.id, kind="output")
    if lambda_arity(out.expression) == 0:
        tree = parse_expression(out.expression, item_id=out.id, kind="output", limits=None)
        sugar = _set_sugar(tree)
        if sugar is not None:
            enforce(tree, policy, ctx)
            return SET_PARAM, sugar
    else:
        parsed = parse_lambda(LambdaFunction("output", out.expression, out.id), limits=None)
        if parsed.arity == 1:
            enforce(parsed.body, policy, ctx)
            return parsed.params[0], parsed.body
    rules = ", ".join(repr(i) for i in used_by)
    raise QualityError(
        "a folder output must be a one-argument lambda (x -> ...) or set(field = value, ...)"
        + (f"; used by rule(s) {rules}" if rules else ""),
        item_id=out.id,
        item_kind="output",
        source=out.expression,
        code="FOLDER_OUTPUT",
    )


def compile_folder_output(
    out: OutputExpression,
    lambdas: LambdaLibrary,
    shape: Shape,
    policy: RulePolicy = DEFAULT_POLICY,
    type_of: TypeOracle | None = None,
    used_by: Sequence[Id] = (),
) -> tuple[str, exp.Expr]:
    """A folder output compiled over its parameter, whose struct shape is ``shape``.

    >>> param, body = compile_folder_output(
    ...     OutputExpression(Id(9, 1), "set(a = 1)"), LambdaLibrary(), (("a", None), ("b", None)))
    >>> param, body.sql("spark")
    ('currentResult', "IF(currentResult IS NULL, NULL, NAMED_STRUCT('a', 1, 'b', currentResult.b))")
    """
    param, body = parse_folder_output(out, policy, used_by, lambdas)
    ctx = PassContext(out.id, "output", out.expression, lambdas, policy=policy, type_of=type_of)
    ctx.shapes = {param.lower(): shape}
    return param, _generates_faithfully(run_passes(body, ctx), ctx)


def _no_meta_rule_sets(suite: RuleSuite) -> None:
    if suite.meta_rule_sets:
        raise ModelError(
            f"suite {suite.id!r} has meta rule sets, which need the data's schema: use a "
            "DataFrame runner or prepare_for_schema(suite, schema) first",
            item_id=suite.meta_rule_sets[0].id,
            item_kind="meta rule set",
            code="META_RULE_SET",
        )


def compile_suite(
    suite: RuleSuite,
    *,
    layout: ResultLayout = Layout.MAP,
    policy: RulePolicy | None = None,
    type_of: TypeOracle | None = None,
    collect: bool = False,
    input_view: str | None = None,
) -> CompiledSuite:
    """Compile every rule of ``suite`` (lambda errors surface here, naming the lambda).

    ``collect=True``: record every problem in ``issues`` instead of raising the first, and also
    compile every output expression (engine outputs fully, folder outputs up to the policy).
    ``input_view``: a view of the whole input, for rules that group it (``map_with``).

    >>> from quality_py.model import Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
    ...     Rule(Id(3, 1), "a > 0"), Rule(Id(4, 1), "a >"), Rule(Id(5, 1), "nope(a)")])])
    >>> report = compile_suite(suite, collect=True)
    >>> [r.rule_id.id for r in report.rules], [(i.item_id.id, i.error.code) for i in report.issues]
    ([3], [(4, 'RULE_SYNTAX'), (5, 'POLICY')])
    """
    _no_meta_rule_sets(suite)
    policy = policy or suite.policy
    issues: list[CompileIssue] | None = [] if collect else None
    lambdas = compile_lambdas(suite.lambdas, policy, issues)
    compiled = []
    asked: list[tuple[str, str | None]] = []
    with fewer_collections(suite_size(suite)):
        for rule_set, rule in suite.iter_rules():
            done = _compile_rule(
                rule_set.id, rule, lambdas, layout, policy, (type_of, asked), input_view, issues
            )
            if done is not None:
                compiled.append(done)
    for past, error in past_bounds(compiled, policy):
        if issues is None:
            raise error
        issues.append(CompileIssue(error, "rule", past.rule_id, past.source))
    outputs = _compile_outputs(suite, lambdas, policy, (type_of, asked), issues) if collect else ()
    return CompiledSuite(
        suite, tuple(compiled), lambdas, policy, tuple(outputs), tuple(issues or ()), tuple(asked)
    )


def answers_hold(compiled: CompiledSuite, type_of: TypeOracle) -> bool:
    """Whether ``type_of`` answers every question ``compiled``'s compile asked as it was
    answered then: a compile asks in order and decides only by the answers, so compiling again
    with ``type_of`` would ask the same questions and give the same result.

    >>> from quality_py.model import Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "to_yaml(m) = '1'")])])
    >>> compiled = compile_suite(suite)  # before any data: the question is answered None
    >>> compiled.asked
    (('m', None),)
    >>> answers_hold(compiled, lambda sql: None), answers_hold(compiled, lambda sql: "int")
    (True, False)
    """
    return all(type_of(question) == answer for question, answer in compiled.asked)


def _compile_rule(
    set_id: Id,
    rule: Rule,
    lambdas: LambdaLibrary,
    layout: ResultLayout,
    policy: RulePolicy,
    types: tuple[TypeOracle | None, list[tuple[str, str | None]]],
    input_view: str | None,
    issues: list[CompileIssue] | None,
) -> CompiledRule | None:
    """One rule compiled; None when it has a problem and ``issues`` records it. ``types``: the
    type oracle and the list recording its questions (``PassContext.asked``)."""
    type_of, asked = types
    ctx = PassContext(
        rule.id,
        "rule",
        rule.expression,
        lambdas,
        layout,
        policy=policy,
        type_of=type_of,
        input_view=input_view,
        asked=asked,
    )
    parsed = None
    source = rule.expression
    try:
        parsed = _checked_tree(rule.expression, ctx, "rule")
        tree = run_passes(parsed, ctx)
        sql = _faithful_sql(tree, ctx)
        if rule.filter is not None or not rule.active:
            source = rule.filter or rule.expression
            tree = _gated(tree, rule, ctx)
            sql = _faithful_sql(tree, ctx)
    except QualityError as err:
        if rule.name and err.item_id == rule.id:
            err.item_name = rule.name  # the message names the rule as its author does
        if issues is None:
            raise
        issues.append(CompileIssue(err, "rule", rule.id, source, parsed))
        return None
    coded = rule.filter is not None or not rule.active
    done = CompiledRule(set_id, rule.id, rule.expression, tree, parsed, coded, rule.name)
    object.__setattr__(done, "_sql", sql)  # the text just generated: no second generation
    return done


def _gated(value: exp.Expr, rule: Rule, ctx: PassContext) -> exp.Expr:
    """The INT result code of a rule with a ``filter`` (DisabledRule, -2, on every row where
    the filter is not true, null included) or inactive (-2 on every row, nothing evaluated).
    The filter is untrusted text like the rule's: same limits, allowlist and passes."""
    from quality_py.model.results import DISABLED_RULE
    from quality_py.sql.coding import result_code

    disabled = exp.Literal.number(DISABLED_RULE)
    if not rule.active:
        return disabled
    assert rule.filter is not None
    fctx = replace(ctx, source=rule.filter, item_kind="rule filter")
    predicate = run_passes(_checked_tree(rule.filter, fctx, "rule filter"), fctx)
    cond = exp.func("coalesce", exp.paren(predicate, copy=False), exp.false())
    return exp.If(this=cond, true=result_code(value), false=disabled)


def rule_code(rule: CompiledRule, family: str | None = None) -> exp.Expr:
    """The INT result code of a compiled rule: its tree when already coded (a filter or an
    inactive rule), else the code of its value (``family``: the value's, when known).

    >>> from quality_py.model import Rule, RuleSet
    >>> rules = [Rule(Id(3, 1), "a > 0", filter="b = 1"), Rule(Id(4, 1), "a > 0", active=False)]
    >>> done = compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])).rules
    >>> [r.coded for r in done], to_sql(rule_code(done[1]))
    ([True, True], '-2')
    """
    if rule.coded:
        return rule.tree
    from quality_py.sql.coding import result_code

    return result_code(rule.tree, family)


def _compile_outputs(
    suite: RuleSuite,
    lambdas: LambdaLibrary,
    policy: RulePolicy,
    types: tuple[TypeOracle | None, list[tuple[str, str | None]]],
    issues: list[CompileIssue] | None,
) -> list[CompiledOutput]:
    assert issues is not None
    type_of, asked = types
    users: dict[Id, list[Id]] = {}
    distinct: dict[Id, OutputExpression] = {}
    for _, rule in suite.iter_rules():
        if rule.output is not None:
            distinct.setdefault(rule.output.id, rule.output)
            users.setdefault(rule.output.id, []).append(rule.id)
    out: list[CompiledOutput] = []
    for oid, output in distinct.items():
        parsed = None
        try:
            if is_folder_output(output.expression):
                param, body = parse_folder_output(output, policy, users[oid], lambdas)
                out.append(CompiledOutput(oid, output.expression, body, None, param))
                continue
            ctx = PassContext(
                oid, "output", output.expression, lambdas, policy=policy, type_of=type_of
            )
            ctx.asked = asked
            parsed = _checked_tree(output.expression, ctx, "output")
            tree = _generates_faithfully(run_passes(parsed, ctx), ctx)
            out.append(CompiledOutput(oid, output.expression, parsed, tree))
        except QualityError as err:
            issues.append(CompileIssue(err, "output", oid, output.expression, parsed))
    return out


def filter_sql(text: str, *, what: str, policy: RulePolicy | None = None) -> str:
    """A row filter as the SQL we send Spark: checked by the rule policy like any rule text
    (one enforcement path) and generated by us (no ``${`` reaches Spark's parser).

    >>> filter_sql("dep_delay > 15 AND origin = 'JFK'", what="--where")
    "dep_delay > 15 AND origin = 'JFK'"
    >>> try:
    ...     filter_sql("reflect('java.lang.System', 'getenv', 'HOME') = ''", what="--where")
    ... except Exception as err:
    ...     print(err.message)
    the --where condition: reflect(...) is never allowed in rule text
    """
    try:
        return to_sql(compile_expression(text, kind=what, policy=policy or DEFAULT_POLICY))
    except QualityError as err:
        raise PolicyError(f"the {what} condition: {err.message}") from None
