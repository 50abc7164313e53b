"""The OpenLineage client is an optional extra (``quality_py[lineage]``): without it, importing
quality_py and configuring lineage work, and asking a run for events is refused in one
paragraph naming the extra. Run with the client hidden from this process (and, on the
Connect-only leg, where it is not installed at all)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging  # what is installed decides its outcome

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = """
import sys
sys.modules["openlineage"] = None  # as if the extra were not installed
from quality_py import OpenLineage
from quality_py.errors import ModelError
from quality_py.lineage.openlineage import lineage_installed
assert lineage_installed() is False
setting = OpenLineage(namespace="sales")
try:
    setting.emitter()
except ModelError as err:
    print(err.code, err.message)
"""


def test_without_the_client_a_run_asking_for_lineage_is_refused_naming_the_extra() -> None:
    done = subprocess.run([sys.executable, "-c", HIDDEN], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("LINEAGE OpenLineage events were asked for, but the OpenLineage")
    assert "pip install 'quality_py[lineage]'" in done.stdout
