#!/usr/bin/env bash
# The Connect-only tier, on the newest Python: a venv holding the Spark Connect client package
# (pyspark-client) and no JVM Spark, as on serverless and shared compute. It runs the unit files
# that depend on what is installed, then the Connect tests against a real server that the tests start on loopback from the classic
# package of .venv (its own sbin/start-connect-server.sh) and stop at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
newest() {  # the newest CPython 3.x here: on PATH, or installed beside this one by pyenv
  local v candidate
  for v in 3.14 3.13 3.12; do
    for candidate in "python$v" "$HOME"/.pyenv/versions/"$v"*/bin/"python$v"; do
      if "$candidate" -c "import venv" >/dev/null 2>&1; then
        echo "$candidate"
        return 0
      fi
    done
  done
  echo "no Python 3.12 or newer found for the Connect-only tier" >&2
  return 1
}
venv=.venv-client
if [ ! -x "$venv/bin/python" ]; then
  "$(newest)" -m venv "$venv"
fi
stamp=$venv/.installed
want=$(cat pyproject.toml "$0" | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e ".[client,lineage]" pytest pytest-timeout hypothesis numpy jsonschema
  echo "$want" > "$stamp"
fi
[ "${1:-}" = "--prepare" ] && exit 0  # the venv alone (test.sh prepares it early)
"$venv/bin/python" - <<'PY'
import importlib.metadata as m, importlib.util, sys
assert importlib.util.find_spec("py4j") is None, "the Connect-only venv holds a JVM PySpark"
print(f"Python {sys.version.split()[0]}, pyspark-client {m.version('pyspark-client')}, no JVM PySpark")
PY
QP_SPARK_HOME=$(.venv/bin/python -c "import os, pyspark; print(os.path.dirname(pyspark.__file__))")
export QP_SPARK_HOME
# the unit files whose outcome depends on what is installed (marked `packaging`; the rest of the
# unit tier depends on the Python version alone, which the 3.10 leg covers), then Connect
"$venv/bin/python" -m pytest tests/unit -q -p no:cacheprovider -m "packaging and not slow" \
  --hypothesis-profile=ci --durations=0 --durations-min=0
"$venv/bin/python" -m pytest tests/connect -q -p no:cacheprovider --durations=0 --durations-min=0
