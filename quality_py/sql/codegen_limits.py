"""Spark's limits on generated code, which shape both what the compiler's output is built as
(:mod:`quality_py.runners.one_projection`) and what a run sets while its jobs run
(:func:`quality_py.spark.session.wide_plan_settings`).

>>> METHOD_LIMIT, HOTSPOT_HUGE_METHOD
('spark.sql.codegen.hugeMethodLimit', 8000)
"""

from __future__ import annotations

#: The largest generated method Spark runs as whole-stage code (65535 by default); a stage whose
#: method is larger falls back to its operators' own generated code, split in small methods.
METHOD_LIMIT = "spark.sql.codegen.hugeMethodLimit"
#: HotSpot does not compile a method of more bytecode than this (``DontCompileHugeMethods``):
#: such a method runs interpreted, several times slower.
HOTSPOT_HUGE_METHOD = 8000

__all__ = ["HOTSPOT_HUGE_METHOD", "METHOD_LIMIT"]
