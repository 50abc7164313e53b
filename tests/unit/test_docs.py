"""Doc comments (contract section 7) and the generated Markdown / HTML."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.docgen import Docs, parse_docs, to_html, to_markdown
from quality_py.validation import Finding, ValidationReport

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "/** My Description @param name name desc @param othername othername desc "
            "@return return val*/ ",
            Docs(
                "My Description", {"name": "name desc", "othername": "othername desc"}, "return val"
            ),
        ),
        ("\n\n  /** My Description */ var -> var + 1", Docs("My Description")),
        ("/** d @return */ x", Docs("d")),
        ("/** @param name */ x", Docs("", {"name": ""})),
        ("/** d */ @location trailing", Docs("d")),
        (
            "/** Line one\n   * - a bullet\n   *\n   * @param x the x\n   */ x -> x",
            Docs("Line one\n - a bullet", {"x": "the x"}),
        ),
    ],
)
def test_doc_comments(text: str, expected: Docs) -> None:
    assert parse_docs(text) == expected


def test_no_doc_block() -> None:
    assert parse_docs("var -> var + 1") is None


SUITE = RuleSuite(
    Id(1, 2),
    [
        RuleSet(
            Id(50, 1),
            [
                Rule(
                    Id(100, 1),
                    "/** amounts are positive */ isPositive(amount)",
                    salience=5,
                    output=OutputExpression(Id(900, 1), "upper(account)"),
                    owner="finance",
                    tags=("money",),
                ),
                Rule(Id(101, 1), "probability(0.5) > 0 AND account <> '<b>'"),
            ],
        )
    ],
    lambdas=[LambdaFunction("isPositive", "/** is it > 0 @param x value */ x -> x > 0", Id(7, 1))],
)


def test_markdown_lists_usage_links_and_findings() -> None:
    report = ValidationReport(SUITE.id, (Finding("NameError", "rule", Id(101, 1), "column nope"),))
    md = to_markdown(SUITE, report)
    assert "## Rules" in md and "## Output expressions" in md and "## Lambdas" in md
    assert "amounts are positive" in md and "Owner: finance; tags: money" in md
    assert "- Lambdas used: `isPositive`" in md
    assert "- Library functions used: `probability`" in md
    assert "- Triggers output [900 v1](#output-900-1), salience 5" in md
    assert "- Called by: [rule 100 v1](#rule-100-1)" in md  # on the lambda and the output
    assert "| x | value |" in md
    assert "Validation: **1 errors, 0 warnings**" in md and "> **NameError**: column nope" in md
    assert "/**" not in md.split("```sql")[1]  # the doc comment is not repeated in the SQL


def test_html_is_escaped_and_self_contained() -> None:
    page = to_html(SUITE)
    assert "&lt;b&gt;" in page and "<b>'" not in page
    assert 'id="rule-100-1"' in page and 'href="#output-900-1"' in page
    assert "http" not in page  # no external assets


def test_docs_show_actions_every_check_and_link_into_the_report_site(tmp_path: Path) -> None:
    """The flights ruleset: every rule's action and every check, as the YAML (read here with
    yaml) has them, and links that are the pages the report site writes."""
    import yaml

    from quality_py.docgen.checks import SiteLinks, doc_checks
    from quality_py.history import Metric, RunRecord
    from quality_py.io.ruleset_file import load_ruleset_file
    from quality_py.report import write_site
    from tests.browser import Elements

    path = ROOT / "rulesets" / "flights.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    ruleset = load_ruleset_file(path)
    checks = doc_checks(
        ruleset.checks, ruleset.sql_checks, ruleset.anomaly_checks, ruleset.error_rates
    )
    links = SiteLinks("file://" + str(tmp_path / "site"), "1", (("table", "flights"),))
    dom = Elements(to_html(ruleset.suite, None, checks, links))
    actions = [e["attrs"]["data-action"] for e in dom.find("b") if "data-action" in e["attrs"]]
    wanted = [r.get("action_if_failed", "ignore") for s in raw["rule_sets"] for r in s["rules"]]
    assert actions == wanted
    kinds = [
        e["attrs"]["data-check-kind"] for e in dom.find("tr") if "data-check-kind" in e["attrs"]
    ]
    constraints = sum(len(c["constraints"]) for c in raw["checks"])
    rates = (raw["error_rates"].get("run") is not None) + len(raw["error_rates"].get("rules", {}))
    assert kinds.count("dataset check") == constraints
    assert kinds.count("SQL check") == len(raw["sql_checks"])
    assert kinds.count("anomaly check") == len(raw["anomalies"])
    assert kinds.count("error rate") == rates
    # the rule 101 link is a page of the site written from a history of that dataset
    record = RunRecord("r", datetime(2026, 1, 1), "quality_run", "1.1", "success",
                       {"table": "flights", "month": "1"},
                       (Metric("rule", "101.1", "failed", 2.0, group="10.1"),
                        Metric("sql", "no row is lost", "value", 1.0, "passed")))  # fmt: skip
    write_site([record], tmp_path / "site", dataset_tags=["table"])
    hrefs = [e["attrs"]["href"] for e in dom.find("a") if e["attrs"]["href"].startswith("file:")]
    rule = next(h for h in hrefs if "/rules/" in h and h.endswith(".101.html"))
    sql = next(h for h in hrefs if "/checks/" in h and "no~20row" in h)
    assert Path(rule[len("file://") :]).exists() and Path(sql[len("file://") :]).exists()
    md = to_markdown(ruleset.suite, None, checks, links)
    assert "Action if failed: **drop**" in md and "## Checks" in md
