"""Spark glue: local sessions and SQL-function registration, the session hardening check, and
the sample data. The only package besides the runners that starts or inspects a session."""

from __future__ import annotations
