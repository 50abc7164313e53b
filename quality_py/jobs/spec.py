"""What a quality job asks for, as frozen values: the ruleset, the input, the reference data, the
outputs, the history and the Spark to use. :class:`~quality_py.jobs.job.QualityJob` adds the
calls (``prepare``, ``run``) and the readers (``from_dict``, ``from_yaml``); every value is
checked when it is built, naming the field, so a job that was built can be run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from quality_py.actions.flags import QUARANTINE_DETAIL
from quality_py.alerts import alert_kind
from quality_py.alerts.delivery import Delivery, checked_url
from quality_py.dataset.store import StateStoreError
from quality_py.dataset.table_state import TableState, parse_partition
from quality_py.errors import InputError, ModelError
from quality_py.io.rule_sources import needs_spark_to_read
from quality_py.io.ruleset_file import RulesetFile, is_yaml
from quality_py.lineage.openlineage import OpenLineage
from quality_py.model.types import DataFrame
from quality_py.outputs import OUTPUT_FORMATS, PUBLISH_MODES

if TYPE_CHECKING:
    from quality_py.actions.notify import Notifier

#: What an input may be read as (else by its suffix).
INPUT_FORMATS = ("parquet", "csv", "json", "delta", "orc")
LAYOUTS = ("map", "compact")


def _problem(field_name: str, message: str) -> InputError:
    return InputError(f"job field {field_name!r}: {message}", item_kind="job")


def _text(value: object, name: str, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value.strip():
        raise _problem(name, f"expected a non-empty text, not {value!r}")


def _texts(value: object, name: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise _problem(name, f"expected a list of texts, not {value!r}")
    return tuple(items)


def _pairs(value: object, name: str) -> tuple[tuple[str, str], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    try:
        pairs = tuple((k, v) for k, v in items)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise _problem(name, f"expected a mapping of names to texts, not {value!r}") from None
    for key, item in pairs:
        if not isinstance(key, str) or not key or not isinstance(item, str | int | float):
            raise _problem(name, f"{key!r}: {item!r} is no name and text")
    return tuple((k, str(v)) for k, v in pairs)


def _choice(value: object, name: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise _problem(name, f"{value!r} is none of {', '.join(choices)}")


@dataclass(frozen=True, kw_only=True)
class Outputs:
    """Where a job writes and how: a quality run (``valid``, ``quarantine``, ``stats``) or the
    data with its data-quality column (``output``).

    >>> Outputs(valid="out/valid").quality_run, Outputs(output="out/checked").quality_run
    (True, False)
    """

    valid: str | None = None
    quarantine: str | None = None
    stats: str | None = None
    output: str | None = None
    format: str = "auto"
    publish: str = "atomic"
    quarantine_detail: str | None = None  # the form the quarantine holds, else names

    def __post_init__(self) -> None:
        for name in ("valid", "quarantine", "stats", "output"):
            _text(getattr(self, name), f"outputs.{name}")
        _choice(self.format, "outputs.format", OUTPUT_FORMATS)
        _choice(self.publish, "outputs.publish", PUBLISH_MODES)
        if self.quarantine_detail is not None:
            _choice(self.quarantine_detail, "outputs.quarantine_detail", QUARANTINE_DETAIL)
        if self.output and self.quality_run:
            raise _problem("outputs", "give output, or valid/quarantine/stats, not both")

    @property
    def quality_run(self) -> bool:
        """Whether these are a quality run's outputs."""
        return bool(self.valid or self.quarantine or self.stats)

    def places(self) -> tuple[tuple[str, str], ...]:
        """``(name, place)`` of each output given.

        >>> Outputs(valid="v", stats="s").places()
        (('valid', 'v'), ('stats', 's'))
        """
        named = ("valid", "quarantine", "stats", "output")
        return tuple((n, getattr(self, n)) for n in named if getattr(self, n))


@dataclass(frozen=True, kw_only=True)
class SparkSettings:
    """The Spark a job runs on when none is given to it: a Spark Connect ``remote``, a local
    ``master``, else what the environment supplies (``local[2]`` on a bare machine); ``conf``
    settings for it."""

    master: str | None = None
    remote: str | None = None
    conf: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        _text(self.master, "spark.master")
        _text(self.remote, "spark.remote")
        object.__setattr__(self, "conf", _pairs(self.conf, "spark.conf"))


@dataclass(frozen=True, kw_only=True)
class JobSpec:
    """The fields of a quality job (documented on :class:`~quality_py.jobs.job.QualityJob`)."""

    ruleset: str | RulesetFile | None = None
    input: str | DataFrame | None = None
    format: str | None = None
    schema: str | None = None
    where: str | None = None
    views: tuple[tuple[str, str], ...] = ()
    views_file: str | None = None
    suite: str | None = None
    lambdas: str | None = None
    output_expressions: str | None = None
    meta_rule_sets: str | None = None
    variables: tuple[tuple[str, str], ...] = ()
    outputs: Outputs = field(default_factory=Outputs)
    history: str | None = None
    #: where the table the input is a partition of keeps its partitions' states (a folder or
    #: filesystem URI), and which partition the input is (``KEY=VALUE[,KEY=VALUE]``)
    table_state: str | None = None
    partition: str | None = None
    #: with a table state: the name the rules give the table itself in ``in_reference`` (a
    #: foreign key into the table, answered from its key indexes; allowed to the rules)
    table_view: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    notify: tuple[str, ...] = ()
    webhooks: tuple[str, ...] = ()
    #: ``KIND=TARGET`` alert settings (``slack=ENV_VAR``, ``email=ops@example.com``, ...)
    alerts: tuple[str, ...] = ()
    #: the report site's URL, which alerts link to
    report_url: str | None = None
    #: when the alerts are sent (``problems``, ``failure``, ``always`` or ``change``: one alert
    #: per incident, decided from the history) and, with ``change``, how often a lasting
    #: problem is alerted again (``1 day``)
    alert_when: str = "problems"
    alert_every: str | None = None
    notifiers: tuple[Notifier, ...] = ()
    #: the run's OpenLineage events (docs/lineage.md): ``true``, a mapping of
    #: :class:`~quality_py.OpenLineage`'s fields, or ``false`` (none, even with
    #: ``OPENLINEAGE_URL`` set); left out, ``OPENLINEAGE_URL`` in the environment turns them on
    openlineage: OpenLineage | bool | None = None
    keys: tuple[str, ...] = ()
    hide_columns: tuple[str, ...] = ()
    run_id: str | None = None
    name: str = "DataQuality"
    layout: str = "map"
    spark: SparkSettings = field(default_factory=SparkSettings)
    strict: bool = False

    def __post_init__(self) -> None:
        if self.ruleset is not None and not isinstance(self.ruleset, RulesetFile):
            _text(self.ruleset, "ruleset")
        if self.input is not None and not isinstance(self.input, str):
            if not hasattr(self.input, "sparkSession"):
                raise _problem(
                    "input", f"expected a path, a table or a DataFrame, not {self.input!r}"
                )
        elif self.input is not None:
            _text(self.input, "input")
        if self.format is not None:
            _choice(self.format, "format", INPUT_FORMATS)
        for name in ("schema", "where", "views_file", "suite", "lambdas", "output_expressions",
                     "meta_rule_sets", "history", "run_id", "name", "report_url",
                     "table_state", "partition", "table_view"):  # fmt: skip
            _text(getattr(self, name), name, optional=name != "name")
        for name in ("views", "variables", "tags"):
            object.__setattr__(self, name, _pairs(getattr(self, name), name))
        for name in ("notify", "webhooks", "alerts", "keys", "hide_columns"):
            object.__setattr__(self, name, _texts(getattr(self, name), name))
        object.__setattr__(self, "notifiers", tuple(self.notifiers))
        for alert in self.alerts:
            try:
                alert_kind(alert)
            except ModelError as err:
                raise _problem("alerts", err.message) from None
        try:
            Delivery.checked("job", self.alert_when, 30, 3, 1, self.alert_every)
        except ModelError as err:
            which = "alert_every" if self.alert_every else "alert_when"
            raise _problem(which, err.message) from None
        for name, urls in (("webhooks", self.webhooks), ("report_url", [self.report_url])):
            for url in (u for u in urls if u is not None):
                try:  # checked where it is read, before anything starts
                    checked_url(url, what=name)
                except ModelError as err:
                    raise _problem(name, err.message) from None
        _choice(self.layout, "layout", LAYOUTS)
        self._check_table_state()
        object.__setattr__(self, "openlineage", _openlineage(self.openlineage))
        if not isinstance(self.outputs, Outputs) or not isinstance(self.spark, SparkSettings):
            raise _problem("outputs", "outputs and spark are Outputs and SparkSettings values")
        if not isinstance(self.strict, bool):
            raise _problem("strict", f"expected true or false, not {self.strict!r}")

    def _check_table_state(self) -> None:
        """A table state names its location and the input's partition, both or neither."""
        if (self.table_state is None) != (self.partition is None):
            given, missing = (
                ("table_state", "partition")
                if self.partition is None
                else ("partition", "table_state")
            )
            raise _problem(
                missing,
                f"{given} is given without {missing}: a table state is where the table's "
                "partition states are kept (table_state) and which partition the input is "
                "(partition, KEY=VALUE)",
            )
        if self.partition is not None:
            try:
                parse_partition(self.partition)
            except StateStoreError as err:
                raise _problem("partition", err.message) from None
        if self.table_view is not None:
            if self.table_state is None:
                raise _problem(
                    "table_view", "names the table itself, so it needs a table_state and partition"
                )
            try:
                TableState(self.table_state, self.partition or "", view=self.table_view)
            except StateStoreError as err:
                raise _problem("table_view", err.message) from None

    @property
    def table(self) -> TableState | None:
        """The table state the job's run keeps (None without one)."""
        if self.table_state is None or self.partition is None:
            return None
        return TableState(self.table_state, self.partition, view=self.table_view)

    @property
    def from_tables(self) -> bool:
        """Whether the ruleset is rule tables, not a YAML file."""
        return isinstance(self.ruleset, str) and not is_yaml(self.ruleset)

    @property
    def tables_need_spark(self) -> bool:
        """Whether the rule tables are read with Spark (a catalog table, an object store, a
        Delta folder); CSV, parquet and JSON files on this machine are read without it."""
        return (
            isinstance(self.ruleset, str)
            and self.from_tables
            and needs_spark_to_read(self.ruleset, self.others)
        )

    @property
    def needs_spark(self) -> bool:
        """The one answer to "does this job need Spark?": to read rule tables kept where only
        Spark reads, data (an input, a schema, reference views) or a history kept in a table."""
        return self.needs_spark_with(schema=True)

    def needs_spark_with(self, *, schema: bool) -> bool:
        """:attr:`needs_spark`, where ``schema=False`` reads ``--schema`` and the reference
        views' columns without Spark (a static check of names: ``validate``)."""
        views = self.views or self.views_file
        data = self.input is not None or (schema and (self.schema or views))
        table_history = bool(self.history and self.history.startswith("table:"))
        return bool(self.tables_need_spark or data or self.outputs.places() or table_history)

    @property
    def others(self) -> dict[str, str | None]:
        """The tables beside a rules table (lambdas, output expressions, meta rule sets)."""
        return {
            "lambdas": self.lambdas,
            "outputs": self.output_expressions,
            "meta_rule_sets": self.meta_rule_sets,
        }

    @property
    def input_text(self) -> str | None:
        """The input as text (a DataFrame input has none)."""
        return self.input if isinstance(self.input, str) else None


def _openlineage(value: object) -> OpenLineage | bool | None:
    """A job's ``openlineage`` as a setting (``true``: the defaults; a mapping: its fields), or
    ``false`` / None.

    >>> _openlineage({"namespace": "sales"}).namespace, _openlineage(True).namespace
    ('sales', 'quality_py')
    """
    if value is None or value is False or isinstance(value, OpenLineage):
        return value
    if value is True:
        return OpenLineage()
    if not isinstance(value, Mapping):
        raise _problem("openlineage", f"expected true, false or a mapping, not {value!r}")
    known = {f.name for f in fields(OpenLineage)}
    unknown = sorted(str(k) for k in value if k not in known)
    if unknown:
        raise _problem(
            "openlineage", f"unknown field {unknown[0]!r}; known: {', '.join(sorted(known))}"
        )
    try:
        return OpenLineage(**value)
    except ModelError as err:
        raise _problem("openlineage", err.message) from None


#: The fields a job's dict or YAML may hold (``outputs`` and ``spark`` are mappings).
JOB_KEYS = tuple(f.name for f in fields(JobSpec) if f.name != "notifiers")


def job_fields(document: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """The constructor arguments of a job's dict (``outputs`` and ``spark`` mappings built,
    ``input`` as text or ``{path|table|sample: ..., format: ...}``); an unknown key is refused
    naming it and the closest known one.

    >>> job_fields({"input": {"table": "main.s.t"}, "outputs": {"valid": "v"}}, "job")["input"]
    'table:main.s.t'
    """
    import difflib

    if not isinstance(document, Mapping):
        raise InputError(
            f"{origin}: a job is a mapping of fields, not {document!r}", item_kind="job"
        )
    out: dict[str, Any] = {}
    for key, value in document.items():
        if key not in JOB_KEYS:
            close = difflib.get_close_matches(str(key), JOB_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(
                f"{origin}: unknown job field {key!r}{hint}; known: {', '.join(JOB_KEYS)}",
                item_kind="job",
            )
        out[key] = value
    if isinstance(out.get("input"), Mapping):
        out.update(_input_fields(out.pop("input"), origin))
    for key, cls in (("outputs", Outputs), ("spark", SparkSettings)):
        if key in out:
            out[key] = _nested(cls, out[key], key, origin)
    return out


def _input_fields(spec: Mapping[str, Any], origin: str) -> dict[str, Any]:
    kinds = [k for k in ("path", "table", "sample") if k in spec]
    extra = set(spec) - {"path", "table", "sample", "format"}
    if len(kinds) != 1 or extra:
        raise InputError(
            f"{origin}: input is one of path, table or sample (and a format), not {dict(spec)}",
            item_kind="job",
        )
    kind = kinds[0]
    prefix = "" if kind == "path" else f"{kind}:"
    out: dict[str, Any] = {"input": f"{prefix}{spec[kind]}"}
    if "format" in spec:
        out["format"] = spec["format"]
    return out


def _nested(cls: type, value: object, key: str, origin: str) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise InputError(f"{origin}: {key} is a mapping, not {value!r}", item_kind="job")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise InputError(
            f"{origin}: unknown {key} field {unknown[0]!r}; known: {', '.join(sorted(known))}",
            item_kind="job",
        )
    return cls(**value)
