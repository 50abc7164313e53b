#!/usr/bin/env bash
# The whole test suite: lint + types, unit tier (no JVM), Spark tier with doctests, the flights
# job and the spark-submit recipe on a standalone cluster (a master and two workers), the
# Connect-only tier (pyspark-client, newest Python, a Connect server started by the tests), the
# unit and Spark tiers on Python 3.10 with pyspark 3.5; headless Chromium (installed where
# missing) loads the HTML report.
# Each step prints its duration against its budget (the seconds it took on these 2-core
# machines, measured 2026-11-29 with the one-minute load at 3-4 from the tests themselves):
# 1472-1832 s in all on fresh clones (1648, 1723 and 1756 s, the last two with 70 s more of
# Spark tests for growing tables; 1535 s with the tests of issue 56, a quieter machine; 2119-2160 s
# before the flights were read from parquet and the cluster ran the quick JIT tier), still over
# the 12-minute goal of issue 54; the Spark tier (726-840 s) and the pyspark 3.5 leg (459-603 s)
# are most of it. The same tree's runs differ by up to a fifth on this machine. 2026-11-30: the
# Spark step 1235 s with the declarative-pipeline tests (two spark-pipelines processes, about
# 45 s of the step's wall time: its budget 850 -> 900 s), the pyspark 3.5 leg 119 s of unit and
# 618 s of Spark tests (the same 492 tests as the day before, on a slower machine). The budgets
# were then raised to those quiet measurements (Spark 900 -> 1250 s, the 3.5 leg 560 -> 750 s,
# unit 100 -> 115 s): a budget states what a step costs, so that a new cost shows; issue 54's
# twelve minutes are still to be won back. The fresh-clone run of the lineage and release tests:
# 2236 s (unit 110, crash/fuzz/release 98, Spark 1039, cluster + client 182, the 3.5 leg 659).
# With the importers' documentation examples: 2789 and 2912 s (Spark 1312-1368 s, the 3.5 leg
# 857-916 s); with the tests' frames through Arrow (tests/frames.py): 2656 s (unit 132, Spark
# 1323 s with 841 tests, cluster + client 243, the 3.5 leg 696 s): budgets Spark 1250 -> 1300 s,
# the 3.5 leg 750 -> 700 s.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
# Each step states its budget in seconds (measured on these 2-core machines at a quiet load); a
# step that takes more than half again its budget fails, naming itself, so a slow test or a
# new cost cannot creep in unseen. QP_BUDGETS=off skips the check on a machine busy with
# other work. Every test's time is printed (--durations=0).
over_budget=()
step() {
  local name=$1 budget=$2 t0=$SECONDS
  shift 2
  echo "== $name (budget $budget s)"
  "$@"
  local took=$((SECONDS - t0))
  echo "   [$name: $took s of $budget s]"
  if [ "${QP_BUDGETS:-on}" != off ] && [ $((took * 2)) -gt $((budget * 3)) ]; then
    over_budget+=("$name: $took s, more than half again its budget of $budget s")
  fi
}
durations=(--durations=0 --durations-min=0)
step "bootstrap" 300 bash scripts/bootstrap.sh
# headless Chromium for the report tests, from the system packages where missing
browser() {
  command -v chromium >/dev/null 2>&1 && return 0
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get install -y -q chromium >/dev/null 2>&1 ||
    { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q chromium >/dev/null; }
}
step "chromium" 240 browser
export PYSPARK_PYTHON="$PWD/.venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
py=.venv/bin/python
step "ruff" 30 bash -c "$py -m ruff check . && $py -m ruff format --check ."
step "mypy" 150 $py -m mypy
# the unit tier and the doctests that need no session (no JVM)
step "unit and doctests (no JVM)" 115 $py -m pytest tests/unit quality_py --doctest-modules -q -p no:cacheprovider \
  -m "not slow and not long and not browser and not needs_spark" --hypothesis-profile=ci -n 2 "${durations[@]}"
# the report site in headless Chromium: the same on every Python and Spark, so run once
step "report site in a browser (no JVM)" 65 $py -m pytest tests/unit -q -p no:cacheprovider -m "browser" -n 2 "${durations[@]}"
# the other tiers' venvs are installed meanwhile (pip waits on the disk; the next steps on CPU)
prepared=$(mktemp -d)
bash scripts/test-spark35.sh --prepare >"$prepared/spark35" 2>&1 &
prepare35=$!
bash scripts/test-client.sh --prepare >"$prepared/client" 2>&1 &
prepare_client=$!
ready() {  # a venv prepared in the background, or its log and a failure
  wait "$1" || { cat "$2"; return 1; }
}
# processes killed at every line and derandomized fuzzing: independent tests that mostly wait on
# the processes they kill, so four at a time on two cores (about 25-40 s: each kill point is a
# fork from one driver, tests/kill_points.py), and the release checks (the pre-commit hook
# installed from a tag with pip, ~60 s; the wheel and sdist built and twine-checked, ~20 s)
step "crash, fuzz and release (no JVM)" 110 $py -m pytest tests/unit -q -p no:cacheprovider -m "long" --hypothesis-profile=ci -n 4 "${durations[@]}"
# two workers, each with its own local Spark; a file's tests stay on one worker; the doctests
# whose examples use the session; a worker that dies ends the step naming its test (replacing it
# once left xdist's file scheduling waiting forever, 2026-11-30)
step "spark + doctests" 1300 $py -m pytest tests/spark quality_py --doctest-modules -q -p no:cacheprovider \
  -m "not slow and not no_spark" --hypothesis-profile=ci -n 2 --dist loadfile \
  --max-worker-restart=0 "${durations[@]}"
# the cluster waits on JVMs starting and uses one core per worker, the Connect-only client runs its
# tests in one process: side by side they share the two cores (one after the other: ~280 s)
cluster_and_client() {
  ready "$prepare_client" "$prepared/client"
  local log rc=0
  log=$(mktemp)
  $py -m pytest tests/cluster -q -p no:cacheprovider -m cluster "${durations[@]}" >"$log" 2>&1 &
  local cluster=$!
  bash scripts/test-client.sh || rc=$?
  wait "$cluster" || rc=$?
  echo "-- standalone cluster:"
  cat "$log"
  rm -f "$log"
  return "$rc"
}
step "standalone cluster + connect-only client, newest Python" 220 cluster_and_client
ready "$prepare35" "$prepared/spark35"
step "Python 3.10, pyspark 3.5" 700 bash scripts/test-spark35.sh
if [ ${#over_budget[@]} -gt 0 ]; then
  printf 'over budget: %s\n' "${over_budget[@]}" >&2
  exit 1
fi
echo "== all passed in $((SECONDS - started)) s"
