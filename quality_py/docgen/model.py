"""What the generated documentation shows, gathered once for Markdown and HTML alike."""

from __future__ import annotations

from dataclasses import dataclass, field

from quality_py.docgen.checks import SiteLinks
from quality_py.errors import QualityError
from quality_py.model.ids import INT_MAX, Id
from quality_py.model.rules import LambdaFunction, OutputExpression, RuleSuite
from quality_py.sql.doc_comments import Docs, parse_docs, strip_docs
from quality_py.sql.library import lookup
from quality_py.sql.names import functions_called
from quality_py.sql.parse import parse_expression, parse_lambda
from quality_py.validation.report import Finding, ValidationReport


@dataclass
class Entry:
    """A documented rule, output expression or lambda."""

    kind: str  # "rule", "output", "lambda"
    id: Id
    title: str
    sql: str
    docs: Docs
    owner: str | None = None
    tags: tuple[str, ...] = ()
    lambdas_used: list[str] = field(default_factory=list)
    library_used: list[str] = field(default_factory=list)
    spark_used: list[str] = field(default_factory=list)
    output: tuple[Id, int] | None = None  # (output id, salience)
    called_by: list[tuple[str, Id]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: a rule's action in a quality run (``ignore``, ``drop`` or ``fail``)
    action: str | None = None
    #: the address of the rule's page in the report site, when known
    page: str | None = None

    @property
    def anchor(self) -> str:
        """A stable HTML anchor: ``rule-100-1``."""
        return f"{self.kind}-{self.id.id}-{self.id.version}"


def _functions(text: str, lambda_names: set[str]) -> tuple[list[str], list[str], list[str]]:
    try:
        tree = parse_expression(strip_docs(text) or text)
    except QualityError:
        try:
            tree = parse_lambda(LambdaFunction("doc", text, Id(0, 0))).body
        except QualityError:
            return [], [], []
    lambdas, library, spark = [], [], []
    for name in functions_called(tree):
        if name.lower() in lambda_names:
            lambdas.append(name)
        elif lookup(name) is not None:
            library.append(name)
        else:
            spark.append(name.lower())
    return sorted(set(lambdas)), sorted(set(library)), sorted(set(spark))


def gather(
    suite: RuleSuite, report: ValidationReport | None = None, links: SiteLinks | None = None
) -> dict[str, list[Entry]]:
    """Entries per section ("rules" grouped in order, "outputs", "lambdas"); ``links``: where
    the report site of the suite's runs is (each rule links to its page)."""
    names = {fn.name.lower() for fn in suite.lambdas}
    by_item: dict[tuple[str, Id], list[Finding]] = {}
    for f in (*report.findings, *report.notes) if report else ():
        if f.item_id is not None:
            by_item.setdefault((f.item_kind, f.item_id), []).append(f)

    def entry(
        kind: str,
        ident: Id,
        title: str,
        text: str,
        owner: str | None = None,
        tags: tuple[str, ...] = (),
    ) -> Entry:
        lam, lib, spark = _functions(text, names)
        return Entry(
            kind,
            ident,
            title,
            strip_docs(text) or text,
            parse_docs(text) or Docs(),
            lambdas_used=lam,
            library_used=lib,
            spark_used=spark,
            findings=by_item.get((kind, ident), []),
            owner=owner,
            tags=tags,
        )

    rules: list[Entry] = []
    outputs: dict[Id, Entry] = {}
    for rule_set, rule in suite.iter_rules():
        e = entry(
            "rule",
            rule.id,
            f"Rule {rule.id.id} v{rule.id.version} (rule set "
            f"{rule_set.id.id} v{rule_set.id.version})",
            rule.expression,
            owner=rule.owner,
            tags=tuple(rule.tags),
        )
        e.action = str(rule.action_if_failed)
        e.page = links.rule(str(rule.id.id)) if links is not None else None
        if rule.description and not e.docs.description:
            e.docs = Docs(rule.description, e.docs.params, e.docs.returns)
        if rule.output is not None:
            out: OutputExpression = rule.output
            e.output = (out.id, rule.salience if rule.salience != INT_MAX else INT_MAX)
            if out.id not in outputs:
                outputs[out.id] = entry(
                    "output", out.id, f"Output {out.id.id} v{out.id.version}", out.expression
                )
            outputs[out.id].called_by.append(("rule", rule.id))
        rules.append(e)
    lambdas = [
        entry("lambda", fn.id, f"{fn.name} ({fn.id.id} v{fn.id.version})", fn.expression)
        for fn in suite.lambdas
    ]
    by_name: dict[str, list[Entry]] = {}
    for lam_entry, fn in zip(lambdas, suite.lambdas, strict=True):
        by_name.setdefault(fn.name.lower(), []).append(lam_entry)
    for user in [*rules, *outputs.values(), *lambdas]:
        for name in user.lambdas_used:
            for target in by_name.get(name.lower(), []):
                if target is not user:
                    target.called_by.append((user.kind, user.id))
    return {"rules": rules, "outputs": list(outputs.values()), "lambdas": lambdas}
