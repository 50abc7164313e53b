"""Walk a parsed rule and refuse anything the policy does not allow (iteratively)."""

from __future__ import annotations

import re

from sqlglot import exp

from quality_py.errors import PolicyError, did_you_mean
from quality_py.model.policy import RulePolicy
from quality_py.sql.allowed.aggregates import aggregate_refusal
from quality_py.sql.allowed.functions import (
    ALLOWED_FUNCTIONS,
    AMPLIFIERS,
    ARITHMETIC,
    CLOCK_CLASSES,
    CLOCK_FUNCTIONS,
    NEEDS_ARGUMENTS,
    REFUSED_FUNCTIONS,
    REGEX_FUNCTIONS,
    TIME_ZONE_CLASSES,
    allowed_classes,
    function_name,
)
from quality_py.sql.allowed.regex_safety import capturing_groups, like_unsafe_reason, unsafe_reason
from quality_py.sql.allowed.windows import window_refusal, window_syntax
from quality_py.sql.context import PassContext
from quality_py.sql.library import REGISTRY, canonical
from quality_py.sql.library.aggregates import HELPERS

#: agg_expr's helpers (sum_with, inc ...): read by agg_expr, not library functions themselves.
AGG_HELPERS = frozenset(canonical(h) for h in HELPERS)

#: Node kinds a row rule may contain besides functions: names, literals, operators, lambdas.
_STRUCTURE: tuple[type, ...] = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.Dot,
    exp.Bracket,
    exp.Lambda,
    exp.Case,
    exp.If,
    exp.Cast,
    exp.TryCast,
    exp.DataType,
    exp.DataTypeParam,
    exp.ColumnDef,
    exp.Interval,
    exp.Var,
    exp.PropertyEQ,
    exp.Kwarg,
    *ARITHMETIC,
    exp.EQ,
    exp.NEQ,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.And,
    exp.Or,
    exp.Xor,
    exp.Not,
    exp.Neg,
    exp.BitwiseNot,
    exp.BitwiseAnd,
    exp.BitwiseOr,
    exp.BitwiseXor,
    exp.BitwiseLeftShift,
    exp.BitwiseRightShift,
    exp.DPipe,
    exp.Like,
    exp.ILike,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Tuple,
    exp.Distinct,
    exp.Placeholder,
    # get_json_object's path, parsed into nodes
    *(c for c in vars(exp).values() if isinstance(c, type) and c.__name__.startswith("JSONPath")),
)
#: Extra node kinds inside a subquery over a permitted view.
_SUBQUERY = (
    exp.Subquery,
    exp.Select,
    exp.From,
    exp.Where,
    exp.Join,
    exp.Table,
    exp.TableAlias,
    exp.Alias,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Ordered,
    exp.Limit,
    exp.Star,
    exp.AggFunc,
)
_FORBIDDEN_NAMES = {"reflect", "java_method", "try_reflect", "identifier"}
#: Spark aggregate functions sqlglot parses as plain (anonymous) calls: aggregates all the same.
ANONYMOUS_AGGREGATES = frozenset(
    {"any", "count_min_sketch", "every", "histogram_numeric", "hll_sketch_agg", "hll_union_agg",
     "mean", "some", "std", "try_avg", "try_sum"}
)  # fmt: skip


def is_aggregate(node: exp.Expr) -> bool:
    """Whether ``node`` is a call of a Spark aggregate function."""
    if isinstance(node, exp.AggFunc):
        return True
    return isinstance(node, exp.Anonymous) and str(node.this).lower() in ANONYMOUS_AGGREGATES


def policy_error(ctx: PassContext, message: str, node: exp.Expr) -> PolicyError:
    """The policy's refusal of ``node``, naming the item and the position."""
    return PolicyError(
        message,
        item_id=ctx.item_id,
        item_kind=ctx.item_kind,
        source=ctx.source,
        span=ctx.span_of(node),
    )


def _int_literal(node: exp.Expr) -> int | None:
    sign = 1
    while isinstance(node, (exp.Paren, exp.Neg)):
        if isinstance(node, exp.Neg):
            sign = -sign
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return sign * int(node.this)
    if isinstance(node, exp.Cast):  # 5L is parsed as CAST(5 AS BIGINT)
        return _int_literal(node.this)
    return None


def _args(node: exp.Func) -> list[exp.Expr]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out = [v for k, v in node.args.items() if isinstance(v, exp.Expr) and k != "expressions"]
    return out + list(node.args.get("expressions") or [])


def _filters_another_select(select: exp.Select) -> bool:
    """Whether ``select`` sits in the condition (WHERE, HAVING, a join's ON) of another SELECT,
    where it runs once per row of that one."""
    child: exp.Expr = select
    parent = select.parent
    while parent is not None:
        if isinstance(parent, (exp.Where, exp.Having)) or (
            isinstance(parent, exp.Join) and child is parent.args.get("on")
        ):
            return parent.find_ancestor(exp.Select) is not None
        if isinstance(parent, exp.Select):
            return False
        child, parent = parent, parent.parent
    return False


def _in_subquery(node: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Select):
            return True
        parent = parent.parent
    return False


def _check_aggregate(node: exp.Func, name: str, ctx: PassContext) -> None:
    """An aggregate must be in the catalogue of aggregates, with its literals in range."""
    refused = aggregate_refusal(node, name, _args(node)[1:])
    if refused is not None:
        raise policy_error(ctx, refused[0], refused[1])


def _check_function(
    node: exp.Func, policy: RulePolicy, lambdas: set[str], ctx: PassContext
) -> None:
    name = function_name(node)
    if name in _FORBIDDEN_NAMES:
        raise policy_error(ctx, f"{name}(...) is never allowed in rule text", node)
    if name in REFUSED_FUNCTIONS:
        raise policy_error(ctx, f"{name} is refused: {REFUSED_FUNCTIONS[name]}", node)
    if isinstance(node, TIME_ZONE_CLASSES):
        _check_time_zones(node, ctx)
    if isinstance(node, exp.GenerateSeries) and node.args.get("step") is not None:
        _check_sequence_step(node, ctx)
    if name in CLOCK_FUNCTIONS or isinstance(node, CLOCK_CLASSES):
        if not policy.allow_clock:
            raise policy_error(
                ctx, f"{name}() reads the clock, which this rule policy refuses (allow_clock)", node
            )
        return
    if isinstance(node, exp.Anonymous) and name.lower() in ANONYMOUS_AGGREGATES:
        ok = policy.allow_aggregates or _in_subquery(node)
    elif isinstance(node, exp.Anonymous):
        ok = (
            name in ALLOWED_FUNCTIONS
            or name in policy.allowed_functions
            or name.lower() in lambdas
            or canonical(name) in REGISTRY
            or name in ("_", "callfun", "_lambda_", "set")
            or canonical(name) in AGG_HELPERS
            or canonical(name)
            in ("coalesceifattributesmissing", "coalesceifattributesmissingdisable")
        )
    else:
        ok = type(node) in allowed_classes() or name in policy.allowed_functions
        if not ok and isinstance(node, exp.AggFunc):
            ok = policy.allow_aggregates or _in_subquery(node)
    if ok and is_aggregate(node) and _in_subquery(node):  # reading reference data, or a check
        _check_aggregate(node, name, ctx)
    if not ok:
        hint, written = "", name
        if isinstance(node, exp.Anonymous):  # a name Spark may not know at all: a typo?
            written = str(node.this)
            known = {*ALLOWED_FUNCTIONS, *(lam.name for lam in ctx.lambdas.all())}
            hint = did_you_mean(written, known)
            if not hint:
                hint = (
                    " (it is neither a Spark function the rule policy allows nor a lambda of "
                    "this suite; docs/security.md says which functions rules may call)"
                )
        raise policy_error(ctx, f"function {written} is not allowed by the rule policy{hint}", node)
    args = _args(node)
    if name == "array_sort" and any(isinstance(a, exp.Lambda) for a in args):
        raise policy_error(
            ctx,
            "array_sort with a comparator aborts the job when the comparator returns null or "
            "meets a null element; use array_sort(a) or sort_array(a, false)",
            node,
        )
    if name in NEEDS_ARGUMENTS and not args and not policy.allow_clock:
        raise policy_error(
            ctx, f"{name}() without arguments reads the clock, which this policy refuses", node
        )
    if name in AMPLIFIERS or isinstance(node, (exp.Repeat, exp.Pad, exp.GenerateSeries)):
        key = "sequence" if isinstance(node, exp.GenerateSeries) else name
        positions = AMPLIFIERS.get(key, (1,))
        found = [_int_literal(args[p]) if p < len(args) else None for p in positions]
        values = [v for v in found if v is not None]
        if len(values) != len(found):
            raise policy_error(
                ctx, f"{name} needs integer literal sizes (it can exhaust memory)", node
            )
        size = abs(values[-1] - values[0]) if key == "sequence" else max(values)
        if size > policy.max_amplification:
            raise policy_error(
                ctx, f"{name} size {size} is over the cap {policy.max_amplification}", node
            )
    if name in REGEX_FUNCTIONS or isinstance(
        node, (exp.RegexpLike, exp.RegexpExtract, exp.RegexpReplace, exp.RegexpSplit)
    ):
        _check_pattern(node, name, args, policy, ctx)


def _check_pattern(
    node: exp.Func, name: str, args: list[exp.Expr], policy: RulePolicy, ctx: PassContext
) -> None:
    """A regex function's pattern: a literal proven linear (``regex_safety``), or a column
    when the policy allows; ``regexp_replace``'s replacement too."""
    pattern = (
        node.expression
        if not isinstance(node, exp.Anonymous)
        else (args[1] if len(args) > 1 else None)
    )
    if isinstance(pattern, exp.Literal) and pattern.is_string:
        reason = unsafe_reason(pattern.this)
        if reason:
            raise policy_error(ctx, f"regular expression {pattern.this!r}: {reason}", pattern)
    elif not policy.allow_regex_columns:
        raise policy_error(
            ctx, f"{name} needs a literal pattern (patterns from data are refused)", node
        )
    if isinstance(node, exp.RegexpReplace):
        _check_replacement(node, pattern, policy, ctx)


def _check_replacement(
    node: exp.Expr, pattern: exp.Expr | None, policy: RulePolicy, ctx: PassContext
) -> None:
    """``regexp_replace``'s replacement: Java reads ``$n`` as group ``n`` and ``\\`` as an escape,
    and one trailing ``$`` or a reference to a group the pattern lacks aborts the job. It must
    be a literal whose references all name groups the pattern has."""
    replacement = node.args.get("replacement")
    if replacement is None:
        return
    if not (isinstance(replacement, exp.Literal) and replacement.is_string):
        if policy.allow_regex_columns:
            return
        raise policy_error(
            ctx,
            "regexp_replace needs a literal replacement (a '$' or '\\' in text from data "
            "aborts the job)",
            replacement,
        )
    text = str(replacement.this)
    groups = None
    if isinstance(pattern, exp.Literal) and pattern.is_string:
        groups = capturing_groups(pattern.this)
    i = 0
    while i < len(text):
        if text[i] == "\\":
            if i + 1 >= len(text):
                raise policy_error(ctx, "the replacement ends in a lone '\\'", replacement)
            i += 2
            continue
        if text[i] == "$":
            digits = len(text[i + 1 :]) - len(text[i + 1 :].lstrip("0123456789"))
            if not digits:
                raise policy_error(
                    ctx,
                    "'$' in a replacement must name a group ($1); write '\\$' for a dollar sign",
                    replacement,
                )
            number = int(text[i + 1 : i + 1 + digits][:1])  # Java reads the longest valid
            if groups is not None and number > groups:
                raise policy_error(
                    ctx, f"the replacement names group {number}; the pattern has {groups}",
                    replacement,
                )  # fmt: skip
            i += 1 + digits
            continue
        i += 1


_OFFSET = re.compile(r"^(UTC|GMT)?[+-]\d{1,2}(:\d{2})?$|^Z$", re.IGNORECASE)


def _known_zone(zone: str) -> bool:
    if _OFFSET.match(zone):
        return True
    try:
        from zoneinfo import ZoneInfo

        ZoneInfo(zone)
        return True
    except Exception:
        return False


def _check_time_zones(node: exp.Expr, ctx: PassContext) -> None:
    """Time zones must be literal, known zones: Spark aborts the job on an unknown one."""
    keys = ("source_tz", "target_tz") if isinstance(node, exp.ConvertTimezone) else ("zone",)
    for key in keys:
        zone = node.args.get(key)
        if zone is None:
            continue
        if not (isinstance(zone, exp.Literal) and zone.is_string):
            raise policy_error(
                ctx, "time zones must be literals (an unknown zone aborts the job)", node
            )
        if not _known_zone(zone.this):
            raise policy_error(ctx, f"unknown time zone {zone.this!r}", zone)


def _check_sequence_step(node: exp.Expr, ctx: PassContext) -> None:
    """``sequence(start, stop, step)`` aborts the job when the step is 0 or points away."""
    start, stop = _int_literal(node.args["start"]), _int_literal(node.args["end"])
    step = _int_literal(node.args["step"])
    if step is None or start is None or stop is None:
        raise policy_error(ctx, "sequence needs integer literal start, stop and step", node)
    if step == 0 or (stop - start) * step < 0:
        raise policy_error(ctx, f"sequence from {start} to {stop} by {step} aborts the job", node)


def _check_table(node: exp.Table, policy: RulePolicy, ctx: PassContext) -> None:
    name = node.name.lower()
    if node.args.get("db") or node.args.get("catalog") or name not in policy.allowed_views:
        shown = node.sql()
        raise policy_error(
            ctx,
            f"subqueries may only read the views the policy names ({sorted(policy.allowed_views)}"
            f"), not {shown}",
            node,
        )


#: Names Spark resolves, without parentheses, to the session's identity when no column of that
#: name exists (``user = 'admin'`` reads who runs the job).
IDENTITY_NAMES = frozenset({"user", "current_user", "session_user", "current_role"})
#: Names Spark resolves, without parentheses, to the query's clock.
CLOCK_NAMES = frozenset({"current_date", "current_timestamp", "current_time", "localtimestamp"})


#: The datetime pattern letters Spark accepts, with the longest run of each that it accepts
#: (measured on Spark 4.3 by formatting with runs of 1..11 of every letter; the Spark tier checks
#: this table against Spark itself). Any other letter (week-based and removed letters: Y, w, W,
#: e, c, u, A, n, N ...) and longer runs abort the job at run time.
_PATTERN_RUNS = {
    "G": 4, "y": 6, "Q": 4, "q": 4, "M": 4, "L": 4, "E": 4, "d": 2, "D": 3, "F": 1, "a": 1,
    "h": 2, "K": 2, "k": 2, "H": 2, "m": 2, "s": 2, "S": 9, "z": 4, "O": 1, "X": 5, "x": 5,
    "Z": 5,
}  # fmt: skip
_PATTERN_LETTERS = frozenset(_PATTERN_RUNS)
#: Characters outside quotes that Spark reserves (they abort the job): '#', '{', '}', and the
#: optional-section brackets, which we do not prove.
_PATTERN_RESERVED = frozenset("#{}[]")
_DATE_FORMAT_NODES = (exp.TsOrDsToDate, exp.StrToTime, exp.StrToUnix, exp.TimeToStr, exp.UnixToStr)
_DATE_FORMAT_CALLS = frozenset(
    {"try_to_timestamp", "to_timestamp_ltz", "to_timestamp_ntz", "to_unix_timestamp"}
    | {"to_date", "to_timestamp", "date_format", "unix_timestamp", "from_unixtime"}
)


#: Letters Spark formats with but refuses to parse with (``to_date(s, 'EEEE')`` aborts the job).
_FORMAT_ONLY_LETTERS = frozenset("EFqQ")
#: Calls that format a value as text; every other patterned call parses text.
_FORMATTING_CALLS = frozenset({"date_format", "from_unixtime"})
_FORMATTING_NODES = (exp.TimeToStr, exp.UnixToStr)


def pattern_problem(pattern: str, *, parsing: bool = False) -> str | None:
    """Why a datetime pattern would abort the job, or None: outside quotes, every letter is one
    Spark accepts in a run no longer than it accepts (and, to parse, one it parses with), no
    reserved character appears, and every quote is closed.

    >>> pattern_problem("yyyy-MM-dd HH:mm"), pattern_problem("YYYY-ww")
    (None, "pattern letter 'Y' is not one Spark accepts (week-based and removed letters fail)")
    >>> pattern_problem("yyyyyyyyyyy"), pattern_problem("dd'#'")
    ("11 'y' in a row: Spark accepts at most 6", None)
    """
    quoted = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            quoted = not quoted
            i += 1
            continue
        if quoted:
            i += 1
            continue
        if ch in _PATTERN_RESERVED:
            return f"{ch!r} is reserved in datetime patterns (quote it: '{ch}')"
        if ch.isalpha():
            if ch not in _PATTERN_LETTERS:
                return (
                    f"pattern letter {ch!r} is not one Spark accepts (week-based and removed "
                    "letters fail)"
                )
            if parsing and ch in _FORMAT_ONLY_LETTERS:
                return f"pattern letter {ch!r} can format a date but not parse one"
            run = len(pattern[i:]) - len(pattern[i:].lstrip(ch))
            if run > _PATTERN_RUNS[ch]:
                return f"{run} {ch!r} in a row: Spark accepts at most {_PATTERN_RUNS[ch]}"
            i += run
            continue
        i += 1
    if quoted:
        return "a quote is not closed"
    return None


def _check_date_pattern(node: exp.Expr, ctx: PassContext) -> None:
    if isinstance(node, _DATE_FORMAT_NODES):
        if node.args.get("format") is None:
            return
        from quality_py.sql.dialect import DIALECT

        text = DIALECT.generator().format_time(node) or ""
        pattern = text[1:-1].replace("''", "'") if text.startswith("'") else None
        literal = isinstance(node.args.get("format"), exp.Literal)
    else:
        args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
        if len(args) < 2:
            return
        literal = isinstance(args[1], exp.Literal) and args[1].is_string
        pattern = args[1].this if literal else None
    if not literal or pattern is None:
        raise policy_error(
            ctx, "datetime patterns must be literals (a bad one aborts the job)", node
        )
    parsing = not (
        isinstance(node, _FORMATTING_NODES)
        or (isinstance(node, exp.Anonymous) and str(node.this).lower() in _FORMATTING_CALLS)
    )
    problem = pattern_problem(pattern, parsing=parsing)
    if problem:
        raise policy_error(ctx, f"datetime pattern {pattern!r}: {problem}", node)


def _check_node(node: exp.Expr, policy: RulePolicy, ctx: PassContext) -> None:
    """Operators and bare names the policy refuses (the function checks are separate)."""
    if isinstance(node, exp.Identifier) and "${" in node.name:
        raise policy_error(
            ctx,
            f"the name {node.name!r} holds '${{': Spark would substitute an environment variable "
            "or a setting there (a string literal may hold it; a name may not)",
            node,
        )
    if isinstance(node, exp.Column) and not node.table:
        name = node.name.lower()
        if name in IDENTITY_NAMES:  # in a subquery too: Spark reads the session's identity
            where = "with the view's alias, v." if _in_subquery(node) else "main."
            raise policy_error(
                ctx,
                f"{name} reads the identity of the session; a column of that name must be "
                f"qualified ({where}{name})",
                node,
            )
        if name in CLOCK_NAMES and not policy.allow_clock:
            raise policy_error(
                ctx, f"{name} reads the clock, which this rule policy refuses (allow_clock)", node
            )
    if isinstance(node, TIME_ZONE_CLASSES):
        _check_time_zones(node, ctx)
    if isinstance(node, _DATE_FORMAT_NODES) or (
        isinstance(node, exp.Anonymous) and str(node.this).lower() in _DATE_FORMAT_CALLS
    ):
        _check_date_pattern(node, ctx)
    if isinstance(node, (exp.Like, exp.ILike)):
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            reason = like_unsafe_reason(pattern.this)
            if reason:
                raise policy_error(ctx, f"LIKE pattern {pattern.this!r}: {reason}", pattern)
        elif not policy.allow_regex_columns:
            raise policy_error(
                ctx, "LIKE needs a literal pattern (patterns from data are refused)", node
            )


def enforce(tree: exp.Expr, policy: RulePolicy, ctx: PassContext) -> None:
    """Raise :class:`PolicyError` for the first construct ``policy`` does not allow."""
    if policy.trusted:
        return
    lambdas = {p.name.lower() for p in ctx.lambdas.all()}
    for node in tree.walk():  # sqlglot walks with an explicit stack: no recursion
        if isinstance(node, exp.Alias) and not _in_subquery(node):
            raise policy_error(ctx, "an alias (AS) is not allowed in a rule", node)
        _check_node(node, policy, ctx)
        if isinstance(node, exp.Window):
            refused = window_refusal(node, ctx.item_kind, policy.allow_aggregates)
            if refused is not None:
                raise policy_error(ctx, refused, node)
            continue
        if window_syntax(node):  # its function, ORDER BY and count(*): checked with the window
            continue
        if isinstance(node, exp.Func) and not isinstance(node, _STRUCTURE):
            _check_function(node, policy, lambdas, ctx)
            continue
        if isinstance(node, (*_STRUCTURE, *TIME_ZONE_CLASSES)):
            continue
        if isinstance(node, _SUBQUERY) or (isinstance(node, exp.Exists) and node.find(exp.Select)):
            if not policy.allowed_views:
                raise policy_error(
                    ctx, "subqueries are not allowed (the policy names no views to read)", node
                )
            if isinstance(node, exp.Table):
                _check_table(node, policy, ctx)
            if (
                isinstance(node, exp.Select)
                and not policy.allow_lookup_joins
                and _filters_another_select(node)
            ):
                raise policy_error(
                    ctx,
                    "a subquery inside another subquery's condition compares every row of one "
                    "view with every row of the other for every input row: it is the join of "
                    "views the policy refuses, written another way (two 50,000-row views are "
                    "2.5 billion comparisons); join the reference data into one view first, "
                    "or allow lookup joins in the policy",
                    node,
                )
            if isinstance(node, exp.Join) and not policy.allow_lookup_joins:
                raise policy_error(
                    ctx,
                    "a lookup reads one view per SELECT: a join of views can multiply rows (a "
                    "cross join of two 10,000-row views is 10^8 rows for every input row); join "
                    "the reference data into one view first, or allow lookup joins in the policy",
                    node,
                )
            if isinstance(node, exp.Select) and not (
                node.args.get("from_") or node.args.get("from")
            ):
                raise policy_error(
                    ctx, "a subquery must read a permitted view (SELECT ... FROM view)", node
                )
            continue
        kind = type(node).__name__
        raise policy_error(ctx, f"{kind} is not allowed by the rule policy", node)
