"""What the commands share: turning their options into a :class:`~quality_py.jobs.QualityJob`
(every command prepares through it), option values (``KEY=VALUE``, keys, tags), and the
``--json`` documents. Every name here is public to the package's command modules; none of them
imports another command module."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quality_py.errors import InputError, QualityError
from quality_py.history.over_time import DATA_TIME, data_time
from quality_py.io.variables import parse_assignments
from quality_py.jobs import Outputs, QualityJob, SparkSettings
from quality_py.jobs.inputs import input_table as input_table  # the CLI's places read tables too
from quality_py.jobs.inputs import spark_error as spark_error
from quality_py.jobs.spec import INPUT_FORMATS
from quality_py.lineage import OpenLineage
from quality_py.outputs import OUTPUT_FORMATS
from quality_py.progress import step
from quality_py.version import __version__

#: ``--format``: what an input is read as (else by its suffix).
FORMATS = INPUT_FORMATS
__all__ = ["FORMATS", "OUTPUT_FORMATS", "input_table", "spark_error"]


def job_of(args: argparse.Namespace, **fields: Any) -> QualityJob:
    """The :class:`QualityJob` a command's options ask for (``fields`` override or add to them:
    ``ruleset=args.old``). Options a command does not have are left at the job's defaults."""

    def opt(name: str) -> Any:
        return getattr(args, name, None)

    views = []
    for item in opt("view") or ():
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--view takes NAME=PATH, not {item!r}", item_kind="option")
        views.append((name, path))
    outputs = Outputs(
        valid=opt("valid"), quarantine=opt("quarantine"), stats=opt("stats"),
        output=opt("output"), format=opt("output_format") or "auto",
        publish=opt("publish") or "atomic", quarantine_detail=opt("quarantine_detail"),
    )  # fmt: skip
    settings = SparkSettings(
        master=opt("master"), remote=opt("remote"), conf=tuple(pair_values(opt("conf"), "--conf"))
    )
    values: dict[str, Any] = {
        "ruleset": opt("ruleset") or opt("source"), "input": opt("input"), "format": opt("format"),
        "schema": opt("schema"), "where": opt("where"), "views": views,
        "views_file": opt("views"), "suite": opt("suite"), "lambdas": opt("lambdas"),
        "output_expressions": opt("outputs"), "meta_rule_sets": opt("meta_rule_sets"),
        "variables": parse_assignments(opt("var") or []), "outputs": outputs,
        "history": opt("history"), "notify": opt("notify") or (),
        "table_state": opt("table_state"), "partition": opt("partition"),
        "table_view": opt("table_view"),
        "tags": {**tags(opt("tag")), **data_time_tag(opt("data_time"))},
        "webhooks": opt("webhook") or (), "alerts": opt("alert") or (),
        "report_url": opt("report_url"), "keys": keys(opt("key")),
        "alert_when": opt("alert_when") or "problems", "alert_every": opt("alert_every"),
        "hide_columns": keys(opt("hide_column")), "run_id": opt("run_id"),
        "name": opt("name") or "DataQuality", "layout": opt("layout") or "map",
        "spark": settings, "strict": bool(opt("strict")), "openlineage": _lineage(opt),
    }  # fmt: skip
    return QualityJob(**{**values, **fields})


def _lineage(opt: Any) -> OpenLineage | bool | None:
    """``--openlineage`` and its options as a job's ``openlineage`` (None: left to
    ``OPENLINEAGE_URL``; False: ``--no-openlineage``)."""
    named = {"namespace": opt("openlineage_namespace"), "job": opt("openlineage_job")}
    if opt("no_openlineage"):
        if opt("openlineage") or any(named.values()):
            raise InputError(
                "--no-openlineage turns OpenLineage events off: give it without --openlineage "
                "and its options",
                item_kind="option",
            )
        return False
    if not opt("openlineage") and not any(named.values()):
        return None
    return OpenLineage(**{k: v for k, v in named.items() if v is not None})


def pair_values(pairs: Sequence[str] | None, option: str) -> list[tuple[str, str]]:
    """``KEY=VALUE`` options as pairs; one without ``=`` or a key stops the command.

    >>> pair_values(["a=1", "b=x=y"], "--conf")
    [('a', '1'), ('b', 'x=y')]
    """
    out = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{option} takes KEY=VALUE, not {pair!r}", item_kind="option")
        out.append((key.strip(), value))
    return out


def keys(values: list[str] | None) -> tuple[str, ...]:
    """``--key a,b --key c`` as ``("a", "b", "c")``.

    >>> keys(["a, b", "c"])
    ('a', 'b', 'c')
    """
    return tuple(k.strip() for v in values or () for k in v.split(",") if k.strip())


def data_time_tag(text: str | None) -> dict[str, str]:
    """``--data-time`` as the ``data_time`` tag (checked: an ISO date or time).

    >>> data_time_tag("2026-11-23"), data_time_tag(None)
    ({'data_time': '2026-11-23'}, {})
    """
    return {} if not text else {DATA_TIME: data_time(text)}


def tags(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--tag K=V`` options as a mapping."""
    return dict(pair_values(pairs, "--tag"))


def progress(message: str) -> None:
    """A step of a long command, on stderr with the time."""
    step(message)


def write_json(path: str, document: dict[str, Any]) -> None:
    """``document`` to ``path`` whole or not at all (written beside it, then renamed), so that an
    orchestrator never reads half a result.

    >>> import json, tempfile; folder = tempfile.mkdtemp()
    >>> write_json(f"{folder}/r.json", {"status": "success"})
    >>> json.load(open(f"{folder}/r.json"))
    {'status': 'success'}
    """
    import json

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(temporary, target)


def error_document(command: str, err: BaseException, code: int) -> dict[str, Any]:
    """The ``--json`` result of a command that stopped with ``err`` (exit ``code``)."""
    return {
        "command": command,
        "status": "error",
        "exit_code": code,
        "error": {
            "code": getattr(err, "code", None) if isinstance(err, QualityError) else None,
            "type": type(err).__name__,
            "message": str(getattr(err, "message", err)),
        },
        "quality_py": __version__,
    }
