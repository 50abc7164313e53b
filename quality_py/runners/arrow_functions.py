"""The functions we run per row in Python: the hashes Spark does not have.

* ``murmur3_id`` and ``hash_with`` with MURMUR3_128, MURMUR3_32, ADLER32 or SIPHASH24 feed
  their fields in SQL (the bytes the original's Guava hasher takes, built with built-ins) and
  call ``qp_murmur3_x64_128(bytes)`` or ``qp_guava_<hash>(bytes)``, over ``mmh3``, ``zlib`` and
  a SipHash written here (:mod:`.guava_hashes`);
* the ``za_*`` hashes build each field's bytes in SQL and call ``qp_za_<hash>(array<binary>)``,
  which hashes field after field, each seeded by the last (:mod:`.zero_allocation`).

Each is an Arrow UDF (a whole Arrow batch per call, no pandas), registered in the session
(``spark.udf.register``) only when compiled SQL names it, just before Spark analyses that SQL;
rule text cannot name it (the rule policy refuses unknown functions). Arrow UDFs exist from
pyspark 4.1; on older versions these functions are refused with a message.
``benchmarks/bench_ids.py`` measures their cost against MD5 ids computed by Spark.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from quality_py.errors import LibraryFunctionError
from quality_py.runners.guava_hashes import guava_hash
from quality_py.runners.zero_allocation import za_hash
from quality_py.sql.library.digests import MURMUR3_X64_128, PYTHON_HASHERS
from quality_py.sql.library.za import ZA_FUNCTIONS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["MURMUR3_X64_128", "ZA_FUNCTIONS", "register_arrow_functions"]


def _batch(family: str, name: str) -> Any:
    """The batch function of the hash ``name`` of ``family`` ("guava": ``hash_with``'s bytes
    to longs, :mod:`.guava_hashes`; "za": a row's list of field bytes to the chain's longs,
    :mod:`.zero_allocation`); a null value gives null."""

    def batch(data: Any) -> Any:
        import pyarrow as pa

        hash_of = guava_hash if family == "guava" else za_hash
        out = [None if value is None else hash_of(name, value) for value in data.to_pylist()]
        return pa.array(out, type=pa.list_(pa.int64()))

    batch.__name__ = f"{family}_{name.lower()}"
    return batch


def _udf(batch: Any) -> Any:
    from pyspark.sql import functions as F

    if not hasattr(F, "arrow_udf"):
        raise LibraryFunctionError(
            "this hash (murmur3, za_*, or a hash_with hasher Spark lacks) needs an Arrow "
            "function, which needs pyspark 4.1 or later",
            code="LIBRARY_ARGUMENTS",
        )
    import pyarrow as pa

    # arrow_udf reads the function's kind from its type hints (this module's are strings)
    batch.__annotations__ = {"data": pa.Array, "return": pa.Array}
    return F.arrow_udf(batch, "array<bigint>")


def arrow_functions_called(sqls: Iterable[str]) -> dict[str, tuple[str, str]]:
    """The Arrow functions ``sqls`` call: ``{function: (family, hash)}`` (a cheap text check)."""
    texts = [sql.lower() for sql in sqls]
    functions = {udf: ("guava", hash_name) for hash_name, (udf, _) in PYTHON_HASHERS.items()}
    functions.update({udf: ("za", hash_name) for hash_name, udf in ZA_FUNCTIONS.items()})
    return {n: f for n, f in functions.items() if any(n + "(" in t for t in texts)}


def register_arrow_functions(spark: SparkSession | None, sqls: Iterable[str]) -> None:
    """Register the Arrow functions that ``sqls`` call (none usually: a cheap text check)."""
    wanted = [(name, _batch(*fh)) for name, fh in arrow_functions_called(sqls).items()]
    if not wanted:
        return
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
        if spark is None:
            raise LibraryFunctionError(
                "hashes computed in Python need an active SparkSession to register their Arrow "
                "function",
                code="LIBRARY_ARGUMENTS",
            )
    for name, batch in wanted:
        spark.udf.register(name, _udf(batch))
