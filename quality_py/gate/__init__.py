"""The boundary: what comes into a run from outside its rule text passes here, once.

* :mod:`~quality_py.gate.names`: a table or view that a ruleset, a check, an import or a views
  file names is resolved through the policy's allowed views (or refused, naming who asked);
* :mod:`~quality_py.gate.reads`: the one module that calls ``spark.table`` / ``spark.read``
  (``tests/unit/test_architecture.py`` fails on a call anywhere else), so no reader can skip the
  names gate;
* :mod:`~quality_py.gate.locations`: every input and output resolved to its canonical identity
  (real paths, qualified tables, URIs by scheme and path), and no output equal to, inside or
  containing an input or another output;
* :mod:`~quality_py.gate.delta_log`: a Delta table's transaction log, read for its last
  commit time (a file Spark lists beside the data, parsed defensively);
* :mod:`~quality_py.gate.numbers`: every number a file, a variable or the command line gives a
  run (thresholds, rates, bounds, sizes) is finite and in its documented range.
"""
