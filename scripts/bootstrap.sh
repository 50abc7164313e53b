#!/usr/bin/env bash
# Create .venv (once) and install quality_py with its dev/sample/connect extras.
# Idempotent: a stamp file records the hash of pyproject.toml, so reruns are instant.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.quality_py-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  echo "$want" > "$stamp"
fi
if ! command -v java >/dev/null 2>&1; then
  echo "error: Java (17 or newer) is required by Spark and was not found on PATH" >&2
  exit 1
fi
