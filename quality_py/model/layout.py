"""Which layout a data-quality column has, and for the compact layout, where each id sits."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from quality_py.errors import ModelError
from quality_py.model.results import METADATA_KEY, Layout
from quality_py.model.rules import RuleSuite


@dataclass(frozen=True, slots=True)
class CompactLayout:
    """Positions of the packed ids in a compact data-quality column.

    ``rule_sets`` is ``((packed set id, (packed rule id, ...)), ...)`` in array order.

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])])
    >>> lay = CompactLayout.of(suite)
    >>> lay.position(Id(50, 1).packed, Id(100, 1).packed)
    (0, 0)
    >>> CompactLayout.from_metadata(lay.to_metadata()) == lay
    True
    """

    suite_id: int
    rule_sets: tuple[tuple[int, tuple[int, ...]], ...]

    @classmethod
    def of(cls, suite: RuleSuite) -> CompactLayout:
        """The layout a suite compiles to."""
        return cls(
            suite.id.packed,
            tuple((rs.id.packed, tuple(r.id.packed for r in rs.rules)) for rs in suite.rule_sets),
        )

    def position(self, set_id: int, rule_id: int) -> tuple[int, int] | None:
        """0-based (set index, index in ``ruleResults``) of packed ids, or None when absent.

        >>> CompactLayout(7, ((1, (10, 11)), (2, (20,)))).position(2, 20)
        (1, 2)
        """
        flat = 0
        for i, (sid, rules) in enumerate(self.rule_sets):
            if sid == set_id:
                for j, rid in enumerate(rules):
                    if rid == rule_id:
                        return i, flat + j
                return None
            flat += len(rules)
        return None

    def entries(self) -> list[tuple[int, int, int, int]]:
        """(set index, flat rule index, packed set id, packed rule id) for every rule.

        >>> CompactLayout(7, ((1, (10, 11)), (2, (20,)))).entries()
        [(0, 0, 1, 10), (0, 1, 1, 11), (1, 2, 2, 20)]
        """
        out = []
        flat = 0
        for i, (sid, rules) in enumerate(self.rule_sets):
            for rid in rules:
                out.append((i, flat, sid, rid))
                flat += 1
        return out

    def to_metadata(self) -> dict[str, Any]:
        """The column metadata recorded for this layout (JSON-compatible).

        >>> sorted(CompactLayout(7, ((1, (10,)),)).to_metadata())
        ['quality_py']
        """
        # Spark metadata cannot hold nested arrays, so the ids travel as one JSON string.
        info = {
            "layout": Layout.COMPACT.value,
            "suiteId": self.suite_id,
            "ruleSets": [[sid, list(rules)] for sid, rules in self.rule_sets],
        }
        return {METADATA_KEY: json.dumps(info, separators=(",", ":"))}

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any] | str) -> CompactLayout:
        """Read the layout back from a column's metadata."""
        meta = json.loads(metadata) if isinstance(metadata, str) else metadata
        info = meta.get(METADATA_KEY) if isinstance(meta, dict) else None
        if isinstance(info, str):
            info = json.loads(info)
        if not info or info.get("layout") != Layout.COMPACT.value:
            raise ModelError("column metadata does not describe a compact data-quality layout")
        return cls(
            int(info["suiteId"]),
            tuple((int(sid), tuple(int(r) for r in rules)) for sid, rules in info["ruleSets"]),
        )


#: Either the map layout or the ids of a compact one.
ResultLayout = Layout | CompactLayout


def layout_of_field(field: Any) -> ResultLayout:
    """The layout of a DataFrame field (a ``StructField``) holding data-quality results.

    A field with compact metadata is compact; any other field is taken to be the map layout.

    >>> from pyspark.sql.types import IntegerType, StructField
    >>> layout_of_field(StructField("DataQuality", IntegerType()))
    <Layout.MAP: 'map'>
    """
    meta = getattr(field, "metadata", None) or {}
    if isinstance(meta, dict) and METADATA_KEY in meta:
        return CompactLayout.from_metadata(meta)
    return Layout.MAP
