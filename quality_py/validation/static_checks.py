"""Checks that need no Spark: syntax, lambdas, names against the schema, doc comments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from quality_py.errors import QualityError, column_hint
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite
from quality_py.model.types import SchemaLike
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import CompileIssue, compile_suite
from quality_py.sql.doc_comments import parse_docs
from quality_py.sql.lambdas import LambdaLibrary
from quality_py.sql.names import name_span, unknown_names, view_columns_missing
from quality_py.sql.parse import parse_expression
from quality_py.sql.windows import costs
from quality_py.validation.report import Finding

_KIND_BY_CODE = {
    "RULE_SYNTAX": "SyntaxError",
    "LAMBDA_SYNTAX": "SyntaxError",
    "UNSUPPORTED_STATEMENT": "SyntaxError",
    "LAMBDA_ARITY": "LambdaArityError",
    "DUPLICATE_LAMBDA": "LambdaDuplicateError",
    "LAMBDA_RECURSION": "LambdaRecursionError",
    "LIBRARY_ARGUMENTS": "LibraryFunctionError",
    "LIBRARY_TYPE": "LibraryFunctionError",
    "FOLDER_OUTPUT": "SyntaxError",
    "POLICY": "PolicyError",
}


def finding_of(err: QualityError, item_kind: str, item_id: Id | None, source: str) -> Finding:
    """A finding from a compile error (the error's own id wins: it names the real culprit)."""
    kind = _KIND_BY_CODE.get(err.code, "AnalysisError")
    return Finding(
        kind,
        err.item_kind if err.item_id is not None else item_kind,
        err.item_id if err.item_id is not None else item_id,
        err.message,
        err.span,
        err.source if err.source is not None else source,
    )


@dataclass(frozen=True)
class Item:
    """A rule, output or lambda that compiled, ready for Spark analysis."""

    item_kind: str
    item_id: Id
    source: str
    sql: str | None  # None: needs a struct type (folder outputs), not analysed alone
    #: the parsed rule before the passes (for the implicit-coercion warnings)
    parsed: Any = None


def _doc_findings(
    text: str, item_kind: str, item_id: Id, params: tuple[str, ...] | None
) -> list[Finding]:
    docs = parse_docs(text)
    if docs is None or not docs.params:
        return []
    if params is None:
        return [
            Finding(
                "NonLambdaDocParameters",
                item_kind,
                item_id,
                "parameter documentation on an expression without parameters",
                None,
                text,
            )
        ]
    known = {p.lower() for p in params}
    return [
        Finding(
            "ExtraDocParameter",
            item_kind,
            item_id,
            f"documented parameter {name!r} is not a parameter of the lambda",
            None,
            text,
        )
        for name in docs.params
        if name.lower() not in known
    ]


def _suggestion(name: str, paths: dict[str, bool]) -> str:
    """The closest column (or field beside a nested one) to a missing ``name``."""
    head, _, _ = name.lower().rpartition(".")
    siblings = [p.rpartition(".")[2] for p in paths if p.rpartition(".")[0] == head]
    return column_hint(name.rpartition(".")[2], siblings)


def _missing(
    kind: str, item_id: Id, text: str, tree: Any, params: set[str], paths: dict[str, bool]
) -> list[Finding]:
    return [
        Finding(
            "NameError",
            kind,
            item_id,
            f"column {name} is missing{_suggestion(name, paths)}",
            name_span(text, name),
            text,
        )
        for name in unknown_names(tree, paths, params)
    ]


def _view_misses(
    rule: Any, tree: Any, views: Mapping[str, Mapping[str, bool] | None] | None
) -> list[Finding]:
    """A rule's compiled query reading a column its view lacks (``views``: their columns)."""
    if not views or tree is None:
        return []
    found = []
    for view, name, written in view_columns_missing(tree, views):
        known = views[view] or {}
        hint = column_hint(name, [c for c in known if "." not in c])
        message = f"column {name} is missing from view {view}{hint}"
        span = name_span(rule.expression, written) or name_span(rule.expression, name)
        found.append(Finding("NameError", "rule", rule.id, message, span, rule.expression))
    return found


def static_checks(
    suite: RuleSuite,
    paths: dict[str, bool] | None,
    views: Mapping[str, Mapping[str, bool] | None] | None = None,
) -> tuple[list[Finding], list[Item], LambdaLibrary]:
    """Findings, the items that compiled, and the usable lambda library.

    The compiler's collect mode finds every syntax, policy, lambda and library-function
    problem; this adds what only validation asks: names against the schema (and, ``views``, the
    columns the rules' queries read from views whose columns are known) and doc comments.
    """
    # meta rule sets need a schema: validate() expands them first when it has one
    report = compile_suite(replace(suite, meta_rule_sets=()), collect=True)
    issues: dict[tuple[str, Id | None], CompileIssue] = {}
    for issue in report.issues:
        issues.setdefault((issue.item_kind, issue.item_id), issue)

    def issue_finding(kind: str, item_id: Id) -> list[Finding]:
        found = issues.get((kind, item_id))
        return [] if found is None else [finding_of(found.error, kind, item_id, found.source)]

    # findings in the suite's order: unusable lambdas, then each lambda, rule and output
    usable = {lam.id for lam in report.lambdas.all()}
    findings = [
        finding_of(i.error, i.item_kind, i.item_id, i.source)
        for i in report.issues
        if i.item_kind == "lambda" and i.item_id not in usable
    ]
    for lam in report.lambdas.all():
        findings += _doc_findings(lam.source, "lambda", lam.id, lam.params)
        if ("lambda", lam.id) in issues:
            findings += issue_finding("lambda", lam.id)
        elif paths is not None:
            params = {p.lower() for p in lam.params}
            findings += _missing("lambda", lam.id, lam.source, lam.body, params, paths)
    items: list[Item] = []
    compiled = {r.rule_id: r for r in report.rules}
    for _, rule in suite.iter_rules():
        findings += _doc_findings(rule.expression, "rule", rule.id, None)
        done = compiled.get(rule.id)
        failed = issues.get(("rule", rule.id))
        tree = done.parsed if done is not None else failed.parsed if failed else None
        if paths is not None and tree is not None:
            findings += _missing("rule", rule.id, rule.expression, tree, set(), paths)
        if paths is not None and rule.filter is not None and failed is None:
            where = parse_expression(rule.filter)
            findings += _missing("rule", rule.id, rule.filter, where, set(), paths)
        findings += issue_finding("rule", rule.id)
        findings += _view_misses(rule, done.tree if done is not None else None, views)
        if done is not None:
            items.append(Item("rule", rule.id, rule.expression, done.sql, done.parsed))
            findings += [Finding("Cost", "rule", rule.id, cost) for cost in costs(done.tree)]
    outputs = {o.id: o for o in report.outputs}
    seen: set[Id] = set()
    for _, rule in suite.iter_rules():
        out = rule.output
        if out is None or out.id in seen:
            continue
        seen.add(out.id)
        findings += _doc_findings(out.expression, "output", out.id, None)
        done_out = outputs.get(out.id)
        failed = issues.get(("output", out.id))
        tree = done_out.parsed if done_out is not None else failed.parsed if failed else None
        params = {done_out.param.lower()} if done_out is not None and done_out.param else set()
        if paths is not None and tree is not None:
            findings += _missing("output", out.id, out.expression, tree, params, paths)
        findings += issue_finding("output", out.id)
        if done_out is not None:
            sql = None if done_out.tree is None else to_sql(done_out.tree)
            items.append(Item("output", out.id, out.expression, sql))
    return findings, items, report.lambdas


def schema_paths(schema: SchemaLike) -> dict[str, bool]:
    """``{lower-cased dotted path: is a struct}`` for every column and nested field."""
    from pyspark.sql.types import StructType

    from quality_py.prepare.schema_fields import as_struct

    out: dict[str, bool] = {}

    def walk(prefix: str, dtype: Any) -> None:
        for f in dtype.fields:
            path = f"{prefix}.{f.name.lower()}" if prefix else f.name.lower()
            out[path] = isinstance(f.dataType, StructType)
            if out[path]:
                walk(path, f.dataType)

    walk("", as_struct(schema))
    return out
