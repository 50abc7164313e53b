"""Garbage collection while a large suite is built: syntax trees are cycles that only the
collector frees, and a full collection scans every object the process holds."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from quality_py.model.rules import RuleSuite

#: Suites from this many rules are built with no garbage collection ...
_MANY_RULES = 500
#: ... up to this many (a larger build collects as it goes, in fewer passes).
_AT_MOST = 20_000
#: Allocations between young-generation collections while a larger suite is built.
_COLLECT_EVERY = 10_000


def suite_size(suite: RuleSuite) -> int:
    """The number of rules of ``suite``.

    >>> from quality_py.model import Id, Rule, RuleSet
    >>> suite_size(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])]))
    1
    """
    return sum(len(rs.rules) for rs in suite.rule_sets)


@contextmanager
def fewer_collections(rules: int) -> Iterator[None]:
    """No garbage collection while a suite of ``rules`` (500 to 20,000) is compiled and its
    frame built, then the collector as before; a larger suite collects every 10,000
    allocations instead of 700.

    Syntax trees point at their parents, so every discarded tree is a cycle that only the
    collector frees, and each full collection scans every object the process holds (PySpark's
    and sqlglot's included): 5000 rules spent 0.3 s of a 1.7 s compile collecting, and 0.8 s
    of a 6.4 s compile and plan (benchmarks/README.md). The garbage of such a build (a few
    hundred MB at most for 20,000 rules; the whole process held 260 MB at 5000) is collected
    by the first collection after it. Other threads' garbage waits as long.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> with fewer_collections(5000):
    ...     gc.isenabled()
    False
    >>> with fewer_collections(50_000):
    ...     gc.get_threshold()[0]
    10000
    >>> gc.isenabled(), gc.get_threshold() == before
    (True, True)
    """
    before = gc.get_threshold()
    if rules < _MANY_RULES or not gc.isenabled() or before[0] >= _COLLECT_EVERY:
        yield
        return
    if rules <= _AT_MOST:
        gc.disable()
        try:
            yield
        finally:
            gc.enable()
        return
    gc.set_threshold(_COLLECT_EVERY, *before[1:])
    try:
        yield
    finally:
        if gc.get_threshold()[0] == _COLLECT_EVERY:  # unless someone else has changed it since
            gc.set_threshold(*before)


__all__ = ["fewer_collections", "suite_size"]
