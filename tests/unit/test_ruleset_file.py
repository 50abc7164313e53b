"""One ruleset, read once (issue 25, item 1): ``load_ruleset_file`` gives every section of a
YAML ruleset from one read and one parse, equal to what each section's own reader gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from quality_py import RulesetFile, load_ruleset_file, loads_ruleset_file
from quality_py.errors import RulesetFormatError
from quality_py.io.ruleset_sections import load_anomalies, loads_error_rates, loads_sql_checks
from quality_py.io.yaml_rulesets import load_ruleset_and_checks

RULESETS = sorted(Path("rulesets").glob("*.yaml"))


def _shape(checks: tuple) -> list:  # type: ignore[type-arg]
    """Checks by what they declare (a histogram constraint holds a closure, equal only to
    itself)."""
    return [
        (c.level, c.description, [(k.description, k.analyzer, k.assertion) for k in c.constraints])
        for c in checks
    ]


@pytest.mark.parametrize("path", RULESETS, ids=[p.name for p in RULESETS])
def test_every_section_equals_its_own_reader(path: Path) -> None:
    ruleset = load_ruleset_file(path)
    suite, checks = load_ruleset_and_checks(path)
    text = path.read_text(encoding="utf-8")
    assert ruleset.suite == suite and _shape(ruleset.checks) == _shape(checks)
    assert ruleset.anomaly_checks == load_anomalies(path)
    assert ruleset.sql_checks == loads_sql_checks(text, str(path))
    assert ruleset.error_rates == loads_error_rates(text, str(path))
    assert ruleset.origin == str(path)


def test_the_file_is_read_and_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        "suite: {id: 1}\n"
        "rule_sets: [{id: 5, rules: [{id: 9, expression: 'a > 0'}]}]\n"
        "anomalies: [{metric: input_rows, strategy: relative_rate_of_change, max_decrease: 0.5}]\n"
        "sql_checks: [{name: rows, sql: count(*) > 0, on: valid}]\n"
        "error_rates: {run: 0.2}\n"
    )
    from quality_py.gate import files

    reads: list[str] = []
    composes: list[int] = []
    read_bytes, compose = files.read_bytes, yaml.compose

    def counting_read(path: Path, *args: object, **kwargs: object) -> bytes:
        reads.append(str(path))  # every outside file is read through gate/files.py
        return read_bytes(path, *args, **kwargs)  # type: ignore[arg-type]

    def counting_compose(*args: object, **kwargs: object) -> object:
        composes.append(1)
        return compose(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "read_bytes", counting_read)
    monkeypatch.setattr(yaml, "compose", counting_compose)
    ruleset = load_ruleset_file(path)
    assert reads == [str(path)] and len(composes) == 1
    # by hand, from the text above
    assert ruleset.suite.rule_count == 1 and len(ruleset.anomaly_checks) == 1
    assert [c.name for c in ruleset.sql_checks] == ["rows"] and ruleset.error_rates.run == 0.2


def test_a_ruleset_without_optional_sections_has_them_empty() -> None:
    ruleset = loads_ruleset_file("suite: {id: 1}")
    assert ruleset == RulesetFile(suite=ruleset.suite)
    assert (ruleset.checks, ruleset.anomaly_checks, ruleset.sql_checks) == ((), (), ())
    assert ruleset.error_rates is None


def test_errors_name_the_file_line_and_column() -> None:
    with pytest.raises(RulesetFormatError, match=r"mine\.yaml:3"):
        loads_ruleset_file("suite: {id: 1}\nrule_sets: []\nsql_checks: 5\n", "mine.yaml")


def test_rule_tables_need_a_session() -> None:
    from quality_py.errors import InputError

    with pytest.raises(InputError, match="needs a Spark session"):
        load_ruleset_file("tables/rules.csv")
