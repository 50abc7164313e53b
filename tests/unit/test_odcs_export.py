"""A ruleset written as an ODCS contract reads back as the same ruleset (every ruleset of
rulesets/ and one holding each kind of item), and the contract is one the standard's own model
(open-data-contract-standard, the ``odcs`` extra) accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py.io.imports import import_text
from quality_py.io.odcs_export import export_odcs
from quality_py.io.ruleset_file import loads_ruleset_file

ROOT = Path(__file__).resolve().parents[2]
VIEWS = ("airlines", "airports", "planes")
EACH_KIND = """
suite: {id: 7, version: 3, name: orders, description: every kind of item}
lambdas:
  - {name: positive, id: 900, version: 1, expression: "x -> x > 0"}
rule_sets:
  - id: 10
    version: 1
    name: values
    rules:
      - {id: 100, version: 1, name: amount_positive, expression: "positive(amount)",
         action_if_failed: drop, tags: [money]}
      - {id: 101, version: 1, name: limited, expression: "amount < ${LIMIT}", fail_if: "> 3"}
      - {id: 102, version: 1, name: soft, expression: "probability(1000)"}
  - id: 11
    version: 2
    rules:
      - {id: 110, version: 1, name: known_status, expression: "status IN ('a', 'b')"}
checks:
  - level: error
    description: whole
    constraints:
      - has_size: ">= 2"
      - is_complete: status
  - level: warning
    description: shape
    constraints:
      - has_mean: [amount, between 0 and 100]
sql_checks:
  - {name: some_rows, sql: "count(*) > 0"}
  - {name: total, sql: "SELECT sum(amount) FROM source", assertion: "between 0 and 1000",
     level: warning}
  - {name: kept, sql: "count(*) >= 0", "on": valid}
"""


def _same(a: Any, b: Any) -> None:
    assert a.suite == b.suite
    assert [(c.level, c.description, [(k.description, k.analyzer, k.assertion)
                                      for k in c.constraints]) for c in a.checks] == [
        (c.level, c.description, [(k.description, k.analyzer, k.assertion)
                                  for k in c.constraints]) for c in b.checks]  # fmt: skip
    assert (a.sql_checks, a.error_rates, a.anomaly_checks) == (
        b.sql_checks, b.error_rates, b.anomaly_checks)  # fmt: skip


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "rulesets").glob("*.yaml")))
def test_every_ruleset_reads_back_from_its_contract(name: str) -> None:
    text = (ROOT / "rulesets" / name).read_text()
    contract, _ = export_odcs(text, name, VIEWS)
    back = import_text(contract, "odcs", f"{name}.odcs.yaml")
    assert back.unmapped == ()
    _same(loads_ruleset_file(text, name), loads_ruleset_file(back.text, "back"))


def test_each_kind_of_item_reads_back_and_what_has_no_odcs_form_is_listed() -> None:
    contract, left = export_odcs(EACH_KIND, "orders.yaml", variables={"LIMIT": "50"})
    assert left == [
        "soft: its value is a code or a probability, not true or false",
        "has_mean_1: the dataset check has_mean has no ODCS form",
        "kept: a SQL check on the valid rows, which a contract has not",
    ]
    assert "amount < 50" in contract  # the query filled in; the item kept as written
    back = import_text(contract, "odcs", "orders.odcs.yaml").text
    variables = {"LIMIT": "50"}
    _same(loads_ruleset_file(EACH_KIND, "a", variables), loads_ruleset_file(back, "b", variables))
    assert "${LIMIT}" in back


def test_an_entry_added_to_the_contract_is_read_too() -> None:
    contract, _ = export_odcs(EACH_KIND, "orders.yaml", variables={"LIMIT": "50"})
    contract = contract.replace(
        "  quality:\n", "  quality:\n  - {metric: rowCount, mustBe: 3}\n", 1
    )
    back = loads_ruleset_file(import_text(contract, "odcs", "c.yaml").text, "b", {"LIMIT": "5"})
    assert [c.name for c in back.sql_checks] == ["some_rows", "total", "kept", "object_rowCount"]


def test_the_contract_is_one_the_standards_model_accepts() -> None:
    model = pytest.importorskip("open_data_contract_standard.model")
    import yaml

    for text, variables in [(EACH_KIND, {"LIMIT": "50"}),
                            *[((ROOT / "rulesets" / n).read_text(), None)
                              for n in ("flights.yaml", "flights_daily.yaml")]]:  # fmt: skip
        contract, _ = export_odcs(text, "r.yaml", VIEWS, variables)
        parsed = model.OpenDataContractStandard.model_validate(yaml.safe_load(contract))
        assert parsed.apiVersion == "v3.0.2" and parsed.schema_
        assert all(q.type in ("sql", "text") or q.metric for q in parsed.schema_[0].quality)
