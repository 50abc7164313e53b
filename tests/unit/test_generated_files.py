"""Generated files carry hostile names as data, never as text of their own (issue 24,
mechanism 7): a suggested ruleset whose column names and source hold line breaks (all of
YAML's: \\n, \\r, NEL, LS, PS), '#', ':' and quotes reads back as exactly the document we meant,
with no section a name could inject (the expected document is built here, not by the emitter)."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.io.yaml_rulesets import loads_ruleset_and_checks
from quality_py.profile.profiler import ColumnProfile, DatasetProfile
from quality_py.profile.suggest import Suggestion, suggested_ruleset

HOSTILE = st.lists(
    st.sampled_from([*"ab :#-'\"\\{}[]\n\r\x85\u2028\u2029\t", "sql_checks: []", "\n- x"]),
    min_size=1,
    max_size=12,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(HOSTILE, min_size=1, max_size=4, unique=True), HOSTILE)
def test_a_suggested_ruleset_reads_back_as_meant(names: list[str], source: str) -> None:
    profile = DatasetProfile(
        10,
        tuple(ColumnProfile(n, "string", 1.0, 3, minimum=None) for n in names),
        passes=1,
    )
    suggestions = [Suggestion(n, "complete", "no nulls", "is_complete", (n,), None) for n in names]
    text = suggested_ruleset(profile, suggestions, source=source)
    doc = yaml.safe_load(text)
    assert list(doc) == ["suite", "rule_sets", "checks"]
    assert doc["checks"][0]["constraints"] == [{"is_complete": [n]} for n in names]
    suite, checks = loads_ruleset_and_checks(text, "suggested.yaml")
    assert len(checks) == 1 and suite.id.id == 1
