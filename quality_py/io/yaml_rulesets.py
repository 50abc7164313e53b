"""YAML rulesets: load and dump suites, with errors that point at file, line and column.

Format::

    suite: {id: 1, version: 1, probable_pass: 0.8, description: "..."}
    lambdas:                            # every item may have a description
      - {name: isPositive, id: 200, version: 1, expression: "x -> x > 0"}
    outputs:                            # rule engine / folder outputs, shared by id
      - {id: 1000, version: 1, expression: "'even'"}
    rule_sets:
      - id: 50
        version: 1
        rules:
          - id: 100                     # or no id, and a name: the id is derived from it
            version: 1
            name: a_even                  # optional everywhere: shown beside the id
            expression: "a % 2 == 0"
            filter: "kind = 'even'"       # optional: other rows are DisabledRule for it
            active: true                  # optional: false disables it on every row
            warn_if: "> 0.5 %"            # optional: past it the run warns (quoted: '>')
            fail_if: "> 1000"             # optional: past it the run fails
            report_columns: [a]           # optional: what its top failing values count
            description: "a is even"      # optional: description, owner, tags
            salience: 10                  # optional, with output: {id: 1000, version: 1}
            output: {id: 1000, version: 1}
    meta_rule_sets:                     # one generated rule per matching column (contract 8.1)
      - {id: 60, version: 1, column_filter: "datatype = 'STRING'", expression: "c -> c IS NOT NULL"}

Expressions are read as the raw scalar text, so ``expression: true`` is the SQL ``true``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from quality_py.dataset.checks import Check
from quality_py.errors import ModelError, QualityError, RulesetFormatError, Span, item_text
from quality_py.gate import files
from quality_py.gate.numbers import number
from quality_py.io.schema import KEYS, did_you_mean
from quality_py.io.variables import escape_variables, substitute_variables
from quality_py.io.yaml_checks import checks_from_node, refuse_aliases
from quality_py.model.ids import INT_MAX, Id, check_name, id_from_name
from quality_py.model.rules import (
    ROW_ACTIONS,
    LambdaFunction,
    MetaRuleSet,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
)
from quality_py.model.tolerance import parse_tolerance
from quality_py.model.yaml_text import dump_yaml


class _Ctx:
    def __init__(self, text: str, origin: str) -> None:
        self.text = text
        self.origin = origin

    def error(self, node: Node | None, message: str) -> RulesetFormatError:
        span = None
        if node is not None:
            mark = node.start_mark
            span = Span(mark.line + 1, mark.column + 1, mark.index, node.end_mark.index)
        where = f"{self.origin}:{span.line}:{span.col}" if span else self.origin
        return RulesetFormatError(f"{where}: {message}", item_kind="ruleset", span=span)


def _mapping(node: Node, ctx: _Ctx, what: str) -> dict[str, Node]:
    if not isinstance(node, MappingNode):
        raise ctx.error(node, f"{what} must be a mapping")
    out: dict[str, Node] = {}
    for key, value in node.value:
        if not isinstance(key, ScalarNode):
            raise ctx.error(key, f"{what} keys must be plain names")
        if key.value in out:
            raise ctx.error(key, f"{what} repeats the key {key.value!r}")
        out[key.value] = value
    return out


def _sequence(node: Node | None, ctx: _Ctx, what: str) -> list[Node]:
    if node is None or (isinstance(node, ScalarNode) and node.value in ("", "null", "~")):
        return []
    if not isinstance(node, SequenceNode):
        raise ctx.error(node, f"{what} must be a list")
    return list(node.value)


def _check_keys(fields: dict[str, Node], kind: str, ctx: _Ctx, what: str) -> None:
    allowed = KEYS[kind]
    for key, node in fields.items():
        if key not in allowed:
            raise ctx.error(
                node,
                f"unknown key {key!r} in {what}{did_you_mean(key, allowed)}; "
                f"allowed: {sorted(allowed)}",
            )


def _required(fields: dict[str, Node], key: str, parent: Node, ctx: _Ctx, what: str) -> Node:
    if key not in fields:
        raise ctx.error(parent, f"{what} needs {key!r}")
    return fields[key]


def _int(node: Node, ctx: _Ctx, what: str) -> int:
    if not isinstance(node, ScalarNode):
        raise ctx.error(node, f"{what} must be an integer")
    try:
        return int(node.value)
    except ValueError:
        raise ctx.error(node, f"{what} must be an integer, got {node.value!r}") from None


def _text(node: Node, ctx: _Ctx, what: str) -> str:
    if not isinstance(node, ScalarNode) or not str(node.value).strip():
        raise ctx.error(node, f"{what} must be non-empty text")
    return str(node.value)


def _name(fields: dict[str, Node], ctx: _Ctx, what: str) -> str | None:
    node = fields.get("name")
    if node is None:
        return None
    name = _text(node, ctx, f"{what} name")
    try:
        check_name(name, None, what)
    except QualityError as err:
        raise ctx.error(node, err.message) from None
    return name


def _id(fields: dict[str, Node], parent: Node, ctx: _Ctx, what: str) -> Id:
    if "id" not in fields and "name" in fields:  # derived from the name (model/ids.py)
        name = _name(fields, ctx, what)
        assert name is not None
        ident = id_from_name(name)
    else:
        ident = _int(_required(fields, "id", parent, ctx, what), ctx, f"{what} id")
    version_node = fields.get("version")
    version = _int(version_node, ctx, f"{what} version") if version_node is not None else 1
    try:
        return Id(ident, version)
    except QualityError as err:
        raise ctx.error(fields["id"], err.message) from None


def _description(fields: dict[str, Node], ctx: _Ctx) -> str | None:
    node = fields.get("description")
    return _text(node, ctx, "description") if node is not None else None


def _tags(node: Node | None, ctx: _Ctx) -> tuple[str, ...]:
    return tuple(_text(n, ctx, "tag") for n in _sequence(node, ctx, "tags"))


def _output_ref(node: Node, ctx: _Ctx, outputs: dict[Id, OutputExpression]) -> OutputExpression:
    fields = _mapping(node, ctx, "an output reference")
    _check_keys(fields, "output reference", ctx, "an output reference")
    ref = _id(fields, node, ctx, "output")
    if ref not in outputs:
        raise ctx.error(node, f"output {ref!r} is not defined under 'outputs'")
    return outputs[ref]


def _rule(node: Node, ctx: _Ctx, outputs: dict[Id, OutputExpression]) -> Rule:
    fields = _mapping(node, ctx, "a rule")
    _check_keys(fields, "rule", ctx, "a rule")
    rule_id = _id(fields, node, ctx, "rule")
    text = _text(_required(fields, "expression", node, ctx, "a rule"), ctx, "rule expression")
    desc = fields.get("description")
    owner = fields.get("owner")
    salience = fields.get("salience")
    output = fields.get("output")
    action = fields.get("action_if_failed")
    if action is not None and _text(action, ctx, "action_if_failed") not in ROW_ACTIONS:
        raise ctx.error(action, f"action_if_failed must be one of {', '.join(ROW_ACTIONS)}")
    return Rule(
        rule_id,
        text,
        salience=_int(salience, ctx, "salience") if salience is not None else INT_MAX,
        output=_output_ref(output, ctx, outputs) if output is not None else None,
        description=_text(desc, ctx, "description") if desc is not None else None,
        owner=_text(owner, ctx, "owner") if owner is not None else None,
        tags=_tags(fields.get("tags"), ctx),
        action_if_failed=_text(action, ctx, "action_if_failed") if action is not None else "ignore",
        name=_name(fields, ctx, "rule"),
        filter=_text(fields["filter"], ctx, "filter") if "filter" in fields else None,
        active=_bool(fields["active"], ctx, "active") if "active" in fields else True,
        warn_if=_tolerance(fields, ctx, "warn_if", rule_id),
        fail_if=_tolerance(fields, ctx, "fail_if", rule_id),
        report_columns=tuple(
            _text(n, ctx, "report column")
            for n in _sequence(fields.get("report_columns"), ctx, "report_columns")
        ),
    )


def _tolerance(fields: dict[str, Node], ctx: _Ctx, key: str, rule_id: Id) -> str | None:
    """A rule's ``warn_if`` / ``fail_if``, refused at its line when it does not parse."""
    node = fields.get(key)
    if node is None:
        return None
    text = _text(node, ctx, key)
    try:
        parse_tolerance(text, field=key, item_id=rule_id)
    except ModelError as err:
        raise ctx.error(node, f"{item_text('rule', rule_id)}: {err.message}") from None
    return text


def _named_node(root: Node, err: QualityError) -> Node:
    """Where a suite-level error is: the second use of a repeated name, else the whole file."""
    if err.code != "DUPLICATE_NAME":
        return root
    seen: set[tuple[str, str]] = set()
    todo: list[tuple[Node, str]] = [(root, "rule_sets" if "rules" in _keys(root) else "")]
    while todo:
        node, path = todo.pop(0)
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if key.value == "name" and isinstance(value, ScalarNode) and path:
                    if (path, value.value) in seen:
                        return value
                    seen.add((path, value.value))
                todo.append((value, key.value if key.value in ("rules", "rule_sets") else path))
        elif isinstance(node, SequenceNode):
            todo.extend((item, path) for item in node.value)
    return root


def _keys(node: Node) -> list[str]:
    return [k.value for k, _ in node.value] if isinstance(node, MappingNode) else []


def _bool(node: Node, ctx: _Ctx, what: str) -> bool:
    value = _text(node, ctx, what).lower()
    if value not in ("true", "false"):
        raise ctx.error(node, f"{what} must be true or false, got {value!r}")
    return value == "true"


def _rule_set(node: Node, ctx: _Ctx, outputs: dict[Id, OutputExpression]) -> RuleSet:
    fields = _mapping(node, ctx, "a rule set")
    _check_keys(fields, "rule set", ctx, "a rule set")
    set_id = _id(fields, node, ctx, "rule set")
    rules = [_rule(n, ctx, outputs) for n in _sequence(fields.get("rules"), ctx, "rules")]
    try:
        return RuleSet(set_id, rules, _description(fields, ctx), _name(fields, ctx, "rule set"))
    except QualityError as err:
        raise ctx.error(_named_node(node, err), err.message) from None


def _outputs(node: Node | None, ctx: _Ctx) -> dict[Id, OutputExpression]:
    out: dict[Id, OutputExpression] = {}
    for item in _sequence(node, ctx, "outputs"):
        fields = _mapping(item, ctx, "an output")
        _check_keys(fields, "output", ctx, "an output")
        oid = _id(fields, item, ctx, "output")
        if oid in out:
            raise ctx.error(item, f"output {oid!r} is defined twice")
        text = _text(
            _required(fields, "expression", item, ctx, "an output"), ctx, "output expression"
        )
        out[oid] = OutputExpression(oid, text, _description(fields, ctx))
    return out


def _lambda(node: Node, ctx: _Ctx) -> LambdaFunction:
    fields = _mapping(node, ctx, "a lambda")
    _check_keys(fields, "lambda", ctx, "a lambda")
    name = _text(_required(fields, "name", node, ctx, "a lambda"), ctx, "lambda name")
    text = _text(_required(fields, "expression", node, ctx, "a lambda"), ctx, "lambda expression")
    try:
        return LambdaFunction(
            name, text, _id(fields, node, ctx, "lambda"), _description(fields, ctx)
        )
    except QualityError as err:
        raise ctx.error(fields["name"], err.message) from None


def _meta_rule_set(node: Node, ctx: _Ctx) -> MetaRuleSet:
    fields = _mapping(node, ctx, "a meta rule set")
    _check_keys(fields, "meta rule set", ctx, "a meta rule set")
    meta_id = _id(fields, node, ctx, "meta rule set")
    filt = _required(fields, "column_filter", node, ctx, "a meta rule set")
    if not isinstance(filt, ScalarNode):
        raise ctx.error(filt, "column_filter must be text")
    text = _text(
        _required(fields, "expression", node, ctx, "a meta rule set"), ctx, "meta expression"
    )
    return MetaRuleSet(meta_id, str(filt.value), text, _description(fields, ctx))


def loads_ruleset(
    text: str, origin: str = "<string>", variables: Mapping[str, str] | None = None
) -> RuleSuite:
    """Load a suite from YAML text.

    >>> suite = loads_ruleset('''
    ... suite: {id: 1, version: 1}
    ... rule_sets:
    ...   - id: 50
    ...     rules:
    ...       - {id: 100, expression: "a > 0"}
    ... ''')
    >>> suite.rule_sets[0].rules[0].id
    Id(100, 1)
    """
    return loads_ruleset_and_checks(text, origin, variables)[0]


def loads_ruleset_and_checks(
    text: str, origin: str = "<string>", variables: Mapping[str, str] | None = None
) -> tuple[RuleSuite, tuple[Check, ...]]:
    """The suite and the dataset checks of YAML ruleset text, read from one parse.

    >>> suite, checks = loads_ruleset_and_checks('''
    ... suite: {id: 1}
    ... rule_sets: [{id: 5, rules: [{id: 9, expression: "a > 0"}]}]
    ... checks: [{level: error, constraints: [{has_size: ">= 1"}]}]
    ... ''')
    >>> suite.rule_count, [c.constraints[0].description for c in checks]
    (1, ['size >= 1'])
    """
    return suite_and_checks(compose_ruleset(text, origin, variables), text, origin)


def compose_ruleset(
    text: str,
    origin: str = "<string>",
    variables: Mapping[str, str] | None = None,
    used: list[str] | None = None,
) -> yaml.Node:
    """The YAML node tree of ruleset text (aliases, depth and syntax checked, ``${NAME}``
    variables substituted: :mod:`quality_py.io.variables`), which every section reader takes:
    a file is read and parsed once (``io/ruleset_file.py``)."""
    refuse_aliases(text, origin)
    try:
        root = yaml.compose(text, Loader=files.yaml_loader())
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        span = Span(mark.line + 1, mark.column + 1, mark.index, mark.index + 1) if mark else None
        where = f"{origin}:{span.line}:{span.col}" if span else origin
        hint = _quote_hint(text, mark.line if mark else None)
        raise RulesetFormatError(
            f"{where}: {err.problem}{hint}", item_kind="ruleset", span=span
        ) from None
    if root is None:
        raise _Ctx(text, origin).error(None, "the ruleset is empty")
    substitute_variables(root, variables, origin, used=used)
    return root


def _quote_hint(text: str, line: int | None) -> str:
    r"""A hint when the YAML error's line holds a value starting with ``>`` or ``<`` unquoted:
    YAML reads ``>`` as the start of a folded block, so ``warn_if: > 0.5 %`` is no text.

    >>> _quote_hint("a: 1\n  warn_if: > 0.5 %", 1)
    '; a value starting with > or < must be quoted: warn_if: "> 0.5 %"'
    >>> _quote_hint("a: [", 0)
    ''
    """
    lines = text.splitlines()
    if line is None or not 0 <= line < len(lines):
        return ""
    # bounded: the line may be a hostile 200 KB cell, and the hint is for a line a person wrote
    found = re.search(r"([A-Za-z_]{1,64}):[ \t]*([<>][^,}\n#]{0,64})", lines[line][:1000])
    if found is None:
        return ""
    key, value = found.group(1), found.group(2).strip()
    return f'; a value starting with > or < must be quoted: {key}: "{value}"'


def suite_and_checks(
    root: yaml.Node, text: str, origin: str = "<string>"
) -> tuple[RuleSuite, tuple[Check, ...]]:
    """The suite and dataset checks of a composed ruleset (:func:`compose_ruleset`)."""
    ctx = _Ctx(text, origin)
    fields = _mapping(root, ctx, "the ruleset")
    _check_keys(fields, "ruleset", ctx, "the ruleset")
    suite_node = _required(fields, "suite", root, ctx, "the ruleset")
    suite_fields = _mapping(suite_node, ctx, "suite")
    _check_keys(suite_fields, "suite", ctx, "suite")
    suite_id = _id(suite_fields, suite_node, ctx, "suite")
    pp_node = suite_fields.get("probable_pass")
    probable_pass = 0.8
    if pp_node is not None:
        try:
            probable_pass = number(_text(pp_node, ctx, "probable_pass"), name="probable_pass")
        except ModelError as err:
            raise ctx.error(pp_node, err.message) from None
    desc = suite_fields.get("description")
    lambdas = [_lambda(n, ctx) for n in _sequence(fields.get("lambdas"), ctx, "lambdas")]
    outputs = _outputs(fields.get("outputs"), ctx)
    sets = [
        _rule_set(n, ctx, outputs) for n in _sequence(fields.get("rule_sets"), ctx, "rule_sets")
    ]
    metas = [
        _meta_rule_set(n, ctx)
        for n in _sequence(fields.get("meta_rule_sets"), ctx, "meta_rule_sets")
    ]
    try:
        suite = RuleSuite(
            suite_id,
            sets,
            lambdas=lambdas,
            probable_pass=probable_pass,
            description=_text(desc, ctx, "description") if desc is not None else None,
            meta_rule_sets=metas,
            name=_name(suite_fields, ctx, "suite"),
        )
    except QualityError as err:
        raise ctx.error(_named_node(root, err), err.message) from None
    return suite, checks_from_node(fields.get("checks"), origin)


def load_ruleset_and_checks(
    path: str | Path, variables: Mapping[str, str] | None = None
) -> tuple[RuleSuite, tuple[Check, ...]]:
    """The suite and the dataset checks of a YAML ruleset file, read once.

    >>> suite, checks = load_ruleset_and_checks("rulesets/flights.yaml")
    >>> suite.rule_count > 0 and len(checks) > 0
    True
    """
    p = Path(path)
    return loads_ruleset_and_checks(files.read_text(p), str(p), variables)


def load_ruleset(path: str | Path, variables: Mapping[str, str] | None = None) -> RuleSuite:
    """Load a suite from a YAML file (errors name the file, line and column).

    >>> suite = load_ruleset("rulesets/flights.yaml")
    >>> suite.id.id > 0 and suite.rule_count > 0
    True
    """
    p = Path(path)
    return loads_ruleset(files.read_text(p), str(p), variables)


def dumps_ruleset(suite: RuleSuite) -> str:
    """The YAML text of a suite; :func:`loads_ruleset` reads it back to an equal suite.

    >>> from quality_py.model import Rule, RuleSet
    >>> s = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 2), "x > 'a: b'")])])
    >>> loads_ruleset(dumps_ruleset(s)) == s
    True
    """
    doc: dict[str, Any] = {
        "suite": {"id": suite.id.id, "version": suite.id.version},
    }
    if suite.name is not None:
        doc["suite"]["name"] = suite.name
    if suite.probable_pass != 0.8:
        doc["suite"]["probable_pass"] = suite.probable_pass
    if suite.description is not None:
        doc["suite"]["description"] = suite.description
    if suite.lambdas:
        doc["lambdas"] = [
            _described(
                {
                    "name": f.name,
                    "id": f.id.id,
                    "version": f.id.version,
                    "expression": f.expression,
                },
                f.description,
            )
            for f in suite.lambdas
        ]
    outputs: dict[Id, OutputExpression] = {}
    for _, r in suite.iter_rules():
        if r.output is not None:
            outputs.setdefault(r.output.id, r.output)
    if outputs:
        doc["outputs"] = [
            _described(
                {"id": o.id.id, "version": o.id.version, "expression": o.expression}, o.description
            )
            for o in outputs.values()
        ]
    sets = []
    for rs in suite.rule_sets:
        rules = [_rule_item(r) for r in rs.rules]
        head: dict[str, Any] = {"id": rs.id.id, "version": rs.id.version}
        if rs.name is not None:
            head["name"] = rs.name
        sets.append(_described(head, rs.description) | {"rules": rules})
    doc["rule_sets"] = sets
    if suite.meta_rule_sets:
        doc["meta_rule_sets"] = [
            _described(
                {
                    "id": m.id.id,
                    "version": m.id.version,
                    "column_filter": m.column_filter,
                    "expression": m.expression,
                },
                m.description,
            )
            for m in suite.meta_rule_sets
        ]
    return dump_yaml(escape_variables(doc))  # model text is literal: no ${NAME} in it


def _rule_item(r: Rule) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": r.id.id,
        "version": r.id.version,
        "expression": r.expression,
    }
    if r.salience != INT_MAX:
        item["salience"] = r.salience
    if r.output is not None:
        item["output"] = {"id": r.output.id.id, "version": r.output.id.version}
    if r.description is not None:
        item["description"] = r.description
    if r.owner is not None:
        item["owner"] = r.owner
    if r.tags:
        item["tags"] = list(r.tags)
    if r.action_if_failed != "ignore":
        item["action_if_failed"] = str(r.action_if_failed)
    if r.name is not None:
        item["name"] = r.name
    if r.filter is not None:
        item["filter"] = r.filter
    if not r.active:
        item["active"] = False
    for key in ("warn_if", "fail_if"):
        if getattr(r, key) is not None:
            item[key] = getattr(r, key)
    if r.report_columns:
        item["report_columns"] = list(r.report_columns)
    return item


def _described(item: dict[str, Any], description: str | None) -> dict[str, Any]:
    return item if description is None else {**item, "description": description}


def dump_ruleset(suite: RuleSuite, path: str | Path) -> None:
    """Write ``suite`` as YAML to ``path`` (:func:`load_ruleset` reads it back to an equal suite).

    >>> import tempfile, os
    >>> from quality_py.model import Rule, RuleSet
    >>> s = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "x > 0")])])
    >>> target = os.path.join(tempfile.mkdtemp(), "suite.yaml")
    >>> dump_ruleset(s, target)
    >>> load_ruleset(target) == s
    True
    """
    Path(path).write_text(dumps_ruleset(suite), encoding="utf-8")
