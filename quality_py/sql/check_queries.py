"""The SQL of SQL checks (:mod:`quality_py.actions.sql_checks`): parsed, policy-checked, and
bound to the frames' temporary views in the tree (never by pasting text)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from sqlglot import exp

from quality_py.errors import CheckDefinitionError, QualityError, RuleSyntaxError
from quality_py.model.limits import HARD_LIMITS, strictest
from quality_py.model.policy import RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.parse import check_text

MAX_LENGTH = 20_000


def _refuse(name: str, text: str, why: str, code: str = "CHECK_DEFINITION") -> CheckDefinitionError:
    """A refusal naming the check, with the code a rule gets for the same problem (``POLICY``
    for a limit or a construct the policy refuses, ``RULE_SYNTAX`` for text that does not parse);
    ``CHECK_DEFINITION`` for what only a check can get wrong (its shape, the frames it reads)."""
    return CheckDefinitionError(
        f"SQL check {name!r}: {why}", item_kind="check", source=text, code=code
    )


def is_query(text: str) -> bool:
    """Whether ``text`` is a whole query (``SELECT``/``WITH``) rather than an aggregate.

    >>> is_query("  select 1"), is_query("count(*) > 0")
    (True, False)
    """
    head = text.lstrip().split(None, 1)[0].upper() if text.strip() else ""
    return head in ("SELECT", "WITH")


def checked_query(
    name: str, text: str, on: str, frames: tuple[str, ...], policy: RulePolicy
) -> exp.Select:
    """The query of a SQL check (an aggregate becomes ``SELECT <it> FROM <on>``), refused with
    the check's name when it is not one SELECT, reads anything but ``frames`` and the policy's
    views, or uses what the policy does not allow."""
    from quality_py.sql.allowed.enforce import enforce
    from quality_py.sql.passes.contain_aggregates import contain_aggregates

    if len(text) > MAX_LENGTH:
        raise _refuse(name, text, f"the text is longer than {MAX_LENGTH:,} characters", "POLICY")
    # the rules' gate (limits, refused characters and operators), with room for a query's length
    limits = replace(strictest(policy.limits, HARD_LIMITS), max_chars=MAX_LENGTH)
    limits = replace(limits, max_tokens=max(limits.max_tokens, MAX_LENGTH // 2))
    try:
        check_text(text, policy, kind="check", limits=limits)
    except QualityError as err:
        raise _refuse(name, text, err.message, err.code) from None
    try:
        statements = [s for s in DIALECT.parse(text) if s is not None]
    except Exception as err:  # sqlglot's parse errors
        why = f"cannot parse: {str(err).splitlines()[0]}"
        raise _refuse(name, text, why, RuleSyntaxError.code) from None
    if is_query(text):
        if len(statements) != 1 or not isinstance(statements[0], exp.Select):
            raise _refuse(name, text, "a query check is one SELECT statement")
        query: exp.Select = statements[0]
    else:
        if len(statements) != 1:
            raise _refuse(name, text, "an aggregate check is one expression")
        value = statements[0]
        if isinstance(value, exp.Query) or not isinstance(value, exp.Condition):
            raise _refuse(name, text, "an aggregate check is an expression (or a SELECT query)")
        query = exp.select(exp.alias_(value, "value")).from_(exp.to_table(on))
    readable = policy.allowed_views | set(frames)
    for table in query.find_all(exp.Table):
        if table.args.get("db") or table.args.get("catalog") or table.name.lower() not in readable:
            where = table.sql(dialect=DIALECT)
            raise _refuse(name, text, f"reads {where}: SQL checks read {sorted(readable)}")
    checking = replace(policy, allowed_views=frozenset(readable), allow_aggregates=True)
    ctx = PassContext(item_kind="check", source=text, policy=checking)
    # checked as a subquery (where aliases and reading views are allowed); a top-level SELECT
    # of subqueries reads nothing itself, so it is checked as if reading a frame
    checked = query.copy()
    if not (checked.args.get("from_") or checked.args.get("from")):
        checked = checked.from_(frames[0])
    try:
        enforce(exp.Subquery(this=checked), checking, ctx)
        # one value of the data must fail the check, never abort the job (sql/allowed/aggregates.py)
        contained = contain_aggregates(query.copy(), ctx=ctx)
    except QualityError as err:
        raise _refuse(name, text, err.message, err.code) from None
    assert isinstance(contained, exp.Select)
    return contained


def bound_sql(query: exp.Select, views: Mapping[str, str]) -> str:
    """The Spark SQL of ``query`` with each frame name replaced by its view (``views``)."""
    tree = query.copy()
    for table in list(tree.find_all(exp.Table)):
        view = views.get(table.name.lower())
        if view is not None:
            table.set("this", exp.to_identifier(view, quoted=True))
    return to_sql(tree)  # immune to Spark's variable substitution (sql/build.py)


def bound_to_tables(query: exp.Select, tables: Mapping[str, str]) -> str:
    """The Spark SQL of ``query`` with each frame name replaced by a table's name (``tables``:
    frame to ``catalog.schema.table``, each part quoted; anything but a name is refused).

    >>> from quality_py.model.policy import RulePolicy
    >>> q = checked_query("c", "count(*) > 0", "valid", ("valid",), RulePolicy())
    >>> "FROM `main`.`dq`.`orders_valid`" in bound_to_tables(q, {"valid": "main.dq.orders_valid"})
    True
    """
    from quality_py.sql.snippets import table_name

    tree = query.copy()
    for table in list(tree.find_all(exp.Table)):
        name = tables.get(table.name.lower())
        if name is not None:
            target = exp.to_table(table_name(name), dialect=DIALECT)
            for part in ("this", "db", "catalog"):
                table.set(part, target.args.get(part))
    return to_sql(tree)


def frames_read(query: exp.Select, frames: tuple[str, ...]) -> list[str]:
    """The frames ``query`` reads, in ``frames`` order."""
    names = {t.name.lower() for t in query.find_all(exp.Table)}
    return [f for f in frames if f in names]
