"""Spark's limits on generated code, which shape both what the compiler's output is built as
(:mod:`quality_py.runners.one_projection`) and what a run sets while its jobs run
(:func:`quality_py.spark.session.wide_plan_settings`).

>>> METHOD_LIMIT, HOTSPOT_HUGE_METHOD
('spark.sql.codegen.hugeMethodLimit', 8000)
>>> spark.sql(f"SELECT {ONE_WITHOUT_CODEGEN} AS one").first().one
1
"""

from __future__ import annotations

#: The largest generated method Spark runs as whole-stage code (65535 by default); a stage whose
#: method is larger falls back to its operators' own generated code, split in small methods.
METHOD_LIMIT = "spark.sql.codegen.hugeMethodLimit"
#: HotSpot does not compile a method of more bytecode than this (``DontCompileHugeMethods``):
#: such a method runs interpreted, several times slower.
HOTSPOT_HUGE_METHOD = 8000

#: Always 1, computed by an expression Spark has no generated code for (a higher-order function:
#: ``CodegenFallback`` in Spark 3.5 and 4.x, checked on both by tests/spark/test_out_of_stage.py).
#: An operator holding such an expression is never whole-stage code: Spark runs it with its own
#: generated code, split in methods HotSpot compiles, and evaluates only this one interpreted
#: (about 0.1 s per million rows). It reads no column and is not constant, so the optimizer
#: neither folds it nor moves it.
ONE_WITHOUT_CODEGEN = "SIZE(ZIP_WITH(ARRAY(1), ARRAY(1), (x, y) -> x))"
#: Spark's property saying Photon (Databricks' engine) runs a session's plans: Spark's generated
#: code is not what runs there, and an expression Photon lacks could move an operator off it.
PHOTON = "spark.databricks.photon.enabled"

__all__ = ["HOTSPOT_HUGE_METHOD", "METHOD_LIMIT", "ONE_WITHOUT_CODEGEN", "PHOTON"]
