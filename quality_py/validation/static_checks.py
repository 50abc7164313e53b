"""Checks that need no Spark: syntax, lambdas, names against the schema, doc comments."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from quality_py.compile import check_text, checked_tree, policy_of
from quality_py.docs.comments import parse_docs
from quality_py.errors import QualityError
from quality_py.model.ids import Id
from quality_py.model.rules import LambdaFunction, OutputExpression, RuleSuite
from quality_py.policy.enforce import enforce
from quality_py.policy.policy import RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.context import LambdaLibrary, PassContext
from quality_py.sql.parse import parse_lambda
from quality_py.sql.passes import run_passes
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


def _free_columns(tree: exp.Expr, params: set[str]) -> Iterator[tuple[list[str], exp.Column]]:
    """Column references that name the input (not lambda variables, not inside subqueries)."""
    for col in tree.find_all(exp.Column):
        parts = [p.name for p in col.parts]
        if not parts or parts[0].lower() in params:
            continue
        node = col.parent
        hidden = False
        while node is not None:
            if isinstance(node, (exp.Subquery, exp.Select)) and parts[0].lower() != "main":
                hidden = True
                break
            if isinstance(node, exp.Lambda) and parts[0].lower() in {
                e.name.lower() for e in node.expressions
            }:
                hidden = True
                break
            node = node.parent
        if not hidden:
            yield (parts[1:] if parts[0].lower() == "main" and len(parts) > 1 else parts), col


def unknown_names(tree: exp.Expr, paths: dict[str, bool], params: set[str]) -> list[str]:
    """Dotted names in ``tree`` the schema does not have (``paths``: path -> is a struct)."""
    missing = []
    for parts, _ in _free_columns(tree, params):
        path = parts[0].lower()
        if path not in paths and len(parts) > 1 and parts[1].lower() in paths:
            parts = parts[1:]  # q.col: a join's qualifier, which Spark's analysis checks
            path = parts[0].lower()
        if path not in paths:
            missing.append(".".join(parts))
            continue
        for part in parts[1:]:
            if not paths[path]:  # a map, array or scalar: the rest is not a struct field
                break
            path = f"{path}.{part.lower()}"
            if path not in paths:
                missing.append(".".join(parts))
                break
    return list(dict.fromkeys(missing))


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


def _library(suite: RuleSuite, findings: list[Finding]) -> LambdaLibrary:
    usable: list[LambdaFunction] = []
    seen: dict[tuple[str, int], Id] = {}
    for fn in suite.lambdas:
        try:
            parsed = parse_lambda(fn)
        except QualityError as err:
            findings.append(finding_of(err, "lambda", fn.id, fn.expression))
            continue
        key = (fn.name.lower(), parsed.arity)
        if key in seen:
            findings.append(
                Finding(
                    "LambdaDuplicateError",
                    "lambda",
                    fn.id,
                    f"lambda {fn.name} with {parsed.arity} argument(s) is also defined by "
                    f"{seen[key]!r}",
                    None,
                    fn.expression,
                )
            )
            continue
        seen[key] = fn.id
        usable.append(fn)
    try:
        return LambdaLibrary(usable)
    except QualityError as err:
        findings.append(finding_of(err, "lambda", err.item_id, ""))
        return LambdaLibrary([fn for fn in usable if fn.id != err.item_id])


def static_checks(
    suite: RuleSuite, paths: dict[str, bool] | None
) -> tuple[list[Finding], list[Item], LambdaLibrary]:
    """Findings, the items that compiled, and the usable lambda library."""
    findings: list[Finding] = []
    policy = policy_of(suite)
    lib = _library(suite, findings)
    items: list[Item] = []
    for fn in suite.lambdas:
        parsed = (
            lib.get(fn.name, len(parse_lambda(fn).params))
            if fn.id not in {f.item_id for f in findings}
            else None
        )
        if parsed is None or parsed.id != fn.id:
            continue
        findings += _doc_findings(fn.expression, "lambda", fn.id, parsed.params)
        try:  # the policy, then expanding the body finds recursion and bad arities in it
            ctx = PassContext(fn.id, "lambda", fn.expression, lib, policy=policy)
            check_text(fn.expression, policy, fn.id, "lambda")
            enforce(parsed.body, policy, ctx)
            run_passes(parsed.body.copy(), ctx)
        except QualityError as err:
            findings.append(finding_of(err, "lambda", fn.id, fn.expression))
            continue
        if paths is not None:
            for name in unknown_names(parsed.body, paths, {p.lower() for p in parsed.params}):
                findings.append(
                    Finding(
                        "NameError",
                        "lambda",
                        fn.id,
                        f"column {name} is missing",
                        None,
                        fn.expression,
                    )
                )
    outputs: dict[Id, OutputExpression] = {}
    for _, rule in suite.iter_rules():
        if rule.output is not None:
            outputs.setdefault(rule.output.id, rule.output)
        findings += _doc_findings(rule.expression, "rule", rule.id, None)
        items += _check_item("rule", rule.id, rule.expression, lib, paths, findings, policy)
    for out in outputs.values():
        findings += _doc_findings(out.expression, "output", out.id, None)
        items += _check_item("output", out.id, out.expression, lib, paths, findings, policy)
    return findings, items, lib


def _check_item(
    kind: str,
    item_id: Id,
    text: str,
    lib: LambdaLibrary,
    paths: dict[str, bool] | None,
    findings: list[Finding],
    policy: RulePolicy,
) -> list[Item]:
    params: set[str] = set()
    ctx = PassContext(item_id, kind, text, lib, policy=policy)
    try:
        tree = checked_tree(text, ctx, item_id=item_id, kind=kind)
    except QualityError as err:
        if kind != "output":
            findings.append(finding_of(err, kind, item_id, text))
            return []
        try:  # a folder output: ``x -> ...``, whose body the policy checks too
            parsed = parse_lambda(LambdaFunction("output", text, item_id))
            enforce(parsed.body, policy, ctx)
        except QualityError as err2:
            findings.append(finding_of(err2, kind, item_id, text))
            return []
        tree, params = parsed.body, {p.lower() for p in parsed.params}
    is_folder = bool(params) or (
        isinstance(tree, exp.Anonymous) and str(tree.this).lower() == "set"
    )
    if paths is not None:
        if is_folder and not params:
            params = {"currentresult"}
        for name in unknown_names(tree, paths, params):
            findings.append(
                Finding("NameError", kind, item_id, f"column {name} is missing", None, text)
            )
    if is_folder:
        return [Item(kind, item_id, text, None)]
    try:  # the tree is already limit- and policy-checked: only the passes remain
        compiled = run_passes(tree, ctx)
    except QualityError as err:
        findings.append(finding_of(err, kind, item_id, text))
        return []
    return [Item(kind, item_id, text, to_sql(compiled))]


def schema_paths(schema: Any) -> dict[str, bool]:
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
