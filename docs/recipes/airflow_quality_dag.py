"""An Airflow DAG that checks a day of orders with quality_py (docs/deployment.md).

Put this file in the DAGs folder of an Airflow 2.7+ or 3.x deployment whose workers have Java
17 and ``quality_py[spark]`` (or run the same command in a ``KubernetesPodOperator`` image).
The task's exit code decides its state: 0 passed, 1 a ``fail`` rule or check stopped the run
(nothing was written), 2 a mistake in the job, 3 warnings with ``--strict``.

Airflow's own run id names the run (``scheduled__2026-11-23T00:00:00+00:00``: any printable
text is a run id), and the day the data belongs to is its ``--data-time``, so the report's
charts put each run at its data's day. Secrets come from the worker's environment (an Airflow
connection or a secrets backend exported as variables), never from this file.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow import DAG

try:  # Airflow 3: the standard provider
    from airflow.providers.standard.operators.bash import BashOperator
except ImportError:  # Airflow 2
    from airflow.operators.bash import BashOperator

COMMAND = (
    "quality-py run /opt/dq/orders.yaml"
    " --input s3a://lake/sales/orders/ds={{ ds }}"
    " --valid s3a://lake/sales/orders_valid/ds={{ ds }}"
    " --quarantine s3a://lake/dq/orders_quarantine"
    " --stats s3a://lake/dq/orders_stats"
    " --history s3a://lake/dq/history"
    " --publish direct"
    " --run-id '{{ run_id }}'"
    " --data-time {{ ds }}"
    " --alert slack=QP_SLACK_WEBHOOK_URL"
    " --report-url https://dq.example.com/orders/"
    " --remote sc://spark-connect.internal:15002"
    " --json /tmp/dq/orders-{{ ds }}.json"
)

with DAG(
    dag_id="orders_quality",
    schedule="@daily",
    start_date=datetime(2026, 11, 1, tzinfo=timezone.utc),
    catchup=False,
    default_args={"retries": 1, "retry_delay": timedelta(minutes=10)},
    tags=["data-quality"],
) as dag:
    check_orders = BashOperator(task_id="check_orders", bash_command=COMMAND)
