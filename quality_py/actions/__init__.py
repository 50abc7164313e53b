"""Actions on failing rows and checks: drop, quarantine, fail, stats, notifications."""

from __future__ import annotations

from quality_py.actions.notify import (
    CallbackNotifier,
    JsonLinesNotifier,
    Notifier,
    WebhookNotifier,
)
from quality_py.actions.outcome import QualityRunFailed, RunSummary
from quality_py.actions.pipeline import foreach_batch, with_quality
from quality_py.actions.run import QualityRun, run_quality
from quality_py.actions.stats import quarantine_with_names
from quality_py.outputs.destination import RunOutputError
from quality_py.outputs.writing import read_outputs

__all__ = [
    "CallbackNotifier",
    "JsonLinesNotifier",
    "Notifier",
    "QualityRun",
    "QualityRunFailed",
    "RunOutputError",
    "RunSummary",
    "WebhookNotifier",
    "foreach_batch",
    "quarantine_with_names",
    "read_outputs",
    "run_quality",
    "with_quality",
]
