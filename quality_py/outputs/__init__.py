"""A run's outputs: one destination value read once (:mod:`~quality_py.outputs.destination`:
path or table, format, whether a bare name may be a table), writing to paths, URIs and tables
(:mod:`~quality_py.outputs.writing`) and their atomic publication
(:mod:`~quality_py.outputs.publish`)."""

from __future__ import annotations

from quality_py.outputs.destination import (
    OUTPUT_FORMATS,
    PUBLISH_MODES,
    Destination,
    RunOutputError,
)
from quality_py.outputs.writing import read_outputs

__all__ = [
    "OUTPUT_FORMATS",
    "PUBLISH_MODES",
    "Destination",
    "RunOutputError",
    "read_outputs",
]
