"""Which form a run writes its quarantine in, and why a quarantine never holds two.

A quarantine keeps every run, one partition each: runs written in two forms would give its
readers a column that is null for some runs (a parquet folder read with the newest schema) or
a failed write (a Delta table refuses the other schema). So a run that is not told a form
writes the one its quarantine already holds (a quarantine from before 0.2.0 keeps the full
form, with no change to the pipeline), and a new quarantine gets the default, the names; a
form asked for that differs from the one held is refused before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from quality_py.actions.flags import FAILED_COLUMN
from quality_py.model.types import SparkSession
from quality_py.outputs.destination import RunOutputError
from quality_py.outputs.writing import existing_columns

#: The form a new quarantine is written in.
DEFAULT_FORM = "names"


def form_of(columns: Sequence[str]) -> str | None:
    """The form of a quarantine with ``columns`` (None: not a quarantine of ours).

    >>> form_of(["id", "qp_run_id", "qp_failed_rule_names"]), form_of(["id", "DataQuality"])
    ('names', None)
    """
    held = [form for form, column in FAILED_COLUMN.items() if column in columns]
    return held[0] if len(held) == 1 else None


def chosen_form(asked: str | None, held: Sequence[str] | None, destination: str) -> str:
    """The form to write: ``asked``, else the one ``held`` (the destination's columns) has,
    else :data:`DEFAULT_FORM`; ``asked`` differing from the held form is refused.

    >>> chosen_form(None, None, "out/q"), chosen_form(None, ["qp_failed_rules"], "out/q")
    ('names', 'full')
    >>> chosen_form("ids", ["a", "qp_failed_rules"], "out/q")
    Traceback (most recent call last):
    ...
    quality_py.outputs.destination.RunOutputError: [RUN_OUTPUT] out/q holds quarantined rows \
written with quarantine_detail='full' (column qp_failed_rules), and this run was asked to \
write 'ids': one quarantine holds one form, so its readers see every run's failed rules. Write \
with quarantine_detail='full' (or leave it out: a run writes the form its quarantine holds), or \
write this form to a new quarantine.
    """
    form = form_of(held) if held is not None else None
    if asked is None:
        return form or DEFAULT_FORM
    if form is not None and form != asked:
        raise RunOutputError(
            f"{destination} holds quarantined rows written with quarantine_detail={form!r} "
            f"(column {FAILED_COLUMN[form]}), and this run was asked to write {asked!r}: one "
            "quarantine holds one form, so its readers see every run's failed rules. Write "
            f"with quarantine_detail={form!r} (or leave it out: a run writes the form its "
            "quarantine holds), or write this form to a new quarantine.",
            item_kind="output",
        )
    return asked


def quarantine_form(
    spark: SparkSession, destination: str | None, fmt: str, asked: str | None
) -> str:
    """The form a run writes the quarantine ``destination`` in (:func:`chosen_form` of what it
    holds); without a destination, ``asked`` or the default.

    >>> quarantine_form(spark, None, "auto", None)
    'names'
    """
    held = existing_columns(spark, destination, fmt) if destination is not None else None
    return chosen_form(asked, held, destination or "the quarantine")
