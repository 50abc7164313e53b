"""What a YAML ruleset declares for judging runs over time: anomaly checks (``anomalies``),
SQL checks (``sql_checks``) and alert thresholds (``error_rates``).

``sql_checks`` entries are :class:`~quality_py.actions.sql_checks.SqlCheck` fields (``name``,
``sql``, ``on``, ``assertion``, ``level``); ``error_rates`` is ``{run: share, rules: {id:
share}}`` (:class:`~quality_py.actions.judging.ErrorRates`).

Anomaly checks are judged against the metrics history of the runs (``run --history``).

Each entry names the metric (see :func:`quality_py.history.anomaly_checks.metric_key`), the
strategy and its parameters, and optionally a ``name``, a ``level`` (``error`` fails the run
before anything is published, ``warning`` reports it), the ``tags`` the earlier runs must carry,
and a ``window`` of earlier runs.

.. code-block:: yaml

    anomalies:
      - name: flights per month
        metric: input_rows
        strategy: relative_rate_of_change
        max_decrease: 0.7          # may not drop more than 30% from the previous month
      - metric: rule:101           # the share of rows failing rule 101
        strategy: online_normal
        upper_factor: 3
        level: warning
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.sql_checks import SqlCheck, sql_checks_from_specs
from quality_py.errors import ModelError, QualityError
from quality_py.gate import files
from quality_py.history.anomalies import strategy_from_dict
from quality_py.history.anomaly_checks import AnomalyCheck
from quality_py.io.yaml_checks import _children, _error, refuse_aliases

_OWN_KEYS = {"name", "metric", "level", "tags", "window", "strategy"}


def anomalies_from_node(node: yaml.Node | None, origin: str) -> tuple[AnomalyCheck, ...]:
    """The anomaly checks of an ``anomalies:`` node."""
    if node is None:
        return ()
    specs = files.yaml_loader()("").construct_document(node)
    if not specs:
        return ()
    if not isinstance(specs, list):
        raise _error(origin, node, "'anomalies' must be a list")
    out = []
    for i, (spec, child) in enumerate(zip(specs, _children(node), strict=True)):
        where = f"anomaly check {i + 1}"
        if not isinstance(spec, dict) or "metric" not in spec or "strategy" not in spec:
            raise _error(origin, child, f"{where}: a mapping with at least metric and strategy")
        params: dict[str, Any] = {k: v for k, v in spec.items() if k not in _OWN_KEYS}
        try:
            strategy = strategy_from_dict({"strategy": spec["strategy"], **params})
            out.append(
                AnomalyCheck(
                    str(spec["metric"]),
                    strategy,
                    level=str(spec.get("level", "error")),
                    name=None if spec.get("name") is None else str(spec["name"]),
                    tags={str(k): str(v) for k, v in (spec.get("tags") or {}).items()},
                    window=spec.get("window"),
                )
            )
        except ModelError as err:
            at = _value_node(child, getattr(err, "parameter", None)) or child
            raise _error(origin, at, f"{where}: {err.message}") from None
        except (TypeError, ValueError) as err:
            raise _error(origin, child, f"{where}: {err}") from None
    return tuple(out)


def _value_node(mapping: yaml.Node, key: str | None) -> yaml.Node | None:
    """The node of ``key``'s value in a mapping node (where a refused parameter is written)."""
    if key is None or not isinstance(mapping, yaml.MappingNode):
        return None
    return next((v for k, v in mapping.value if k.value == key), None)


def loads_anomalies(text: str, origin: str = "<string>") -> tuple[AnomalyCheck, ...]:
    """The anomaly checks of a YAML ruleset's text (empty when it has none).

    >>> [c.description for c in loads_anomalies('''
    ... anomalies:
    ...   - {metric: input_rows, strategy: relative_rate_of_change, max_decrease: 0.7}
    ... ''')]
    ['rows.run.input_rows by RelativeRateOfChange']
    """
    refuse_aliases(text, origin)
    root = yaml.compose(text, Loader=files.yaml_loader())
    if not isinstance(root, yaml.MappingNode):
        return ()
    return anomalies_from_node(
        next((v for k, v in root.value if k.value == "anomalies"), None), origin
    )


def _top(text: str, origin: str, key: str) -> tuple[yaml.Node | None, object]:
    refuse_aliases(text, origin)
    node = section(yaml.compose(text, Loader=files.yaml_loader()), key)
    return node, _value(node)


def section(root: yaml.Node | None, key: str) -> yaml.Node | None:
    """The node of a top-level section of a composed ruleset (None when absent)."""
    if not isinstance(root, yaml.MappingNode):
        return None
    return next((v for k, v in root.value if k.value == key), None)


def _value(node: yaml.Node | None) -> object:
    return None if node is None else files.yaml_loader()("").construct_document(node)


def loads_sql_checks(text: str, origin: str = "<string>") -> tuple[SqlCheck, ...]:
    """The SQL checks of a YAML ruleset's text.

    >>> [(c.name, c.on) for c in loads_sql_checks(
    ...     "sql_checks: [{name: some rows, sql: count(*) > 0, on: valid}]")]
    [('some rows', 'valid')]
    """
    node, _ = _top(text, origin, "sql_checks")
    return sql_checks_from_node(node, origin)


def sql_checks_from_node(node: yaml.Node | None, origin: str) -> tuple[SqlCheck, ...]:
    """The SQL checks of a ``sql_checks:`` node."""
    specs = _value(node)
    if not specs:
        return ()
    if not isinstance(specs, list) or not all(isinstance(s, dict) for s in specs):
        raise _error(origin, node, "'sql_checks' must be a list of mappings")
    try:
        return sql_checks_from_specs(specs)
    except QualityError as err:
        raise _error(origin, node, err.message) from None


def loads_error_rates(text: str, origin: str = "<string>") -> ErrorRates | None:
    """The alert thresholds of a YAML ruleset's text (None when it has none).

    >>> loads_error_rates("error_rates: {run: 0.1, rules: {101: 0.02}}")
    ErrorRates(run=0.1, rules={'101': 0.02}, inclusive=False)
    """
    node, _ = _top(text, origin, "error_rates")
    return error_rates_from_node(node, origin)


def error_rates_from_node(node: yaml.Node | None, origin: str) -> ErrorRates | None:
    """The alert thresholds of an ``error_rates:`` node (None when absent)."""
    spec = _value(node)
    if spec is None:
        return None
    if not isinstance(spec, dict) or set(spec) - {"run", "rules", "inclusive"}:
        raise _error(
            origin,
            node,
            "'error_rates' takes run: SHARE, rules: {ID: SHARE} and inclusive: true or false",
        )
    assert node is not None  # a value came from it
    if not isinstance(spec.get("inclusive", False), bool):
        raise _error(origin, node, "error_rates: inclusive is true or false")
    try:
        return ErrorRates(spec.get("run"), spec.get("rules") or {}, spec.get("inclusive", False))
    except ModelError as err:
        parameter = str(getattr(err, "parameter", ""))
        at = _value_node(node, parameter) or node
        if parameter.startswith("rules."):
            rules = _value_node(node, "rules")
            at = (_value_node(rules, parameter[len("rules.") :]) if rules else None) or node
        raise _error(origin, at, f"error_rates: {err.message}") from None


def load_anomalies(path: str | Path) -> tuple[AnomalyCheck, ...]:
    """The anomaly checks of a YAML ruleset file (errors name the file, line and column)."""
    p = Path(path)
    return loads_anomalies(files.read_text(p), str(p))
