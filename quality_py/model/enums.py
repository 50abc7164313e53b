"""The closed sets of words the model uses, as enums that still compare equal to their text.

Each member is a ``str``: ``RowAction.DROP == "drop"``, so rules written with plain strings in
code, YAML or tables keep working, and the enum is what the model stores. Where a value leaves
Python (tables, YAML, JSON, Spark rows) it is written as its text.

>>> RowAction("drop") is RowAction.DROP, RowAction.DROP == "drop", str(RowAction.DROP)
(True, True, 'drop')
"""

from __future__ import annotations

from enum import Enum


class TextEnum(str, Enum):
    """A ``str`` enum whose ``str()`` and format are its text."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class RowAction(TextEnum):
    """What a quality run does with a row that fails a rule (and with a failed dataset check)."""

    IGNORE = "ignore"  # keep the row in valid; it is also quarantined with its reasons
    DROP = "drop"  # quarantine only
    FAIL = "fail"  # stop the run before anything is written


class CheckLevel(TextEnum):
    """How serious a failed dataset check is."""

    ERROR = "error"
    WARNING = "warning"


class RunStatus(TextEnum):
    """Where a quality run is."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
