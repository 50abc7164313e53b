#!/usr/bin/env bash
# The whole test suite: lint + types, unit tier (no JVM), Spark tier with doctests, Spark Connect.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
py=.venv/bin/python
echo "== ruff"; $py -m ruff check . && $py -m ruff format --check .
echo "== mypy"; $py -m mypy
echo "== unit (no JVM)"; $py -m pytest tests/unit -q -p no:cacheprovider -m "not slow and not long" --hypothesis-profile=ci
echo "== crash and fuzz (no JVM)"; $py -m pytest tests/unit -q -p no:cacheprovider -m "long" --hypothesis-profile=ci
echo "== spark + doctests"; $py -m pytest tests/spark quality_py --doctest-modules -q -p no:cacheprovider -m "not slow" --hypothesis-profile=ci
echo "== spark connect"; $py -m pytest tests/connect -q -p no:cacheprovider
echo "== spark tier on pyspark 3.5"; bash scripts/test-spark35.sh
