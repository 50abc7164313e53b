"""Rule text that reads differently than it runs is refused, wherever the character sits
(issue 24, mechanism 6): every character of the refused Unicode categories (controls, format
characters such as bidirectional overrides and zero-width joiners, private use, unassigned,
line and paragraph separators) and the invisible fillers, in a literal, an identifier or a
comment of a rule, a lambda, an output or a SQL check; visible letters of any script pass."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py import Id, LambdaFunction, Rule, RuleSet, RuleSuite
from quality_py.errors import CheckDefinitionError, PolicyError
from quality_py.model.policy import RulePolicy
from quality_py.sql.check_queries import checked_query
from quality_py.sql.compiler import compile_expression, compile_suite

REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
BAD = [
    chr(c)
    for c in range(0x110000)
    if (unicodedata.category(chr(c)) in REFUSED and chr(c) not in "\t\n\r")
    or chr(c) in "\u115f\u1160\u3164\uffa0\u2800"
]
PLACES = ["s = 'a{c}b'", "`co{c}l` > 0", "a > 0 /* {c} */", "a > 0 -- x{c}\n", "a{c} > 0"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(BAD), st.sampled_from(PLACES))
def test_refused_characters_anywhere_in_a_rule(ch: str, place: str) -> None:
    with pytest.raises(PolicyError) as err:
        compile_expression(place.format(c=ch))
    assert f"U+{ord(ch):04X}" in str(err.value)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(BAD))
def test_refused_in_lambdas_and_sql_checks(ch: str) -> None:
    lam = LambdaFunction("f", f"x -> x = 'a{ch}'", Id(5, 1))
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "f(s)")])], lambdas=[lam])
    with pytest.raises(PolicyError):
        compile_suite(suite)
    with pytest.raises(CheckDefinitionError, match=f"U\\+{ord(ch):04X}"):
        checked_query("c", f"count_if(s = '{ch}') = 0", "source", ("source",), RulePolicy())


@pytest.mark.parametrize(
    "text", ["s = 'Grüße, 東京, Ωμέγα, العربية'", "`prix_€` > 0", "s = 'a\tb'"]
)
def test_visible_text_of_any_script_passes(text: str) -> None:
    compile_expression(text)


def test_the_refused_set_is_large_and_covers_the_known_tricks() -> None:
    for trick in "\u202e\u2066\u2069\u200b\u200d\u00ad\ufeff\u2028\u0000\u001b\u3164":
        assert trick in BAD
    assert len(BAD) > 900_000 if sys.maxunicode > 0xFFFF else True
