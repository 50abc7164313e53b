"""Doc comments (contract section 7) and the generated Markdown / HTML."""

from __future__ import annotations

import pytest

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.docgen import Docs, parse_docs, to_html, to_markdown
from quality_py.validation import Finding, ValidationReport


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
