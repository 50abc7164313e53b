"""One ruleset, read once: everything a YAML ruleset file or a set of rule tables declares.

A YAML file is read and parsed once, and every section (the suite, dataset checks, anomaly
checks, SQL checks, error rates) is built from that one tree; rule tables hold the suite only.
The command line and a notebook call the same loader; running a ruleset lives with the runs
(:func:`quality_py.jobs.run_ruleset`, :class:`quality_py.jobs.QualityJob`):

.. code-block:: python

    from quality_py import load_ruleset_file, run_ruleset

    ruleset = load_ruleset_file("rulesets/flights.yaml")
    run = run_ruleset(ruleset, df, "2024-05", history=repository, tags={"month": "2024-05"})
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.sql_checks import SqlCheck
from quality_py.dataset.checks import Check
from quality_py.errors import QualityError
from quality_py.gate import files
from quality_py.history.anomaly_checks import AnomalyCheck
from quality_py.io.text_places import TextPlace, finding_place, text_places
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite
from quality_py.model.types import SparkSession
from quality_py.validation.report import Finding


@dataclass(frozen=True, slots=True, kw_only=True)
class RulesetFile:
    """The sections of one ruleset (absent sections are empty).

    >>> ruleset = loads_ruleset_file('''
    ... suite: {id: 1}
    ... rule_sets: [{id: 5, rules: [{id: 9, expression: "a > 0"}]}]
    ... sql_checks: [{name: some rows, sql: count(*) > 0, on: valid}]
    ... error_rates: {run: 0.1}
    ... ''')
    >>> ruleset.suite.rule_count, len(ruleset.sql_checks), ruleset.error_rates.run
    (1, 1, 0.1)
    """

    suite: RuleSuite
    checks: tuple[Check, ...] = ()
    anomaly_checks: tuple[AnomalyCheck, ...] = ()
    sql_checks: tuple[SqlCheck, ...] = ()
    error_rates: ErrorRates | None = None
    origin: str = "<string>"
    #: the ``${NAME}`` variables the file uses, in the order first met (their values are in
    #: the sections: substitution happens as the file is read)
    variables: tuple[str, ...] = ()
    #: where each rule's and lambda's text stands in the file (:mod:`quality_py.io.text_places`)
    places: Mapping[tuple[str, Id, str], TextPlace] = field(
        default_factory=dict, compare=False, repr=False
    )

    @contextmanager
    def locating(self) -> Iterator[None]:
        """Errors about a rule or lambda of this file, raised inside, carry the place of its
        text in the file (``QualityError.place``).

        >>> from quality_py.sql.compiler import compile_suite
        >>> ruleset = loads_ruleset_file("suite: {id: 1}\\nrule_sets: [{id: 5, rules: "
        ...     "[{id: 9, expression: 'a >'}]}]", "orders.yaml")
        >>> try:
        ...     with ruleset.locating():
        ...         compile_suite(ruleset.suite)
        ... except QualityError as err:
        ...     print(err.place)
        orders.yaml:2:52
        """
        try:
            yield
        except QualityError as err:
            if err.place is None and err.item_id is not None:
                found = Finding("", err.item_kind, err.item_id, "", err.span, err.source)
                err.place = self.place_of(found)
            raise

    def place_of(self, finding: Finding) -> str | None:
        """``file:line:col`` of what ``finding`` is about, when the file holds its text (for
        many findings, build the lookup once with :meth:`locator`).

        >>> ruleset = loads_ruleset_file("suite: {id: 1}\\nrule_sets: [{id: 5, rules: "
        ...     "[{id: 9, expression: 'a >'}]}]", "orders.yaml")
        >>> from quality_py.validation import validate
        >>> [ruleset.place_of(f) for f in validate(ruleset.suite).errors]  # the '>' of 'a >'
        ['orders.yaml:2:52']
        """
        return self.locator()(finding)

    def locator(self) -> Callable[[Finding], str | None]:
        """:meth:`place_of`, with the suite's texts gathered once.

        >>> loads_ruleset_file("suite: {id: 1}").locator()(Finding("x", "rule", None, "m"))
        """
        texts = {}
        for _, rule in self.suite.iter_rules():
            texts[("rule", rule.id, "expression")] = rule.expression
            if rule.filter is not None:
                texts[("rule", rule.id, "filter")] = rule.filter
        for lam in self.suite.lambdas:
            texts[("lambda", lam.id, "expression")] = lam.expression
        return finding_place(self.places, texts)


def loads_ruleset_file(
    text: str, origin: str = "<string>", variables: Mapping[str, str] | None = None
) -> RulesetFile:
    """Every section of YAML ruleset text, from one parse.

    >>> loads_ruleset_file("suite: {id: 3, version: 2}", "inline").suite.id
    Id(3, 2)
    """
    from quality_py.io.ruleset_sections import (
        anomalies_from_node,
        error_rates_from_node,
        section,
        sql_checks_from_node,
    )
    from quality_py.io.yaml_rulesets import compose_ruleset, suite_and_checks

    used: list[str] = []
    root = compose_ruleset(text, origin, variables, used)
    suite, checks = suite_and_checks(root, text, origin)
    return RulesetFile(
        suite=suite,
        checks=checks,
        anomaly_checks=anomalies_from_node(section(root, "anomalies"), origin),
        sql_checks=sql_checks_from_node(section(root, "sql_checks"), origin),
        error_rates=error_rates_from_node(section(root, "error_rates"), origin),
        origin=origin,
        variables=tuple(used),
        places=text_places(root, text, origin, suite),
    )


def is_yaml(source: str | Path) -> bool:
    """Whether ``source`` names a YAML ruleset (else it names rule tables)."""
    return str(source).lower().endswith((".yaml", ".yml"))


def load_ruleset_file(
    source: str | Path,
    *,
    spark: SparkSession | None = None,
    suite: str | None = None,
    others: dict[str, str | None] | None = None,
    variables: Mapping[str, str] | None = None,
) -> RulesetFile:
    """The ruleset of a YAML file (read once) or of rule tables (files on this machine read
    here, others by ``spark``; ``suite`` picks one, ``others`` names the lambdas/outputs/meta
    rule sets tables).

    >>> ruleset = load_ruleset_file("rulesets/flights.yaml")
    >>> ruleset.suite.rule_count > 0 and len(ruleset.checks) > 0
    True
    """
    if is_yaml(source):
        path = Path(source)
        return loads_ruleset_file(files.read_text(path), str(path), variables)
    from quality_py.io.rule_sources import read_placed_suite

    read, places = read_placed_suite(spark, str(source), suite, others)
    return RulesetFile(suite=read, origin=str(source), places=places)
