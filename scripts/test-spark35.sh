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
    pytest pytest-timeout pytest-xdist hypothesis jsonschema
  echo "$want" > "$stamp"
fi
[ "${1:-}" = "--prepare" ] && exit 0  # the venv alone (test.sh prepares it early)
export PYSPARK_PYTHON="$PWD/$venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
"$venv/bin/python" -c "import sys, pyspark; print('Python', sys.version.split()[0], 'pyspark', pyspark.__version__)"
"$venv/bin/python" -m pytest tests/unit -q -p no:cacheprovider -m "not slow and not long and not browser" \
  --hypothesis-profile=ci -n 2
# A representative subset: every version-sensitive test (functions, containment, coding, sketches,
# runners, streaming, Connect-free APIs); left out are version-independent end-to-end tests that
# the 4.x tier runs (the flights CLI job, the doc examples, the random-run property, crash tests,
# the three months of flights over time, the YAML/tables conversions through the CLI, the
# boundary checks of places and names, the job run three ways, alerts from a CLI run and the
# numbers of one run on every surface).
"$venv/bin/python" -m pytest tests/spark -q -p no:cacheprovider -m "not long" -n 2 --dist loadfile \
  --deselect tests/spark/test_cli.py::test_main_job_on_the_flights_sample \
  --deselect tests/spark/test_edit_preview.py::test_the_diff_command_on_the_flights \
  --deselect tests/spark/test_run_numbers_agree.py::test_random_runs_print_store_and_quarantine_the_same_numbers \
  --ignore tests/spark/test_doc_examples.py \
  --ignore tests/spark/test_over_time_flights.py \
  --ignore tests/spark/test_convert_round_trip.py \
  --ignore tests/spark/test_boundary.py \
  --ignore tests/spark/test_jobs.py \
  --ignore tests/spark/test_alerts_run.py \
  --ignore tests/spark/test_glossary_surfaces.py
