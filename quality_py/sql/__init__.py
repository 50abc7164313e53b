"""Rule text -> sqlglot AST -> passes -> Spark SQL text. The only package that imports sqlglot."""

from __future__ import annotations
