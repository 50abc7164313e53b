"""What changed between two suites, rule by rule, and how the docs show it (no JVM).
Expected lists are written by hand from the two suites."""

from __future__ import annotations

from quality_py.docgen import to_html, to_markdown
from quality_py.model import Id, Rule, RuleSet, RuleSuite
from quality_py.model.changes import suite_changes

OLD = RuleSuite(
    Id(1, 1),
    [
        RuleSet(Id(10, 1), [Rule(Id(1, 1), "a > 0"), Rule(Id(2, 1), "b > 0"), Rule(Id(3, 1), "c")]),
        RuleSet(Id(20, 1), [Rule(Id(1, 1), "d IS NOT NULL", action_if_failed="drop")]),
    ],
)
NEW = RuleSuite(
    Id(1, 2),
    [
        RuleSet(
            Id(10, 2),
            [
                Rule(Id(1, 1), "a > 0", name="a_positive"),  # a name alone is no edit
                Rule(Id(3, 2), "c", filter="kind = 'x'"),
                Rule(Id(4, 1), "e < 9"),
            ],
        ),
        RuleSet(Id(20, 1), [Rule(Id(1, 1), "d IS NOT NULL", action_if_failed="fail")]),
    ],
)


def test_rules_are_matched_by_set_and_id_number() -> None:
    got = [(c.key, c.kind) for c in suite_changes(OLD, NEW)]
    assert got == [
        ((10, 1), "same"),
        ((10, 2), "removed"),
        ((10, 3), "edited"),
        ((10, 4), "added"),
        ((20, 1), "edited"),
    ]
    by_key = {c.key: c for c in suite_changes(OLD, NEW)}
    assert by_key[(10, 3)].differences == ["filter: none -> \"kind = 'x'\"", "version: 1 -> 2"]
    assert by_key[(20, 1)].differences == ["action_if_failed: 'drop' -> 'fail'"]
    assert by_key[(10, 1)].label == "rule 'a_positive' (1)"
    assert [c.kind for c in suite_changes(NEW, NEW)] == ["same"] * 4


def test_docs_list_what_changed_since_the_previous_version() -> None:
    changes = (suite_changes(OLD, NEW), "1.1")
    md = to_markdown(NEW, changes=changes)
    section = md.split("## Changes since suite 1.1", 1)[1]
    assert "- rule 2: removed" in section and "`b > 0`" in section
    assert "- rule 4: added" in section and "`e < 9`" in section
    assert "- rule 3: edited" in section and "a_positive" not in section
    page = to_html(NEW, changes=changes)
    assert page.count('data-change="') == 4 and "Changes since suite 1.1" in page
    assert "Changes since" not in to_markdown(NEW, changes=(suite_changes(NEW, NEW), "1.2"))
