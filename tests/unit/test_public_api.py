from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import quality_py

pytestmark = pytest.mark.packaging  # what is installed decides its outcome


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


def test_every_public_function_and_method_has_an_example() -> None:
    import inspect

    missing = []
    for name in quality_py.__all__:
        obj = getattr(quality_py, name)
        if inspect.isfunction(obj) and ">>>" not in (obj.__doc__ or ""):
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not inspect.isfunction(member):
                    continue
                if ">>>" not in (member.__doc__ or ""):
                    missing.append(f"{name}.{attr}")
    assert missing == []


def test_the_readme_names_are_public() -> None:
    for name in ("RulePolicy", "MetaRuleSet", "PolicyError", "load_ruleset", "validate"):
        assert name in quality_py.__all__, name


def test_curried_forms_for_every_runner() -> None:
    for name in ("data_quality", "overall_results_and_details", "rule_engine", "rule_folder"):
        assert callable(getattr(quality_py, name)), name
    assert callable(quality_py.folded_fields)


def test_pack_ints_means_the_sql_function_everywhere() -> None:
    from quality_py import functions

    assert quality_py.pack_ints is functions.pack_ints
    assert quality_py.unpack is functions.unpack
    assert quality_py.pack_id(1, 2) == 4294967298  # by hand: 1 << 32 | 2
    assert quality_py.unpack_id(4294967298) == (1, 2)


def test_the_version_is_written_once() -> None:
    from quality_py.version import __version__

    assert quality_py.__version__ == __version__
    toml = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert 'version = { attr = "quality_py.version.__version__" }' in toml
    assert "\nversion = " not in toml.split("[tool.setuptools.dynamic]")[0]
