"""SodaCL ``checks for DATASET:`` files (soda-core v3).

Metric checks (``row_count > 0``, ``missing_percent(email) < 5 %``, ``duplicate_count(a, b) =
0``, ``avg(x) between (1 and 9]``, with ``filter``, ``missing ...``, ``valid ...`` and
``invalid ...`` configurations, or a ``<metric> expression``) become SQL checks computing the
metric with the SQL Soda runs (:mod:`quality_py.io.imports.soda_metrics`) and judging it as Soda
does: an inline threshold is the zone where the check passes; ``fail: when ...`` and ``warn:
when ...`` are the zones where it fails (an ``error`` SQL check) or warns (a ``warning`` one);
a metric without a value, or NaN, is never bad. ``failed rows`` with a ``fail condition``
become rules failing the rows Soda's ``WHERE (condition)`` returns (a null condition returns no
row, so it fails none); their ``fail: when > N`` and ``warn: when > N`` (or ``>=``) become the
rule's ``fail_if`` and ``warn_if``. ``schema`` with ``fail: when wrong column type`` becomes
``has_schema``; ``values in (c) must [not] exist in t (k)`` becomes a reference rule.

Every key is honoured or listed with its line: samples, attributes, identities, named formats,
freshness, anomaly and change-over-time checks and ``configurations for`` sections are listed.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import yaml

from quality_py.dataset.comparisons import SchemaMatch
from quality_py.errors import QualityError
from quality_py.io.imports.common import (
    VARIABLE_MARK,
    Draft,
    ImportResult,
    assemble,
    each_item,
    line_of,
    malformed,
    nodes_with_lines,
    value,
)
from quality_py.io.imports.dqx_functions import Unmappable, text_literal
from quality_py.io.imports.soda_metrics import COUNTED, MISSING_VALID_KEYS, metric_sql
from quality_py.sql.snippets import quoted as column_sql

#: a number in a threshold, or a ``${NAME}`` variable Soda fills before it reads one
_NUM = rf"(?:-?\d+(?:\.\d+)?|{VARIABLE_MARK})"
_CHECK = re.compile(r"^(?P<metric>\w+)(?:\((?P<args>[^)]*)\))?\s*(?P<threshold>.*)$")
#: SodaCL's threshold (``sodacl_parser.py``, ``__antlr_parse_threshold_condition``): a
#: comparison, or ``[not] between`` whose ends are included unless written ``(`` / ``)``.
_THRESHOLD = re.compile(
    rf"^(?:(?P<op><=|>=|!=|<>|=|<|>)\s*(?P<n>{_NUM})\s*(?P<pct>%?)|(?P<neg>not\s+)?between\s+"
    rf"(?P<lb>[\[(]?)\s*(?P<lo>{_NUM})\s*(?P<lpct>%?)\s+and\s+(?P<hi>{_NUM})\s*(?P<hpct>%?)"
    rf"\s*(?P<rb>[\])]?))$"
)
#: a reference check, its columns in parentheses or one bare column on each side (the grammar's
#: ``reference_check``, SodaCLAntlr.g4 line 94)
_REFERENCE = re.compile(
    r"^values in (?:\((?P<src>[^)]*)\)|(?P<one>[^\s(]\S*)) must (?P<inv>not )?exist in "
    r"(?P<table>\S+) (?:\((?P<ref>[^)]*)\)|(?P<ref_one>[^\s(]\S*))$"
)
#: Configuration keys a metric check honours besides the missing and valid ones.
METRIC_KEYS = frozenset({"filter", "name", "warn", "fail"})
#: keys that choose what Soda reports of a check, not its outcome (listed, the check converted)
REPORT_KEYS = {
    "samples limit": "the failed rows Soda keeps as samples",
    "samples columns": "the failed rows Soda keeps as samples",
    "collect failed rows": "the failed rows Soda keeps as samples",
    "attributes": "the check's attributes in Soda Cloud",
    "identity": "the check's identity in Soda Cloud",
}


#: one column of a metric's or reference's list: plain, "double-quoted" or `backticked`
_COLUMN = re.compile(r'\s*(?:"((?:[^"]|"")+)"|`((?:[^`]|``)+)`|([^,"`]+?))\s*(?:,|$)')


def _columns(text: str | None) -> list[str]:
    """The column names of a metric's (or a reference's) arguments, unquoted. Soda writes a
    quoted name into its SQL as given, for data sources where double quotes name a column;
    Spark reads ``"Email Address"`` as text, so Soda's check there measures a constant. The
    name the file quotes is the column it means: it is read as that column (a stated
    difference, docs/migrating.md).

    >>> _columns('a, "Email Address", `b``c`')
    ['a', 'Email Address', 'b`c']
    """
    text, names, at = (text or "").strip(), [], 0
    while at < len(text):
        m = _COLUMN.match(text, at)
        if m is None or m.end() == at:
            raise Unmappable(f"the column list ({text}) is not one we read")
        quoted, ticked, plain = m.groups()
        names.append(
            quoted.replace('""', '"') if quoted else ticked.replace("``", "`") if ticked
            else plain.strip()
        )  # fmt: skip
        at = m.end()
    return names


def zone(threshold: str, metric: str, value: str) -> str:
    """The SQL of ``value`` being in the zone a SodaCL threshold names.

    >>> zone("between (1 and 5]", "avg", "v"), zone("not between 1 and 5", "avg", "v")
    ('v > 1 AND v <= 5', 'NOT (v BETWEEN 1 AND 5)')
    """
    m = _THRESHOLD.match(threshold.strip())
    if not m:
        raise Unmappable(f"the threshold {threshold!r} is not one we read")
    percents = {m.group("pct"), m.group("lpct"), m.group("hpct")} - {None, ""}
    if percents and not metric.endswith("_percent"):
        raise Unmappable(f"a % threshold on {metric}")
    if m.group("op"):
        op = {"!=": "<>"}.get(m.group("op"), m.group("op"))
        return f"{value} {op} {m.group('n')}"
    low = ">" if m.group("lb") == "(" else ">="
    high = "<" if m.group("rb") == ")" else "<="
    if (low, high) == (">=", "<="):
        inside = f"{value} BETWEEN {m.group('lo')} AND {m.group('hi')}"
    else:
        inside = f"{value} {low} {m.group('lo')} AND {value} {high} {m.group('hi')}"
    return f"NOT ({inside})" if m.group("neg") else inside


def _metric(draft: Draft, text: str, config: dict[str, Any]) -> None:
    """A metric check: its threshold inline (the zone where it passes) or as ``fail:`` /
    ``warn:`` alerts (``when`` and the zone where it fails or warns). A metric without a value
    (the avg of no rows) is not evaluated by Soda (``metric_check.py`` line 105): it passes."""
    m = _CHECK.match(text)
    if not m:
        raise Unmappable("not a metric check we read")
    metric, inline = m.group("metric"), m.group("threshold").strip()
    custom_keys = [k for k in config if k.endswith(" expression")]
    unknown = sorted(set(config) - METRIC_KEYS - MISSING_VALID_KEYS - set(custom_keys))
    if unknown:
        raise Unmappable(f"the configuration(s) {', '.join(unknown)} are not converted")
    if custom_keys and custom_keys != [f"{metric} expression"]:
        raise Unmappable("a metric expression must be named after its metric, as Soda requires")
    alerts = [(k, config[k]) for k in ("fail", "warn") if config.get(k) is not None]
    if bool(inline) == bool(alerts):
        raise Unmappable("a metric check needs its threshold inline or as fail / warn alerts")
    custom = str(config[custom_keys[0]]) if custom_keys else None
    sql, is_query = metric_sql(metric, _columns(m.group("args")), config, custom)
    name = str(config.get("name") or text)
    # Soda judges the value in Python, where NaN compares false both ways: a NaN is in no
    # zone, so it never fails (threshold_cfg.py, is_bad); Spark orders NaN above all numbers.
    # A count (or a percentage of counts) is never NaN: it needs no guard
    nan = "" if metric in COUNTED and custom is None else f"isnan({sql}) OR "
    tests = []
    if inline:
        tests.append((name, "error", f"{nan}({zone(inline, metric, sql)}) IS NOT FALSE"))
    for key, when in alerts:
        if not isinstance(when, str) or not when.startswith("when "):
            raise Unmappable(f"{key}: takes 'when' and a threshold")
        level = "error" if key == "fail" else "warning"
        test = f"{nan}({zone(when[5:], metric, sql)}) IS NOT TRUE"
        tests.append((f"{name} ({key})", level, test))
    for label, level, test in tests:
        draft.sql_checks.append(
            {"name": draft.name(label), "sql": f"SELECT {test}" if is_query else test,
             "on": "source", "level": level}
        )  # fmt: skip


#: a failed rows check's ``fail:`` / ``warn:`` that a rule's tolerance states exactly: more
#: than (or at least) a count of failing rows
_MORE_THAN = re.compile(rf"^when\s+(?P<op>>=|>)\s*(?P<n>{_NUM})$")


def _tolerance(key: str, text: object) -> str:
    """A failed rows check's ``fail: when > N`` (``warn:``) as the rule's ``fail_if``
    (``warn_if``): soda-core v3.5.6 (user_defined_failed_rows_expression_check.py, evaluate)
    fails the check when the fail threshold is bad for the failing rows' count, else warns when
    the warn threshold is, else passes; exactly a rule's tolerance. Other zones are listed.

    >>> _tolerance("fail", "when > 10"), _tolerance("warn", "when >= 2.5")
    ('> 10', '>= 2.5')
    """
    m = _MORE_THAN.match(str(text).strip())
    if m is None or float(m["n"]) < 0 or (m["op"] == ">=" and float(m["n"]) == 0):
        raise Unmappable(
            f"{key}: {text!r} on failed rows: only 'when > N' and 'when >= N' (a count of "
            "failing rows) map, onto the rule's tolerance"
        )
    return f"{m['op']} {m['n']}"


def _failed_rows(draft: Draft, config: dict[str, Any]) -> None:
    condition = config.get("fail condition")
    if not str(condition or "").strip():
        raise Unmappable("failed rows with a fail query read tables by name")
    unknown = sorted(set(config) - {"fail condition", "name", "fail", "warn"})
    if unknown:
        raise Unmappable(f"the key(s) {', '.join(unknown)} of failed rows are not converted")
    rule = {"name": draft.name(str(config.get("name") or "failed_rows")),
            "expression": f"({condition}) IS NOT TRUE"}  # fmt: skip
    for key in ("fail", "warn"):
        if config.get(key) is not None:
            rule[f"{key}_if"] = _tolerance(key, config[key])
    draft.rules.append(rule)


#: the schema validations that map: a column missing, present with another type, forbidden
_SCHEMA_WHEN = ("when required column missing", "when wrong column type",
                "when forbidden column present")  # fmt: skip
_FORBIDDEN = re.compile(r"[A-Za-z0-9_ *%-]+")


def _forbidden(patterns: object, key: str) -> list[str]:
    """Soda's forbidden column names (``schema_check.py``: ``%`` and ``*`` become ``.*``, the
    rest is a regex matched from the start of a name) as ``has_no_columns`` patterns, a name
    followed by anything; a pattern with another regex character is listed.

    >>> _forbidden(["pii*", "%SALARY%", "sombrero"], "fail")
    ['pii*', '*SALARY*', 'sombrero*']
    """
    if not isinstance(patterns, list) or not patterns:
        raise Unmappable(f"{key}: when forbidden column present takes a list of names")
    out = []
    for p in map(str, patterns):
        if not _FORBIDDEN.fullmatch(p):
            raise Unmappable(f"{key}: the forbidden name {p!r} holds a regex character")
        glob = p.replace("%", "*")
        out.append(glob if glob.endswith("*") else f"{glob}*")
    return out


def _schema(draft: Draft, config: dict[str, Any]) -> None:
    """soda-core v3.5.6 (``schema_check.py``, get_schema_violations): a level's validations are
    violated when a required column is missing, a typed column (required too) has another
    type, or a column matches a forbidden name; ``fail`` over ``warn``. Each level is a
    ``has_schema`` of its columns (``any`` where only the name is required) and a
    ``has_no_columns`` of the forbidden names. Indexes and changes are listed."""
    levels = [(k, config[k]) for k in ("fail", "warn") if config.get(k) is not None]
    unknown = sorted(set(config) - {"fail", "warn", "name"})
    allowed = ", ".join(_SCHEMA_WHEN)
    if unknown or not levels:
        raise Unmappable(f"the schema keys {', '.join(unknown) or 'fail / warn'}: only "
                         f"{allowed} map")  # fmt: skip
    checks: list[tuple[str, str, dict[str, Any]]] = []
    for key, when in levels:
        if not isinstance(when, dict) or not when or set(when) - set(_SCHEMA_WHEN):
            raise Unmappable(f"{key}: only {allowed} map")
        required, types = when.get(_SCHEMA_WHEN[0]) or [], when.get(_SCHEMA_WHEN[1]) or {}
        if not isinstance(required, list) or not isinstance(types, dict):
            raise Unmappable(f"{key}: a list of required columns and a mapping of types")
        expected = {str(c): "any" for c in required}
        expected.update({str(c): str(t) for c, t in types.items()})
        try:
            if expected:
                SchemaMatch.of(expected, False, False)
        except QualityError as err:  # a type of another database (money, ...)
            raise Unmappable(f"{key}: {err.message}") from None
        forbidden = _forbidden(when[_SCHEMA_WHEN[2]], key) if _SCHEMA_WHEN[2] in when else []
        level = "error" if key == "fail" else "warning"
        if expected:
            checks.append((level, "has_schema", {"expected": expected}))
        if forbidden:
            checks.append((level, "has_no_columns", {"patterns": forbidden}))
    for level, constraint, args in checks:  # every level read before any is kept
        draft.check(level, constraint, args)


#: soda-core v3.5.6 freshness: ``freshness(column[, VARIABLE]) < span`` and the older
#: ``freshness using column [with VARIABLE] < span`` (sodacl_parser.py lines 713 and 1397)
_FRESHNESS = re.compile(
    r"^freshness(?:\((?P<args>[^)]*)\)|\s+using\s+(?P<col>\S+)(?:\s+with\s+(?P<var>\w+))?)"
    r"\s*(?:(?P<op><=|<)\s*(?P<span>\S+))?$"
)
#: a span inline (the grammar's TIMEUNIT: days, hours, minutes) and after ``when >``
_SPAN = {True: re.compile(r"(?:\d+[dhm])+"), False: re.compile(r"(?:\d+[dhms])+")}
_SECONDS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}


def _span_micros(text: str, inline: bool = False) -> int:
    """A freshness span in microseconds (``parse_freshness_threshold``: days, hours, minutes
    and seconds summed); only the form with a unit on every number is read.

    >>> _span_micros("1d6h20m"), _span_micros("27h")
    (109200000000, 97200000000)
    """
    if not _SPAN[inline].fullmatch(text):
        units = "d, h or m" if inline else "d, h, m or s"
        raise Unmappable(f"the freshness span {text!r}: write numbers each with {units}")
    return sum(int(n) * _SECONDS[u] for n, u in re.findall(r"(\d+)([dhms])", text)) * 1_000_000


def _freshness(draft: Draft, m: re.Match[str], text: str, config: dict[str, Any]) -> None:
    """soda-core v3.5.6 ``freshness_check.py``: the age is the variable's time (``NOW``, the
    scan's time, unless another is named) less the newest value (a date at the end of its
    day); the check fails when it is over the fail span, else warns when over the warn span;
    no newest value fails. ``< span`` and ``<= span`` both fail only over the span
    (``get_freshness_threshold`` of the inverse zone)."""
    unknown = sorted(set(config) - METRIC_KEYS)
    if unknown:
        raise Unmappable(f"the configuration(s) {', '.join(unknown)} are not converted")
    args = (
        m["args"] if m["args"] is not None else f"{m['col']}{', ' + m['var'] if m['var'] else ''}"
    )
    names = _columns(args)
    if not 1 <= len(names) <= 2 or not (args.strip()[0] in '"`' or re.fullmatch(r"\w+", names[0])):
        raise Unmappable("freshness reads a column (and a variable's name)")
    spans = {"fail": m["span"]} if m["span"] else {}
    for key in ("fail", "warn") if not spans else ("warn",):
        when = config.get(key)
        if when is not None:
            if not (isinstance(when, str) and when.startswith("when > ")):
                raise Unmappable(f"{key}: freshness reads 'when > span'")
            spans[key] = when[len("when > ") :].strip()
    micros = {k: _span_micros(v, k == "fail" and bool(m["span"])) for k, v in spans.items()}
    var = names[1] if len(names) == 2 and names[1] != "NOW" else None
    now = f"CAST('{draft.variable(var)}' AS TIMESTAMP)" if var else "current_timestamp()"
    c = column_sql(names[0])
    newest = (
        f"MAX(CASE WHEN {config['filter']} THEN {c} END)" if config.get("filter") else f"MAX({c})"
    )
    end = (f"unix_micros(CAST({newest} AS TIMESTAMP)) + CASE WHEN typeof({newest}) = 'date' "
           "THEN 86399999999 ELSE 0 END")  # fmt: skip
    age = f"unix_micros({now}) - ({end})"
    name = str(config.get("name") or text)
    fail = f" AND {age} <= {micros['fail']}" if "fail" in micros else ""
    tests = [(name, "error", f"{newest} IS NOT NULL{fail}")]
    if "warn" in micros:
        tests.append(
            (f"{name} (warn)", "warning", f"{newest} IS NULL OR {age} <= {micros['warn']}")
        )
    for label, level, test in tests:
        draft.sql_checks.append({"name": draft.name(label), "sql": test, "on": "source",
                                 "level": level})  # fmt: skip


#: ``row_count same as T [partition] [in data_source]`` (the grammar's
#: ``row_count_comparison_check``)
_SAME_AS = re.compile(
    r"^row_count same as (?P<table>\S+)(?: (?P<part>(?!in )\S+))?(?: in (?P<ds>\S+))?$"
)


def _same_as(draft: Draft, m: re.Match[str], text: str, config: dict[str, Any]) -> None:
    """soda-core v3.5.6 ``row_count_comparison_check.py``: passes when the dataset's row count
    equals the other table's (0 and 0 pass). A SQL check over the source reading the other
    table, which the run must allow as a view."""
    if m["ds"]:
        raise Unmappable(f"a count in another data source ({m['ds']})")
    if m["part"]:
        raise Unmappable(f"a count of the partition {m['part']} of a filter section")
    if set(config) - {"name"}:
        raise Unmappable(f"the configuration(s) {', '.join(sorted(set(config) - {'name'}))} "
                         "are not converted")  # fmt: skip
    refused = draft.reference(m["table"])
    if refused:
        raise Unmappable(refused)
    draft.sql_checks.append({"name": draft.name(str(config.get("name") or text)),
                             "sql": f"COUNT(*) = (SELECT COUNT(*) FROM {m['table']})",
                             "on": "source", "level": "error"})  # fmt: skip


def _reference(draft: Draft, m: re.Match[str], config: dict[str, Any]) -> None:
    """Soda's ``reference_query.py``: a left join on every column; a row fails when one of
    its key's parts is not null and the join found nothing (``must not exist``: found
    something). A key with a null part matches nothing, so it fails unless all parts are
    null."""
    if set(config) - {"name"}:
        raise Unmappable("a reference check's configurations are not converted")
    inverse, table = bool(m["inv"]), m["table"]
    refused = draft.reference(table)
    if refused:
        raise Unmappable(refused)
    columns = _columns(m["src"]) if m["src"] is not None else [m["one"]]
    refs = _columns(m["ref"]) if m["ref"] is not None else [m["ref_one"]]
    if len(columns) != len(refs) or not columns:
        raise Unmappable("the reference's columns differ in number")
    pairs = ", ".join(
        f"{text_literal(r)}, {column_sql(c)}" for c, r in zip(columns, refs, strict=True)
    )
    found = f"{'not_' if inverse else ''}in_reference({text_literal(table)}, {pairs})"
    all_null = " AND ".join(f"{column_sql(c)} IS NULL" for c in columns)
    if len(columns) > 1:
        none_null = " AND ".join(f"{column_sql(c)} IS NOT NULL" for c in columns)
        matched = f"in_reference({text_literal(table)}, {pairs})"
        found = (
            f"({none_null} AND {matched})" if not inverse else f"NOT ({none_null} AND {matched})"
        )
    name = str(config.get("name") or f"{'_'.join(columns)}_in_{table}")
    draft.rules.append({"name": draft.name(name), "expression": f"({all_null}) OR {found}"})


#: a Jinja placeholder naming one variable, as soda-core v3 fills it (``common/jinja.py``:
#: ``${`` and ``}`` delimit Jinja's variables, in every check text, key and query)
_PLACEHOLDER = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


def _with_variables(draft: Draft, spec: Any) -> Any:
    """``spec`` with each ``${ name }`` of its texts and keys as our ``${name}`` variable,
    given with ``--var name=value`` where the ruleset runs. Any other Jinja (``${
    env_var('X') }``, filters) is listed.

    >>> _with_variables(Draft("c.yml"), {"row_count > ${ MIN }": {"name": "n"}})
    {'row_count > QPVARIABLE9F2CMINQPVARIABLE9F2C': {'name': 'n'}}
    """
    if isinstance(spec, str):
        text = _PLACEHOLDER.sub(lambda m: draft.variable(m.group(1)), spec)
        if "${" in text:
            raise Unmappable("only ${NAME} placeholders map (onto our variables), not Jinja")
        return text
    if isinstance(spec, dict):
        return {_with_variables(draft, k): _with_variables(draft, v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_with_variables(draft, v) for v in spec]
    return spec


def _one(draft: Draft, node: Any) -> None:
    spec, line = value(node), line_of(node)
    try:
        spec = _with_variables(draft, spec)
    except Unmappable as why:
        draft.skip(line, value(node), str(why))
        return
    if isinstance(spec, dict) and len(spec) != 1:
        draft.skip(line, spec, "a check is one key")
        return
    text, config = (spec, {}) if isinstance(spec, str) else next(iter(spec.items()))
    config = config if isinstance(config, dict) else {}
    text = str(text).strip()
    samples = sorted(k for k in config if k in REPORT_KEYS)
    config = {k: v for k, v in config.items() if k not in REPORT_KEYS}
    before = len(draft.rules) + len(draft.sql_checks) + len(draft.constraints)
    try:
        with draft.atomic():
            if text == "failed rows":
                _failed_rows(draft, config)
            elif text == "schema":
                _schema(draft, config)
            elif m := _REFERENCE.match(text):
                _reference(draft, m, config)
            elif m := _SAME_AS.match(text):
                _same_as(draft, m, text, config)
            elif m := _FRESHNESS.match(text):
                _freshness(draft, m, text, config)
            else:
                _metric(draft, text, config)
    except Unmappable as why:
        draft.skip(line, spec, str(why))
        return
    if samples and len(draft.rules) + len(draft.sql_checks) + len(draft.constraints) > before:
        kept = {k: spec[text][k] for k in samples} if isinstance(spec, dict) else samples
        chosen = " and ".join(sorted({REPORT_KEYS[k] for k in samples}))
        draft.skip(line, kept, f"{', '.join(samples)} choose {chosen}, not the outcome: not "
                   "kept (the check is converted)")  # fmt: skip


def _node(draft: Draft, line: int, node: Any) -> None:
    _one(draft, node)


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from a SodaCL file."""
    root = nodes_with_lines(text, origin)
    draft = Draft(origin)
    datasets = []
    for key, node in getattr(root, "value", []) or []:
        m = re.match(r"^checks for (\S+)$", str(key.value))
        if not m:
            draft.skip(line_of(key), key.value, "only 'checks for DATASET' sections are read")
            continue
        datasets.append(m.group(1))
        items = getattr(node, "value", []) or []
        if items and not isinstance(node, yaml.SequenceNode):
            raise malformed(origin, line_of(node), f"checks for {m.group(1)}", "not a list")
        each_item(draft, ((line_of(n), n) for n in items), "this check", partial(_node, draft))
    if len(datasets) > 1:
        draft.skip(1, ", ".join(datasets), "several datasets: their checks are in one ruleset")
    result = assemble(draft, datasets[0] if datasets else "sodacl")
    return result.with_note("soda-core v3 meaning applied")
