"""The options of every JVM the tests start themselves (the local session, the Connect server, a
test cluster's daemons, drivers and executors, a command line started as a process of its own
through ``SPARK_SUBMIT_OPTS``, set by the root conftest): the quick JIT tier and the serial collector. A
test's many short queries on two cores never repay the optimizing tier (measured: the cluster
test 224 s with it, 155 s without; 193 Spark tests 120 s with it, 95 s without). JIT settings
change no result. ``tests/unit/test_test_matrix.py`` keeps every start site on it."""

from __future__ import annotations

QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
