#!/usr/bin/env bash
# The oldest we support, in its own venv: Python 3.10 with pyspark 3.5. The unit tier, then the
# Spark tier.
set -euo pipefail
cd "$(dirname "$0")/.."
oldest() {  # Python 3.10: on PATH, or installed beside this one by pyenv
  local candidate
  for candidate in python3.10 "$HOME"/.pyenv/versions/3.10*/bin/python3.10; do
    if "$candidate" -c "import venv" >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
  echo "no Python 3.10 found for the oldest tier" >&2
  return 1
}
venv=.venv-spark35
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null; then
  rm -rf "$venv"
  "$(oldest)" -m venv "$venv"
fi
stamp=$venv/.installed
want=$(cat pyproject.toml "$0" | sha256sum | cut -d' ' -f1)  # reinstall when either changes
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  # pyspark 3.5 needs numpy<2, and the newest pyarrow wheels need numpy 2 (pyarrow.fs: state store)
  "$venv/bin/python" -m pip install --quiet "pyspark>=3.5,<3.6" "numpy<2" "pyarrow<20" -e ".[sample]" \
    pytest pytest-timeout pytest-xdist hypothesis jsonschema "deltalake>=1.0,<2"
  echo "$want" > "$stamp"
fi
[ "${1:-}" = "--prepare" ] && exit 0  # the venv alone (test.sh prepares it early)
export PYSPARK_PYTHON="$PWD/$venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
"$venv/bin/python" -c "import sys, pyspark; print('Python', sys.version.split()[0], 'pyspark', pyspark.__version__)"
"$venv/bin/python" -m pytest tests/unit -q -p no:cacheprovider -m "not slow and not long and not browser" \
  --hypothesis-profile=ci -n 2 --durations=0 --durations-min=0
# The Spark files whose expected values depend on what Spark computes or refuses (marked
# `semantics`, tests/unit/test_test_matrix.py keeps every file marked); the `wiring` files (the
# command line, outputs, history, report, jobs) run on the newest Spark alone.
"$venv/bin/python" -m pytest tests/spark -q -p no:cacheprovider -m "semantics and not long and not slow" \
  -n 2 --dist loadfile --max-worker-restart=0 --durations=0 --durations-min=0
