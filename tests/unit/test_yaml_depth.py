"""YAML nested deeper than rulesets need is refused quickly with file and position, in block
and flow style, at any depth (issue 24, mechanism 8); every YAML reader shares the scan."""

from __future__ import annotations

import tracemalloc

import pytest

from quality_py.errors import RulesetFormatError
from quality_py.io.yaml_rulesets import loads_ruleset


@pytest.mark.parametrize("depth", [65, 1_000, 20_000, 200_000])
@pytest.mark.parametrize("style", ["flow", "block"])
def test_deep_yaml_is_refused_quickly(depth: int, style: str) -> None:
    if style == "flow":
        text = "suite: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "suite:\n" + "".join(" " * i + "- \n" for i in range(1, min(depth, 3000))) + "\n"
        if depth > 3000:
            text = "suite:\n" + "- " * depth + "x\n"
    # bounded by the work it may do, not by wall time (a busy machine is no slower in bytes):
    # the refusal holds the text and a bounded scan, never a tree of the nesting. A shallow
    # ruleset read first loads what any read loads (modules, caches: about 1 MB, more on older
    # Pythons), so the peak below is the refusal's own.
    loads_ruleset("suite: {id: 1, version: 1}\n", "warm.yaml")
    tracemalloc.start()
    try:
        with pytest.raises(RulesetFormatError) as err:
            loads_ruleset(text, "deep.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(text) + 2_000_000
    assert "deep.yaml" in str(err.value) and "deeper than 64" in str(err.value)


def test_ordinary_nesting_passes() -> None:
    text = "suite: {id: 1, version: 1}\nrule_sets:\n  - id: 2\n    rules:\n      - {id: 3, expression: 'a > 0', tags: [x]}\n"
    assert loads_ruleset(text).rule_count == 1
