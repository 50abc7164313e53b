"""What the generated documentation shows, gathered once for Markdown and HTML alike."""

from __future__ import annotations

from dataclasses import dataclass, field

from quality_py.docgen.checks import SiteLinks
from quality_py.errors import QualityError
from quality_py.model.ids import INT_MAX, Id
from quality_py.model.rules import LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.model.tolerance import parse_tolerance
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
    #: a rule's filter: rows where it is not true are not checked by the rule
    filter: str | None = None
    #: False for a switched-off rule (``active: false``): it checks no row
    active: bool = True
    #: when the rule's failing rows warn or fail the run, in words (``warn_if``, ``fail_if``)
    tolerance: str | None = None

    @property
    def anchor(self) -> str:
        """A stable HTML anchor: ``rule-100-1``."""
        return f"{self.kind}-{self.id.id}-{self.id.version}"


def tolerance_words(rule: Rule) -> str | None:
    """When the rule's failing rows warn or fail the run, in words (None: the defaults).

    >>> tolerance_words(Rule(Id(1, 1), "a > 0", warn_if="> 0.5 %", fail_if=">= 1000"))
    'the run warns past more than 0.5 % of the rows and fails past at least 1000 failing rows'
    """
    parts = [
        f"{verb} past {parse_tolerance(text).describe()}"
        for verb, text in (("warns", rule.warn_if), ("fails", rule.fail_if))
        if text is not None
    ]
    return f"the run {' and '.join(parts)}" if parts else None


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


def rule_title(rule_set: RuleSet, rule: Rule) -> str:
    """A rule's heading: its name first when it has one, then its id and its rule set.

    >>> rs = RuleSet(Id(5, 1), [], name="basics")
    >>> rule_title(rs, Rule(Id(9, 1), "a > 0", name="positive_a"))
    'positive_a (rule 9 v1, rule set basics)'
    >>> rule_title(RuleSet(Id(5, 1), []), Rule(Id(9, 1), "a > 0"))
    'Rule 9 v1 (rule set 5 v1)'
    """
    within = rule_set.name or f"{rule_set.id.id} v{rule_set.id.version}"
    ids = f"{rule.id.id} v{rule.id.version}"
    return (
        f"{rule.name} (rule {ids}, rule set {within})"
        if rule.name
        else f"Rule {ids} (rule set {within})"
    )


def suite_title(suite: RuleSuite) -> str:
    """The page's title: ``Rule suite orders (7 v2)``, or ``Rule suite 7 v2`` without a name."""
    ids = f"{suite.id.id} v{suite.id.version}"
    return f"Rule suite {suite.name} ({ids})" if suite.name else f"Rule suite {ids}"


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
            rule_title(rule_set, rule),
            rule.expression,
            rule.owner,
            tuple(rule.tags),
        )
        e.action = str(rule.action_if_failed)
        e.filter, e.active = rule.filter, rule.active
        e.tolerance = tolerance_words(rule)
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
