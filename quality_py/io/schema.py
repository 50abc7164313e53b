"""The ruleset format's keys, stated once: the YAML readers take their allowed keys from here, and
the published JSON Schema (``ruleset.schema.json`` in this package) is generated from the same
statement, the dataset checks' method signatures and the anomaly strategies' fields. A test keeps
the published file equal to :func:`ruleset_schema`, so editors and the reader cannot disagree.

Editors that speak the YAML language server (VS Code, JetBrains, Neovim) complete keys and mark
errors inline with this line at the top of a ruleset::

    # yaml-language-server: $schema=<path or URL of ruleset.schema.json>

``quality-py schema`` prints where the installed file is.

>>> KEYS["rule"] >= {"expression", "name", "filter", "active"}
True
>>> did_you_mean("expresion", KEYS["rule"])
" (did you mean 'expression'?)"
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path
from typing import Any

from quality_py.dataset.checks import Check
from quality_py.dataset.constraints import ConstraintBuilders
from quality_py.errors import did_you_mean
from quality_py.history.anomalies import STRATEGIES
from quality_py.model.ids import NAME_PATTERN

__all__ = ["CONSTRAINTS", "KEYS", "SCHEMA_FILE", "did_you_mean", "ruleset_schema", "schema_text"]

#: Where the published schema is (package data).
SCHEMA_FILE = Path(__file__).with_name("ruleset.schema.json")
SCHEMA_ID = "https://quality-py.invalid/ruleset.schema.json"

#: Every public builder method of Check is a constraint name; nothing else is callable from YAML.
CONSTRAINTS = frozenset(
    name
    for builders in ConstraintBuilders.__mro__
    for name, member in vars(builders).items()
    if not name.startswith("_") and inspect.isfunction(member)
)

#: The keys of every part of a ruleset: the readers refuse any other.
KEYS: dict[str, frozenset[str]] = {
    "ruleset": frozenset(
        {
            "suite",
            "lambdas",
            "outputs",
            "rule_sets",
            "meta_rule_sets",
            "checks",
            "anomalies",
            "sql_checks",
            "error_rates",
        }
    ),
    "suite": frozenset({"id", "version", "probable_pass", "description", "name"}),
    "lambda": frozenset({"name", "id", "version", "expression", "description"}),
    "output": frozenset({"id", "version", "expression", "description"}),
    "output reference": frozenset({"id", "version"}),
    "rule set": frozenset({"id", "version", "rules", "description", "name"}),
    "rule": frozenset(
        {
            "id",
            "version",
            "expression",
            "description",
            "owner",
            "tags",
            "salience",
            "output",
            "action_if_failed",
            "name",
            "filter",
            "active",
            "warn_if",
            "fail_if",
            "report_columns",
        }
    ),
    "meta rule set": frozenset({"id", "version", "column_filter", "expression", "description"}),
    "check": frozenset({"level", "description", "action_if_failed", "constraints"}),
    "anomaly check": frozenset({"name", "metric", "level", "tags", "window", "strategy"}),
    "sql check": frozenset({"name", "sql", "on", "assertion", "level"}),
    "error rates": frozenset({"run", "rules", "inclusive"}),
}


# -- the JSON Schema ---------------------------------------------------------------------------

_VAR = {"type": "string", "pattern": r"\$\{"}  # a ${NAME} variable stands for any scalar
_INT = {"anyOf": [{"type": "integer"}, _VAR]}
_NUMBER = {"anyOf": [{"type": "number"}, _VAR]}
_TEXT = {"type": "string", "minLength": 1}
_TOLERANCE = {  # quality_py.model.tolerance
    "anyOf": [{"type": "string", "pattern": r"^\s*>=?\s*[0-9]+(\.[0-9]+)?\s*%?\s*$"}, _VAR],
    "description": "'> 0.5 %' (a share of the run's rows) or '> 1000' (failing rows)",
}
_EXPRESSION = {  # read as the raw scalar text: `expression: true` is the SQL true
    "anyOf": [_TEXT, {"type": "number"}, {"type": "boolean"}],
    "description": "Spark SQL, read as written",
}
_NAME = {"anyOf": [{"type": "string", "pattern": f"^{NAME_PATTERN.pattern}$"}, _VAR]}


def _item(
    kind: str, props: dict[str, Any], required: list[str], named: bool = False
) -> dict[str, Any]:
    assert set(props) == KEYS[kind], (kind, sorted(set(props) ^ KEYS[kind]))
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if named:  # an id, or a name to derive it from
        out["anyOf"] = [{"required": ["id", *required]}, {"required": ["name", *required]}]
    elif required:
        out["required"] = required
    return out


def _ids(named: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"id": _INT, "version": _INT}
    if named:
        out["name"] = _NAME
    return out


def _constraint_args(method: Any) -> dict[str, Any]:
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    by_name = {
        "type": "object",
        "properties": {p.name: {} for p in params},
        "required": [p.name for p in params if p.default is inspect.Parameter.empty],
        "additionalProperties": False,
    }
    return {
        "anyOf": [by_name, {"type": "array", "maxItems": len(params)}, {"not": {"type": "object"}}]
    }


def _checks() -> dict[str, Any]:
    constraint = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"enum": sorted(CONSTRAINTS)},
        "properties": {
            name: _constraint_args(getattr(Check, name)) for name in sorted(CONSTRAINTS)
        },
    }
    return _item(
        "check",
        {
            "level": {"enum": ["error", "warning"]},
            "description": _TEXT,
            "action_if_failed": {"enum": ["fail", "ignore"]},
            "constraints": {"type": "array", "items": constraint},
        },
        [],
    )


def _anomalies() -> dict[str, Any]:
    own = {
        "name": _TEXT,
        "metric": _TEXT,
        "level": {"enum": ["error", "warning"]},
        "tags": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
        "window": _INT,
        "strategy": {"enum": sorted(STRATEGIES)},
    }
    assert set(own) == KEYS["anomaly check"]
    return {
        "type": "object",
        "required": ["metric", "strategy"],
        "oneOf": [
            {
                "properties": {
                    **own,
                    "strategy": {"const": name},
                    **{f.name: {} for f in dataclasses.fields(cls)},
                },
                "additionalProperties": False,
            }
            for name, cls in sorted(STRATEGIES.items())
        ],
    }


_ERROR_RATES_PROPS = {
    "run": _NUMBER,
    "rules": {"type": "object", "additionalProperties": _NUMBER},
    "inclusive": {"type": "boolean"},
}


def _sections() -> dict[str, Any]:
    """The schema of each top-level key of a ruleset."""
    described = {"description": _TEXT}
    rule = _item(
        "rule",
        {
            **_ids(),
            "expression": _EXPRESSION,
            "filter": {**_EXPRESSION, "description": "rows where it is not true: DisabledRule"},
            "active": {"anyOf": [{"type": "boolean"}, _VAR]},
            "salience": _INT,
            "output": _item("output reference", _ids(False), ["id"]),
            "action_if_failed": {"enum": ["ignore", "drop", "fail"]},
            "warn_if": {**_TOLERANCE, "description": "past it, the run warns"},
            "fail_if": {**_TOLERANCE, "description": "past it, the run fails"},
            "report_columns": {
                "type": "array",
                "items": _TEXT,
                "description": "the columns its top failing values count, as one value",
            },
            "owner": _TEXT,
            "tags": {"type": "array", "items": _TEXT},
            **described,
        },
        ["expression"],
        named=True,
    )
    sections: dict[str, Any] = {
        "suite": _item("suite", {**_ids(), "probable_pass": _NUMBER, **described}, [], named=True),
        "lambdas": {
            "type": "array",
            "items": _item(
                "lambda", {**_ids(), "expression": _EXPRESSION, **described}, ["name", "expression"]
            ),
        },
        "outputs": {
            "type": "array",
            "items": _item(
                "output",
                {**_ids(False), "expression": _EXPRESSION, **described},
                ["id", "expression"],
            ),
        },
        "rule_sets": {
            "type": "array",
            "items": _item(
                "rule set",
                {**_ids(), "rules": {"type": "array", "items": rule}, **described},
                [],
                named=True,
            ),
        },
        "meta_rule_sets": {
            "type": "array",
            "items": _item(
                "meta rule set",
                {**_ids(False), "column_filter": _TEXT, "expression": _EXPRESSION, **described},
                ["id", "column_filter", "expression"],
            ),
        },
        "checks": {"type": "array", "items": _checks()},
        "anomalies": {"type": "array", "items": _anomalies()},
        "sql_checks": {
            "type": "array",
            "items": _item(
                "sql check",
                {
                    "name": _TEXT,
                    "sql": _TEXT,
                    "on": {"type": "string"},
                    "assertion": _TEXT,
                    "level": {"enum": ["error", "warning"]},
                },
                ["sql"],
            ),
        },
        "error_rates": _item("error rates", _ERROR_RATES_PROPS, []),
    }
    assert set(sections) == KEYS["ruleset"]
    return sections


def ruleset_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a YAML ruleset, as published in this package.

    >>> schema = ruleset_schema()
    >>> sorted(schema["properties"]) == sorted(KEYS["ruleset"])
    True
    """
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "quality_py ruleset",
        "description": "Rules, lambdas, outputs, dataset checks, anomaly checks, SQL checks and "
        "error rates of one suite (docs/rules.md, docs/writing-rules.md).",
        "type": "object",
        "required": ["suite"],
        "properties": _sections(),
        "additionalProperties": False,
    }


def schema_text() -> str:
    """The published file's text: :func:`ruleset_schema` as indented JSON."""
    return json.dumps(ruleset_schema(), indent=1, sort_keys=True) + "\n"
