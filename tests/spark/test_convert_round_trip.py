"""``convert`` keeps every key of the ruleset format, or refuses (cli_tables.convert_command).

A property test generates rulesets using every key of the format, with text that CSV and YAML
find hard (quotes, line breaks, commas, non-ASCII letters), and converts them: to YAML (every
key and every section comes back equal), and to CSV and to parquet rule tables and back (the
suite comes back equal but for what tables do not hold, which ``--rules-only`` leaves behind and
lists, and which without it is refused). The expected value is the generated ruleset itself.
Rule tables keep no order: rule sets, rules, lambdas and meta rule sets come back sorted by id.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.cli import main
from quality_py.io.yaml_rulesets import dumps_ruleset, load_ruleset
from quality_py.model.rules import MetaRuleSet

pytestmark = pytest.mark.wiring  # conversions through the command line

#: Text a CSV or YAML writer must escape: quotes of both kinds, line breaks, separators.
_HARD = st.text(
    alphabet=st.sampled_from(list("ab 'x\",;:#-\n\té€{}[]&*!|>%@`")), min_size=1, max_size=12
).filter(lambda t: t.strip() == t and t.strip())
_DESCRIPTION = st.one_of(st.none(), _HARD)
_LITERAL = _HARD.map(lambda t: "'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'")


@st.composite
def rulesets(draw: st.DrawFn) -> tuple[RuleSuite, dict[str, Any]]:
    ids = iter(draw(st.permutations(range(100, 160))))
    outputs = [
        OutputExpression(Id(next(ids), draw(st.integers(1, 3))), f"concat('o', {lit})", desc)
        for lit, desc in draw(st.lists(st.tuples(_LITERAL, _DESCRIPTION), max_size=2))
    ]
    rule_sets = []
    for _ in range(draw(st.integers(1, 2))):
        rules = []
        for _ in range(draw(st.integers(1, 3))):
            literal = draw(_LITERAL)
            rules.append(
                Rule(
                    Id(next(ids), draw(st.integers(1, 4))),
                    f"s <> {literal}\n  AND a > {draw(st.integers(-5, 5))}",
                    salience=draw(st.sampled_from([2147483647, 1, 7])),
                    output=draw(st.one_of(st.none(), st.sampled_from(outputs)))
                    if outputs
                    else None,
                    description=draw(_DESCRIPTION),
                    owner=draw(st.one_of(st.none(), _HARD)),
                    tags=tuple(
                        draw(
                            st.lists(
                                st.sampled_from(["pii", "money", "a b"]), max_size=2, unique=True
                            )
                        )
                    ),
                    action_if_failed=(action := draw(st.sampled_from(["ignore", "drop", "fail"]))),
                    fail_if=(fail_if := draw(st.sampled_from([None, ">= 1000", "> 2.5 %"]))),
                    # a fail rule without fail_if takes no warn_if
                    warn_if=None
                    if action == "fail" and fail_if is None
                    else draw(st.sampled_from([None, "> 0.5 %", "> 10"])),
                    report_columns=draw(st.sampled_from([(), ("s",), ("a", "s")])),
                )
            )
        rule_sets.append(RuleSet(Id(next(ids), draw(st.integers(1, 2))), rules, draw(_DESCRIPTION)))
    lambdas = [
        LambdaFunction(f"fn{i}", f"x -> x <> {lit}", Id(next(ids), 1), desc)
        for i, (lit, desc) in enumerate(
            draw(st.lists(st.tuples(_LITERAL, _DESCRIPTION), max_size=2))
        )
    ]
    metas = [
        MetaRuleSet(Id(next(ids), 1), "datatype = 'STRING'", f"x -> x <> {lit}", desc)
        for lit, desc in draw(st.lists(st.tuples(_LITERAL, _DESCRIPTION), max_size=1))
    ]
    suite = RuleSuite(
        Id(draw(st.integers(1, 9)), draw(st.integers(1, 9))),
        rule_sets,
        lambdas=lambdas,
        probable_pass=draw(st.sampled_from([0.8, 0.5])),
        description=draw(_DESCRIPTION),
        meta_rule_sets=metas,
    )
    sections: dict[str, Any] = {}
    if draw(st.booleans()):
        sections["checks"] = [
            {"level": "warning", "description": draw(_HARD), "constraints": [{"has_size": ">= 1"}]},
        ]
    if draw(st.booleans()):
        sections["anomalies"] = [
            {"name": draw(_HARD), "metric": "input_rows", "strategy": "relative_rate_of_change",
             "max_decrease": 0.7},
        ]  # fmt: skip
    if draw(st.booleans()):
        sections["sql_checks"] = [{"name": draw(_HARD), "sql": "count(*) > 0", "on": "valid"}]
    if draw(st.booleans()):
        sections["error_rates"] = {"run": 0.1, "rules": {rule_sets[0].rules[0].id.id: 0.02}}
    return suite, sections


def _tabled(suite: RuleSuite) -> RuleSuite:
    """What rule tables hold of ``suite``, in the order they give it back."""
    by_id = sorted

    return dataclasses.replace(
        suite,
        description=None,
        probable_pass=0.8,
        rule_sets=[
            dataclasses.replace(
                rs, description=None, rules=by_id(rs.rules, key=lambda r: r.id.packed)
            )
            for rs in by_id(suite.rule_sets, key=lambda rs: rs.id.packed)
        ],
        lambdas=by_id(suite.lambdas, key=lambda f: (f.id.id, f.id.version)),
        meta_rule_sets=by_id(suite.meta_rule_sets, key=lambda m: (m.id.id, m.id.version)),
    )


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(rulesets())
def test_convert_keeps_every_key_or_refuses(
    spark: Any,
    tmp_path_factory: pytest.TempPathFactory,
    generated: tuple[RuleSuite, dict[str, Any]],
) -> None:
    suite, sections = generated
    folder = tmp_path_factory.mktemp("convert")
    source = folder / "source.yaml"
    source.write_text(
        dumps_ruleset(suite)
        + (yaml.safe_dump(sections, sort_keys=False, allow_unicode=True) if sections else ""),
        encoding="utf-8",
    )
    # YAML to YAML: every key, every section
    again = folder / "again.yaml"
    assert main(["convert", str(source), str(again)]) == 0
    assert load_ruleset(again) == suite
    doc = yaml.safe_load(again.read_text(encoding="utf-8"))
    assert {k: doc[k] for k in sections} == sections
    # YAML to tables and back: CSV and parquet
    holds_more = bool(sections) or suite.description is not None or suite.probable_pass != 0.8
    holds_more = holds_more or any(rs.description is not None for rs in suite.rule_sets)
    for dest in (folder / "csv" / "rules.csv", folder / "parquet"):
        flag = ["--rules-only"] if holds_more else []
        if holds_more:
            assert main(["convert", str(source), str(dest)]) == 2
            assert not dest.exists()
        assert main(["convert", str(source), str(dest), *flag]) == 0
        back = folder / f"back_{dest.name}.yaml"
        assert main(["convert", str(dest), str(back)]) == 0
        assert load_ruleset(back) == _tabled(suite), dest


def test_ties_in_salience_pick_the_same_winner_from_yaml_and_tables(
    spark: Any, tmp_path: Path
) -> None:
    """Two triggers of salience 5 both fire; the lower (rule set id, rule id) wins whatever
    order the YAML declares them in (by hand: rule 7 before rule 9)."""
    from quality_py import rule_engine_with_struct

    yes, no = OutputExpression(Id(1, 1), "'seven'"), OutputExpression(Id(2, 1), "'nine'")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(3, 1), [Rule(Id(9, 1), "a > 0", 5, no), Rule(Id(7, 1), "a > 0", 5, yes)])],
    )
    source = tmp_path / "ties.yaml"
    source.write_text(dumps_ruleset(suite), encoding="utf-8")
    assert main(["convert", str(source), str(tmp_path / "tables")]) == 0
    assert main(["convert", str(tmp_path / "tables"), str(tmp_path / "back.yaml")]) == 0
    df = spark.createDataFrame([(1,)], "a int")
    for loaded in (suite, load_ruleset(tmp_path / "back.yaml")):
        row = rule_engine_with_struct(df, loaded, "string", "e").first()
        assert row.e.result == "seven"
