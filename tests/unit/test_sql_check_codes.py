"""SQL checks are refused with the codes rules get (issue 25, item 4): the same text, refused as
a rule and as a SQL check, carries one code and the check's name."""

from __future__ import annotations

import pytest

from quality_py.actions.sql_checks import SqlCheck, compile_check
from quality_py.errors import CheckDefinitionError, QualityError
from quality_py.model.policy import DEFAULT_POLICY
from quality_py.sql.compiler import compile_expression

SAME_PROBLEM = [
    ("(" * 60 + "1" + ")" * 60 + " > 0", "POLICY", "nested 60 brackets deep; the limit is 32"),
    ("count(*) >", "RULE_SYNTAX", None),
    ("reflect('java.lang.System', 'exit', 1) = 1", "POLICY", "never allowed"),
    ("a >> 1 > 0", "POLICY", "bit operator"),
]


@pytest.mark.parametrize(("text", "code", "words"), SAME_PROBLEM)
def test_a_check_and_a_rule_share_the_code(text: str, code: str, words: str | None) -> None:
    with pytest.raises(QualityError) as as_rule:
        compile_expression(text.replace("count(*)", "a"), policy=DEFAULT_POLICY)
    with pytest.raises(CheckDefinitionError) as as_check:
        compile_check(SqlCheck("deep", text), DEFAULT_POLICY)
    assert as_rule.value.code == as_check.value.code == code
    assert "SQL check 'deep'" in str(as_check.value)
    if words is not None:
        assert words in as_rule.value.message and words in as_check.value.message


def test_what_only_a_check_can_get_wrong_keeps_its_own_code() -> None:
    with pytest.raises(CheckDefinitionError) as err:
        compile_check(SqlCheck("peek", "SELECT count(*) FROM secret"), DEFAULT_POLICY)
    assert err.value.code == "CHECK_DEFINITION" and "reads secret" in err.value.message
