"""What a run tells lineage tools and catalogs: OpenLineage run events with the run's
assertions and metrics (docs/lineage.md). The OpenLineage client is imported only when a run
emits (the ``lineage`` extra)."""

from __future__ import annotations

from quality_py.lineage.openlineage import OpenLineage

__all__ = ["OpenLineage"]
