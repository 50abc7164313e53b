"""The published JSON Schema of rulesets: it is the generated one, it is a valid draft 2020-12
schema, and an independent validator (jsonschema) agrees with our reader on shipped rulesets,
generated ones and broken ones. Plus "did you mean" on keys, constraints and functions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings

from quality_py.errors import PolicyError, RulesetFormatError
from quality_py.io.schema import SCHEMA_FILE, ruleset_schema, schema_text
from quality_py.io.yaml_rulesets import dumps_ruleset, loads_ruleset, loads_ruleset_and_checks
from quality_py.sql.compiler import compile_suite
from tests.unit.test_yaml_rulesets import suites

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(ruleset_schema())


def as_json(text: str) -> Any:
    """YAML 1.1 reads a key ``on`` as true; the reader takes it back as ``on``, so do we."""

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            return {("on" if k is True else k): fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    return fix(yaml.safe_load(text))


def test_the_published_file_is_the_generated_schema() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "regenerate: python -c 'from quality_py.io.schema import *; "
        "SCHEMA_FILE.write_text(schema_text())'"
    )
    jsonschema.Draft202012Validator.check_schema(ruleset_schema())


@pytest.mark.parametrize("path", sorted((ROOT / "rulesets").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_ruleset_is_valid_under_the_schema(path: Path) -> None:
    errors = list(VALIDATOR.iter_errors(as_json(path.read_text(encoding="utf-8"))))
    assert errors == [], [e.message for e in errors]


@settings(max_examples=60, deadline=None)
@given(suites())
def test_every_dumped_suite_is_valid_under_the_schema(suite: Any) -> None:
    errors = list(VALIDATOR.iter_errors(as_json(dumps_ruleset(suite))))
    assert errors == [], [e.message for e in errors]


BASE = """\
suite: {name: s}
rule_sets:
  - name: set
    rules:
      - {name: r, expression: "a > 0", action_if_failed: drop}
checks:
  - level: error
    constraints:
      - has_completeness: {column: a, assertion: ">= 0.5"}
"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("expression:", "expresion:"),  # unknown key
        ("action_if_failed: drop", "action_if_failed: delete"),  # not an action
        ('expression: "a > 0", ', ""),  # no expression
        ("{name: r,", "{"),  # neither id nor name
        ("has_completeness:", "has_completness:"),  # unknown constraint
        ("column: a,", "colum: a,"),  # unknown argument name
        ("level: error", "level: fatal"),
        ("suite: {name: s}", "suite: {name: 's t'}"),  # not a name
        ("rule_sets:", "rulesets:"),  # unknown section
    ],
)
def test_the_reader_and_the_schema_both_refuse_a_broken_ruleset(old: str, new: str) -> None:
    assert old in BASE
    text = BASE.replace(old, new)
    assert list(VALIDATOR.iter_errors(as_json(text))), "the schema accepts it"
    with pytest.raises(RulesetFormatError):
        loads_ruleset_and_checks(text, "broken.yaml")
    assert not list(VALIDATOR.iter_errors(as_json(BASE)))
    loads_ruleset_and_checks(BASE)


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        ("expression:", "expresion:", "did you mean 'expression'?"),
        ("action_if_failed:", "action_if_faild:", "did you mean 'action_if_failed'?"),
        ("has_completeness:", "has_completness:", "did you mean 'has_completeness'?"),
        ("rule_sets:", "rule_set:", "did you mean 'rule_sets'?"),
        ("level: error", "levle: error", "did you mean 'level'?"),
    ],
)
def test_unknown_keys_say_what_was_meant(old: str, new: str, hint: str) -> None:
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset_and_checks(BASE.replace(old, new), "typo.yaml")
    assert hint in err.value.message and err.value.message.startswith("typo.yaml:")


def test_unknown_functions_say_what_was_meant() -> None:
    suite = loads_ruleset(BASE.replace("a > 0", "lenght(a) > 0"))
    with pytest.raises(PolicyError) as err:
        compile_suite(suite)
    assert "did you mean 'length'?" in str(err.value)
    lam = BASE.replace(
        "suite: {name: s}", "suite: {name: s}\nlambdas: [{name: isBig, expression: 'x -> x > 9'}]"
    )
    with pytest.raises(PolicyError) as err:
        compile_suite(loads_ruleset(lam.replace("a > 0", "isBg(a)")))
    assert "did you mean 'isBig'?" in str(err.value)
    # a dangerous function is refused with no suggestion that leads anywhere
    with pytest.raises(PolicyError) as err:
        compile_suite(loads_ruleset(BASE.replace("a > 0", "reflect('a', 'b') IS NULL")))
    assert "did you mean" not in str(err.value)


def test_the_schema_command_of_the_docs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/writing-rules.md: `quality-py schema` prints the published file's path; the
    flights ruleset's editor comment points at that file."""
    import re

    from quality_py.cli import main

    doc = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
    lines = [b.strip() for b in re.findall(r"```bash\n(.*?)```", doc, re.DOTALL)]
    assert "quality-py schema" in lines
    assert main(["schema"]) == 0
    assert Path(capsys.readouterr().out.strip()) == SCHEMA_FILE
    assert main(["schema", "--print"]) == 0
    assert capsys.readouterr().out == SCHEMA_FILE.read_text(encoding="utf-8") + "\n"
    first = (ROOT / "rulesets" / "flights.yaml").read_text(encoding="utf-8").splitlines()[0]
    target = first.split("$schema=", 1)[1]
    assert (ROOT / "rulesets" / target).resolve() == SCHEMA_FILE.resolve()
