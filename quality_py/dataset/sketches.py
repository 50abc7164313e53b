"""Sketch analyzers: approximate distinct counts (HLL) and quantiles (KLL), Spark's own sketches.

The state is the sketch's bytes as Spark's ``hll_sketch_agg`` / ``kll_sketch_agg_double`` produce
them (Apache DataSketches formats, stable across Spark versions). Merging and estimating use
Spark's ``hll_union`` / ``kll_sketch_merge_double`` on literal sketches: no data is read, but a
Spark session must be active. HLL unions are exact (the union of partition sketches equals the
sketch of the whole); KLL merges are approximate within the sketch's rank error. KLL needs
Spark 4.1 or newer; on older Spark, ``ApproxQuantile`` raises a typed error naming the analyzer.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from quality_py.dataset.analyzers import Analyzer, _col, _filter
from quality_py.errors import QualityError
from quality_py.model.policy import RulePolicy

_MERGE = {"hll": "hll_union({a}, {b})", "kll": "kll_sketch_merge_double({a}, {b})"}
_MERGE_AGG = {"hll": "hll_union_agg", "kll": "kll_merge_agg_double"}


class SketchError(QualityError):
    """A sketch cannot be built or merged here (no session, or Spark lacks the sketch)."""

    code = "SKETCH"


def active_session() -> Any:
    """The active Spark session: classic, else Spark Connect (None when there is none)."""
    from pyspark.sql import SparkSession

    spark: Any = SparkSession.getActiveSession()
    if spark is None:
        try:
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            spark = ConnectSession.getActiveSession()
        except ImportError:  # Connect's extra dependencies are not installed
            spark = None
    return spark


def _session() -> Any:
    spark = active_session()
    if spark is None:
        raise SketchError("merging or reading a sketch state needs an active Spark session")
    return spark


def _literal(data: bytes) -> str:
    return f"X'{data.hex()}'"  # hex digits only: safe to place in SQL text


def _evaluate(sql: str) -> Any:
    """One value of a constant SQL expression over sketch literals (no table is read)."""
    return _session().sql(f"SELECT {sql} AS v").collect()[0][0]


@dataclass(frozen=True, slots=True)
class SketchState:
    """A serialized sketch; ``data=None`` is the identity (no rows seen).

    >>> SketchState("hll").merge(SketchState("hll")).data is None
    True
    """

    kind: str
    data: bytes | None = None

    def merge(self, other: SketchState) -> SketchState:
        """Union the sketches (Spark evaluates the union of the two literals)."""
        if other.data is None:
            return self
        if self.data is None:
            return other
        merged = _evaluate(_MERGE[self.kind].format(a=_literal(self.data), b=_literal(other.data)))
        return SketchState(self.kind, bytes(merged))

    @classmethod
    def union(cls, states: list[SketchState]) -> SketchState:
        """All states merged by one aggregation over their literals (one small query)."""
        present = [s for s in states if s.data is not None]
        if len(present) <= 1:
            return present[0] if present else states[0]
        kind = present[0].kind
        rows = ", ".join(f"({_literal(s.data)})" for s in present if s.data is not None)
        value = _session().sql(f"SELECT {_MERGE_AGG[kind]}(s) FROM VALUES {rows} AS t(s)")
        return SketchState(kind, bytes(value.collect()[0][0]))

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields (the sketch as base64)."""
        data = None if self.data is None else base64.b64encode(self.data).decode("ascii")
        return {"kind": self.kind, "data": data}

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> SketchState:
        """Inverse of :meth:`to_dict`."""
        data = fields.get("data")
        return cls(fields["kind"], None if data is None else base64.b64decode(data))


@dataclass(frozen=True)
class ApproxCountDistinct(Analyzer):
    """Approximate number of distinct non-null values (HyperLogLog, mergeable).

    Values are counted by their string form, so any column type works, and the empty string is a
    value (as in ``CountDistinct``). The estimate of merged states equals the estimate of the
    whole data's state: both go through the union form. ``lg_k`` (4..21) trades
    memory (2^lg_k registers) for accuracy (about 1.04 / sqrt(2^lg_k) relative error).
    """

    column: str
    where: str | None = None
    lg_k: int = 12

    def aggregations(self, policy: RulePolicy) -> list[str]:
        if not 4 <= int(self.lg_k) <= 21:
            raise SketchError(f"{self.name}: lg_k must be between 4 and 21")
        # Spark's HLL skips empty strings; prefixing every value keeps '' a value like any other
        # (the prefix is part of the state format: STATE_FORMAT 2)
        value = f"concat('v', CAST({_col(self.column)} AS STRING))"
        return [f"hll_sketch_agg({value}, {int(self.lg_k)}){_filter(self.where, policy)}"]

    def state(self, values: list[Any]) -> SketchState:
        return SketchState("hll", None if values[0] is None else bytes(values[0]))

    def identity(self) -> SketchState:
        return SketchState("hll")

    def metric(self, state: SketchState) -> float | None:
        if state.data is None:
            return 0.0
        # Always estimate through the union form: a sketch built in one pass keeps an in-order
        # (HIP) estimate, a union of sketches does not. The union of a sketch with itself has
        # the same registers, so a merged state and the whole table's state estimate equally.
        lit = _literal(state.data)
        return float(_evaluate(f"hll_sketch_estimate(hll_union({lit}, {lit}))"))


def _kll_available() -> bool:
    import pyspark

    major, minor = (int(p) for p in pyspark.__version__.split(".")[:2])
    return (major, minor) >= (4, 1)


@dataclass(frozen=True)
class ApproxQuantile(Analyzer):
    """Approximate ``quantile`` (0..1) of the non-null, non-NaN values (KLL sketch, mergeable)."""

    column: str
    quantile: float
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        if not 0.0 <= float(self.quantile) <= 1.0:
            raise SketchError(f"{self.name}: the quantile must be between 0 and 1")
        if not _kll_available():
            raise SketchError(f"{self.name}: quantile sketches (KLL) need Spark 4.1 or newer")
        value = f"CAST({_col(self.column)} AS DOUBLE)"
        return [f"kll_sketch_agg_double({value}){_filter(self.where, policy)}"]

    def state(self, values: list[Any]) -> SketchState:
        return SketchState("kll", None if values[0] is None else bytes(values[0]))

    def identity(self) -> SketchState:
        return SketchState("kll")

    def metric(self, state: SketchState) -> float | None:
        if state.data is None:
            return None
        s = _literal(state.data)
        q = repr(float(self.quantile))
        value = _evaluate(
            f"IF(kll_sketch_get_n_double({s}) = 0, NULL, kll_sketch_get_quantile_double({s}, {q}D))"
        )
        return None if value is None else float(value)
