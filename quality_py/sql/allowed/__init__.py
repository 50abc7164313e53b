"""What rule text may do, apart from how it becomes Spark SQL: the policy's enforcement
(``enforce``), the catalogue of functions and their size rules (``catalogue``, ``functions``,
``sizes``, ``size_bounds``), aggregates (``aggregates``), regular expressions that run in linear
time (``regex_linear``, ``regex_safety``), the raw-text scan before parsing (``scan``) and the
key types lookups accept (``key_types``).

This room imports from the compiling room only the syntax it judges (``dialect``, ``parse``,
``build``, ``context``) and the library's registry of function names;
tests/unit/test_architecture.py keeps it so.
"""
