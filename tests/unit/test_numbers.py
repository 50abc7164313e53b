"""Numbers from outside are typed once: every numeric parameter of the classes a ruleset, a
variable or the command line sets declares its range, and non-finite or out-of-range values are
refused naming the parameter (in YAML: with the file, line and column of the value).

The classes are found, not listed: every anomaly strategy, and every numeric field of them and
of the run's thresholds. A new numeric field without a declared range fails here."""

from __future__ import annotations

import dataclasses
import re
import typing

import pytest

from quality_py.actions.judging import ErrorRates
from quality_py.cli import main
from quality_py.dataset.checks import Check, as_predicate
from quality_py.errors import ModelError, QualityError, RulesetFormatError
from quality_py.gate.numbers import KEY, number
from quality_py.history.anomalies import STRATEGIES
from quality_py.history.anomaly_checks import AnomalyCheck
from quality_py.io.ruleset_file import loads_ruleset_file

PARAMETER_CLASSES = [*STRATEGIES.values(), ErrorRates, AnomalyCheck]
BAD = [float("nan"), float("inf"), float("-inf"), "nan", "1e999", True]


def _numeric_fields(cls: type) -> list[dataclasses.Field[typing.Any]]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        text = str(hints[f.name])
        if re.search(r"\b(float|int)\b", text) and "Mapping" not in text:
            out.append(f)
    return out


def _valid(cls: type) -> dict[str, typing.Any]:
    """Arguments that build ``cls`` (the smallest that do), to change one at a time."""
    if cls is AnomalyCheck:
        return {"metric": "input_rows", "strategy": STRATEGIES["simple_thresholds"](upper=1)}
    if cls is ErrorRates:
        return {}
    if "max_increase" in {f.name for f in dataclasses.fields(cls)}:
        return {"max_increase": 1.0}
    if cls is STRATEGIES["simple_thresholds"]:
        return {"upper": 1.0}
    return {}


CASES = [(cls, f.name) for cls in PARAMETER_CLASSES for f in _numeric_fields(cls)]


def test_the_walk_finds_the_parameters() -> None:
    names = {f"{cls.__name__}.{name}" for cls, name in CASES}
    assert {"RelativeRateOfChange.max_increase", "ErrorRates.run", "AnomalyCheck.window",
            "OnlineNormal.ignore_start", "HoltWinters.periodicity"} <= names  # fmt: skip


@pytest.mark.parametrize(("cls", "name"), CASES, ids=[f"{c.__name__}.{n}" for c, n in CASES])
def test_every_numeric_parameter_declares_its_range_and_refuses_non_finite(
    cls: type, name: str
) -> None:
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    assert KEY in field.metadata, f"{cls.__name__}.{name}: declare its range with numeric()"
    for bad in BAD:
        with pytest.raises(ModelError) as caught:
            cls(**{**_valid(cls), name: bad})
        assert getattr(caught.value, "parameter", None) == name, (bad, caught.value)


def test_error_rates_per_rule_are_shares() -> None:
    for bad in (float("nan"), 2, -0.1, "x"):
        with pytest.raises(ModelError, match="rule 101's error rate"):
            ErrorRates(rules={101: bad})
    assert ErrorRates(run="0.25").run == 0.25  # text from a variable is a number


STRATEGY_YAML = """suite: {{id: 1, version: 1}}
rule_sets: []
anomalies:
  - metric: input_rows
    strategy: {strategy}
{extra}    {name}: {value}
"""


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "'${V}'", "${V}"])
@pytest.mark.parametrize(
    ("strategy", "name"),
    [(s, f.name) for s, cls in STRATEGIES.items() for f in _numeric_fields(cls)],
)
def test_yaml_and_variables_name_the_value_where_it_is_written(
    strategy: str, name: str, value: str
) -> None:
    cls = STRATEGIES[strategy]
    extra = "".join(f"    {k}: {v}\n" for k, v in _valid(cls).items() if k != name)
    text = STRATEGY_YAML.format(strategy=strategy, extra=extra, name=name, value=value)
    line = text.splitlines().index(next(ln for ln in text.splitlines() if f" {name}: " in ln)) + 1
    with pytest.raises(RulesetFormatError) as caught:
        loads_ruleset_file(text, "r.yaml", variables={"V": ".nan"})
    assert f"r.yaml:{line}:" in caught.value.message, caught.value.message
    assert name in caught.value.message


@pytest.mark.parametrize(
    "text",
    ["error_rates: {run: .nan}", "error_rates: {rules: {101: .inf}}", "error_rates: {run: 1.5}"],
)
def test_error_rates_in_yaml(text: str) -> None:
    with pytest.raises(RulesetFormatError, match=r"r\.yaml:3:\d+: error_rates"):
        loads_ruleset_file("suite: {id: 1, version: 1}\nrule_sets: []\n" + text, "r.yaml")


def test_dataset_check_numbers() -> None:
    for assertion in (">= 1e999", "between -1e999 and 1", "< -1e400"):
        with pytest.raises(ModelError, match="not a finite number"):
            as_predicate(assertion)
    with pytest.raises(ModelError, match="high must be a finite number"):
        Check("error", "t").is_in_range("a", 0, float("inf"))
    with pytest.raises(ModelError, match="histogram edge"):
        Check("error", "t").has_histogram_bins("a", [0, float("nan"), 1], "> 0")
    with pytest.raises(QualityError):
        Check("error", "t").has_approx_quantile("a", float("nan"), "> 0")


def test_command_line_counts(capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("nan", "-3", "1.5", "inf"):
        with pytest.raises(SystemExit) as caught:
            main(["diff", "a.yaml", "b.yaml", "--input", "x.csv", "--samples", value])
        assert caught.value.code == 2
        assert "--samples" in capsys.readouterr().err
    assert number("7", name="n", low=0, integer=True) == 7
