"""A Spark Connect session for the main Python API paths.

Two ways, one set of tests:

* by default (pyspark 4 with its JVM installed) the client starts a local server itself
  (``remote("local[2]")``); run this directory on its own: a classic session in the same process
  would conflict with it;
* with ``QP_SPARK_HOME`` set, as the Connect-only tier does (``scripts/test-client.sh``: a venv
  holding the ``pyspark-client`` package and no JVM Spark), a real server is started here from the
  classic package's own script (``sbin/start-connect-server.sh``) on a loopback port, and the
  tests talk to it over gRPC; the server is stopped when the tests end.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.jvm import QUICK_JVM


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_server(home: Path, logs: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    logs.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "SPARK_HOME": str(home),
        "SPARK_NO_DAEMONIZE": "1",
        "SPARK_LOG_DIR": str(logs),
        "SPARK_PID_DIR": str(logs),
        "SPARK_LOCAL_IP": "127.0.0.1",
        # Python UDFs (the Arrow functions) run in the server's Python workers, which must be of
        # the client's minor version: this Python, with quality_py and its dependencies
        "PYSPARK_PYTHON": sys.executable,
    }
    env.pop("SPARK_REMOTE", None)
    command = [
        str(home / "sbin" / "start-connect-server.sh"),
        "--master", "local[2]",
        "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf", f"spark.connect.grpc.binding.port={port}",
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.shuffle.partitions=1",
        "--conf", "spark.sql.session.timeZone=UTC",
        "--conf", f"spark.driver.extraJavaOptions={QUICK_JVM}",
    ]  # fmt: skip
    log = (logs / "server.out").open("wb")
    server = subprocess.Popen(
        command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the Connect server stopped: {(logs / 'server.out').read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server, f"sc://127.0.0.1:{port}"
        time.sleep(1)
    _stop(server)
    raise RuntimeError("the Connect server did not listen within 180 s")


def _stop(server: subprocess.Popen[bytes]) -> None:
    """The server's whole process group (the script and the JVM it started)."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str | None]:
    """The URL of the server this tier started (Connect-only tier), or None when the client
    starts its own (``remote("local[2]")``)."""
    home = os.environ.get("QP_SPARK_HOME")
    if not home:
        yield None
        return
    server, url = _start_server(Path(home), tmp_path_factory.mktemp("connect-server"))
    try:
        yield url
    finally:
        _stop(server)


@pytest.fixture(scope="session")
def connect(connect_url: str | None) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.remote(connect_url or "local[2]")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    assert type(session).__module__.startswith("pyspark.sql.connect")
    yield session
    session.stop()
