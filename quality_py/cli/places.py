"""Which command-line options name what a command reads and what it writes, and the refusal,
before anything starts, of an output that is, is inside or contains an input or another output
(``--json`` over the input file, ``--valid`` equal to ``--input``, a quarantine in the input's
folder). Every option of every command is classified here; ``tests/unit/test_cli_places.py``
fails on an option that is not, so a new option cannot slip past the rule.

A views file's sources and blooms are checked by the job, which reads that file once
(``quality_py.jobs.prepare.require_apart``). The library repeats the check on what Spark says a
frame reads (``outputs.writing.require_apart``,
with tables by their qualified names and folders): this one needs no Spark and also covers the
files the command line alone writes (``--json``, ``--notify``, ``--out``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from quality_py.cli.common import input_table
from quality_py.gate.locations import Location, location, require_disjoint
from quality_py.jobs.schema_text import names_a_file

#: Options naming what a command reads (a ruleset, rule tables, data, reference data).
READS = ("source", "ruleset", "rules", "old", "new", "input", "lambdas", "outputs",
         "meta_rule_sets", "views", "view", "previous", "file", "schema")  # fmt: skip
#: Options naming what a command writes (a history is written by the runs that keep one).
WRITES = ("output", "valid", "quarantine", "stats", "json", "notify", "history", "out", "site",
          "suggest", "dest", "table_state")  # fmt: skip
#: Options that name no place (values, switches, SQL, the Spark to use).
NOT_PLACES = (
    "suite", "format", "master", "remote", "conf", "tag", "run_id", "where", "webhook", "alert",
    "report_url", "data_time", "partition", "table_view", "alert_when", "alert_every", "dry_run",
    "name", "layout", "strict", "key", "hide_column", "publish", "quarantine_detail", "var",
    "output_format", "sample", "rule", "analyse", "samples", "rules_only", "print", "evaluate",
    "dqx_version", "dq_env", "se_table",
    "max_categories", "since", "until", "title", "dataset_tag", "site_url", "site_dataset",
    "from_format", "to_format", "mode", "help",
    # lineage names a job and sends events through the client's transport (no place of ours)
    "openlineage", "no_openlineage", "openlineage_namespace", "openlineage_job",
)  # fmt: skip


def _values(args: argparse.Namespace, dest: str) -> Iterator[str]:
    value = getattr(args, dest, None)
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, str) or not item.strip():
            continue
        if dest == "view":  # NAME=PATH
            item = item.partition("=")[2]
        if dest == "schema" and not names_a_file(item):  # a DDL schema names no place
            continue
        if item.startswith("sample:") or not item.strip():
            continue
        yield item


def _place(dest: str, text: str) -> Location:
    """A path unless the text is a table (``table:NAME``, or a dotted name that is no file)."""
    table = dest not in ("dest", "file", "json", "notify", "out", "site", "suggest")
    return location(text, table=table and input_table(text) is not None)


def option_label(dest: str) -> str:
    """How the user wrote the option (``--run-id``; positional ones by name)."""
    if dest in ("source", "ruleset", "old", "new", "dest", "file"):
        return dest
    return "--" + dest.replace("_", "-")


def require_separate(args: argparse.Namespace) -> None:
    """Refuse a command whose outputs overlap its inputs or each other (no Spark needed).

    >>> args = argparse.Namespace(input="data/in.csv", json="data/./in.csv")
    >>> try:
    ...     require_separate(args)
    ... except Exception as err:
    ...     print(err.message.split(":")[0])
    the --json output data/./in.csv is the --input data/in.csv
    """
    inputs = [(option_label(d), _place(d, v)) for d in READS for v in _values(args, d)]
    outputs = [(option_label(d), _place(d, v)) for d in WRITES for v in _values(args, d)]
    require_disjoint(inputs, outputs)
