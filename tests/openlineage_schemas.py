"""Validate an OpenLineage event (as JSON) against the specification's own JSON Schemas kept in
``tests/fixtures/openlineage`` (their README says where they come from): the event against
``OpenLineage.json``'s ``RunEvent``, and every facet against the schema its ``_schemaURL``
names. A facet naming a schema that is not kept here is an error too."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openlineage"


@cache
def _registry() -> Any:
    from referencing import Registry, Resource

    resources = []
    for path in sorted(FIXTURES.glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def _validate(instance: Any, url: str) -> list[str]:
    from jsonschema import Draft202012Validator

    base = url.partition("#")[0]
    registry = _registry()
    try:
        registry.contents(base)
    except Exception:
        return [f"no schema kept for {url}"]
    schema = {"$ref": url}
    validator = Draft202012Validator(
        schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return [f"{url}: {e.json_path}: {e.message}" for e in validator.iter_errors(instance)]


def _facets(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    groups = [event.get("run", {}).get("facets"), event.get("job", {}).get("facets")]
    for dataset in [*event.get("inputs", []), *event.get("outputs", [])]:
        groups += [dataset.get("facets"), dataset.get("inputFacets"), dataset.get("outputFacets")]
    for group in groups:
        for name, facet in (group or {}).items():
            found.append((name, facet))
    return found


def event_errors(event: dict[str, Any]) -> list[str]:
    """Every way ``event`` departs from the specification (empty: it conforms)."""
    errors = _validate(event, "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent")
    for name, facet in _facets(event):
        url = facet.get("_schemaURL", "")
        errors += [f"facet {name}: {e}" for e in _validate(facet, url)]
    return errors
