"""The names a default quarantine writes for failed rules: each one rule's, readable first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quality_py import Id
from quality_py.actions.flags import RuleRef, failed_rule_names
from quality_py.actions.quarantine_form import chosen_form, form_of

refs_strategy = st.lists(
    st.tuples(
        st.integers(1, 3),  # rule set id
        st.integers(1, 4),  # rule id
        st.integers(1, 2),  # rule version
        st.sampled_from([None, "positive", "known", "4.1"]),  # names, one that reads as an id
    ),
    min_size=1,
    max_size=12,
    unique_by=lambda t: (t[0], t[1], t[2]),  # a rule set holds a rule id.version once
)


@given(refs_strategy)
def test_every_entry_names_one_rule(picks: list[tuple[int, int, int, str | None]]) -> None:
    refs = tuple(RuleRef(Id(s, 1), Id(r, v), "drop", None, None, (), n) for s, r, v, n in picks)
    names = failed_rule_names(refs)
    assert len(set(names)) == len(names)  # one entry, one rule
    labels = [n or f"{r}.{v}" for _, r, v, n in picks]
    for label, name in zip(labels, names, strict=True):
        if labels.count(label) == 1:
            assert name == label  # a label no other rule shares is written as it is
        else:
            assert label in name  # the name (or id) is kept, its rule's ids beside it


def test_forms_by_their_column() -> None:
    assert form_of(["a", "qp_failed_rule_ids"]) == "ids"
    assert form_of(["a", "DataQuality", "qp_failed_rules"]) == "full"
    assert form_of(["a", "qp_failed_rules", "qp_failed_rule_names"]) is None  # not ours: ask
    assert chosen_form(None, ["a"], "t") == "names"  # a table of something else: the default
    assert chosen_form("full", None, "t") == "full"
