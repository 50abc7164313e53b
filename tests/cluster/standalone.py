"""A Spark standalone cluster on this machine, from the installed pyspark's own launcher.

A master and N workers, each its own JVM started with ``bin/spark-class`` (pyspark's wheel has
no ``sbin/start-master.sh``, but the same classes), on loopback with ports the JVMs choose
themselves (``--port 0``; the bound ports are read from their logs), so nothing collides with a
busy machine. Executors run in yet other JVMs with their own Python workers: the setting a job
on a real cluster has, short of a network.

Every JVM of the cluster (the daemons, and through the cluster's ``spark-defaults.conf`` the
drivers and executors of the applications submitted with its environment) runs the tests'
quick JIT tier (``tests/jvm.py``): six JVMs share two cores (measured: the flights job under
spark-submit 143 s with the default JIT, 90 s with this).

>>> with standalone_cluster(workers=2) as cluster:  # doctest: +SKIP
...     print(cluster.master)
spark://127.0.0.1:40123
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from tests.jvm import QUICK_JVM

_MASTER_URL = re.compile(r"Starting Spark master at (spark://[\w.\-]+:\d+)")
_REGISTERED = re.compile(r"Successfully registered with master")


@dataclass(frozen=True)
class Cluster:
    """A running cluster: its master URL and the environment an application is launched with
    (``SPARK_CONF_DIR`` names the cluster's ``spark-defaults.conf``)."""

    master: str
    env: dict[str, str]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _launch(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [str(spark_home() / "bin" / "spark-class"), *args]
    with open(log, "wb") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )


def _wait_for(
    log: Path, pattern: re.Pattern[str], proc: subprocess.Popen[bytes], seconds: float
) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        found = pattern.search(text)
        if found:
            return found.group(found.lastindex or 0)
        if proc.poll() is not None:
            raise RuntimeError(f"{log.name} exited with {proc.returncode}:\n{text[-3000:]}")
        time.sleep(0.2)
    raise TimeoutError(f"{log.name}: no {pattern.pattern!r} in {seconds} s:\n{text[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.wait(timeout=30)


@contextmanager
def standalone_cluster(
    workers: int = 2, cores: int = 1, memory: str = "2g", seconds: float = 120
) -> Iterator[Cluster]:
    """Start a master and ``workers`` workers; yield the cluster; stop them all."""
    root = Path(tempfile.mkdtemp(prefix="qp-cluster-"))
    conf = root / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(
        f"spark.driver.extraJavaOptions {QUICK_JVM}\nspark.executor.extraJavaOptions {QUICK_JVM}\n"
    )
    env = {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
        "SPARK_LOG_DIR": str(root),
        "SPARK_WORKER_DIR": str(root / "work"),
        "SPARK_CONF_DIR": str(conf),
        "SPARK_DAEMON_JAVA_OPTS": QUICK_JVM,
    }
    procs: list[subprocess.Popen[bytes]] = []
    try:
        master_log = root / "master.log"
        master = _launch(
            [
                "org.apache.spark.deploy.master.Master",
                "--host", "127.0.0.1", "--port", "0", "--webui-port", "0",
            ],
            master_log,
            env,
        )  # fmt: skip
        procs.append(master)
        url = _wait_for(master_log, _MASTER_URL, master, seconds)
        for i in range(workers):
            log = root / f"worker-{i}.log"
            worker = _launch(
                [
                    "org.apache.spark.deploy.worker.Worker",
                    "--host", "127.0.0.1", "--port", "0", "--webui-port", "0",
                    "--cores", str(cores), "--memory", memory,
                    "--work-dir", str(root / f"work-{i}"),
                    url,
                ],
                log,
                env,
            )  # fmt: skip
            procs.append(worker)
        for i, worker in enumerate(procs[1:]):
            _wait_for(root / f"worker-{i}.log", _REGISTERED, worker, seconds)
        yield Cluster(url, {k: env[k] for k in ("SPARK_CONF_DIR", "SPARK_LOCAL_IP")})
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)
