from __future__ import annotations

import subprocess
import sys

import quality_py


def test_all_names_resolve_and_are_sorted_within_groups() -> None:
    for name in quality_py.__all__:
        assert hasattr(quality_py, name), name
    assert len(set(quality_py.__all__)) == len(quality_py.__all__)


def test_importing_the_package_has_no_side_effects() -> None:
    code = (
        "import logging, sys; before = list(logging.getLogger().handlers); import quality_py; "
        "print('pyspark' in sys.modules, logging.getLogger().handlers == before, "
        "type(logging.getLogger('quality_py').handlers[0]).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "NullHandler"]


def test_public_functions_have_docstrings_with_examples() -> None:
    for name in (
        "add_data_quality",
        "rule_runner",
        "expr",
        "pack_ints",
        "unpack",
        "add_overall_results_and_details",
    ):
        doc = getattr(quality_py, name).__doc__ or ""
        assert ">>>" in doc, f"{name} has no example"
