"""The library functions (``passed()``, ``pack_ints``, ``map_lookup`` ...) and their expansion
into Spark built-ins: a registry (``registry.py``) and one module per family of the original's
functions, each imported here by name so the registry is complete once the package is."""

from __future__ import annotations

from quality_py.sql.library import (
    aggregates,
    blooms,
    core,
    digests,
    expressions,
    ids,
    lookups,
    random,
    rows,
    validators,
    za,
)
from quality_py.sql.library.registry import (
    REGISTRY,
    Handler,
    LibraryFunction,
    canonical,
    expand,
    library_error,
    lookup,
    register,
)

#: The families, in the order they register.
FAMILIES = (
    core, ids, digests, lookups, blooms, aggregates, expressions, random, rows, validators, za,
)  # fmt: skip

__all__ = [
    "FAMILIES",
    "REGISTRY",
    "Handler",
    "LibraryFunction",
    "canonical",
    "expand",
    "library_error",
    "lookup",
    "register",
]
