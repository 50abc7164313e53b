"""The columns that tell why a rule fails (issue 56, part 4), read from the project's flights
rules and by hand: a rule over rows counts its key, a lookup the column it tests, and no rule
of the sample counts ``year`` alone unless it compares ``year``."""

from __future__ import annotations

from pathlib import Path

from quality_py.io.yaml_rulesets import load_ruleset
from quality_py.sql.parse import parse_expression
from quality_py.sql.telling import telling_columns

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time",
           "sched_arr_time", "arr_delay", "carrier", "flight", "tailnum", "origin", "dest",
           "air_time", "distance", "hour", "minute", "time_hour"]  # fmt: skip


def _first(suite: object) -> dict[str, tuple[str, ...]]:
    out = {}
    for _, rule in suite.iter_rules():  # type: ignore[attr-defined]
        found = telling_columns(parse_expression(rule.expression), COLUMNS)
        out[rule.name] = found[0] if found else ()
    return out


def test_the_flights_rules_count_what_tells() -> None:
    first = _first(load_ruleset(ROOT / "rulesets" / "flights.yaml"))
    assert first["unique_departure"] == (
        "year", "month", "day", "carrier", "flight", "origin", "sched_dep_time"
    )  # fmt: skip
    assert first["one_departure_per_aircraft_minute"] == (
        "tailnum", "year", "month", "day", "sched_dep_time"
    )  # fmt: skip
    assert first["aircraft_departures_per_day"] == ("tailnum", "year", "month", "day")
    assert first["known_aircraft"] == ("tailnum",)
    assert first["known_airline"] == ("carrier",)
    assert first["known_destination"] == ("dest",)
    assert first["date_in_2013"] == ("year",)  # the rule compares year itself
    assert first["air_time_plausible"] == ("air_time",)
    assert first["punctuality"] == ("arr_delay",)
    assert [n for n, cols in first.items() if cols == ("year",)] == ["date_in_2013"]


def test_order_is_by_kind_then_by_place() -> None:
    tree = parse_expression("hour = sched_dep_time DIV 100 AND minute = 5 AND x(dest, 2)")
    assert telling_columns(tree, COLUMNS) == (("minute",), ("hour",), ("sched_dep_time",),
                                              ("dest",))  # fmt: skip
    assert telling_columns(parse_expression("1 = 1"), COLUMNS) == ()
    # a key column is not named again alone; columns are matched without case
    tree = parse_expression("TAILNUM IS NULL OR count(*) OVER (PARTITION BY tailnum, Day) < 5")
    assert telling_columns(tree, COLUMNS) == (("tailnum", "day"),)


def test_only_the_rules_that_can_be_counted_are_read() -> None:
    from quality_py import Id, Rule, RuleSet, RuleSuite
    from quality_py.actions.top_values import MAX_PAIRS, choose_pairs, telling_of

    # rule 0 reads only a hidden column: it fills nothing, so rules 1..24 fill the 24 pairs
    rules = [Rule(Id(1, 1), "secret > 0")] + [Rule(Id(i, 1), f"c{i} > 0") for i in range(2, 40)]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(1, 1), rules)])
    columns = ["secret", *(f"c{i}" for i in range(2, 40))]
    trees = [parse_expression(r.expression) for r in rules]
    telling = telling_of(suite, trees, columns, ["secret"])
    assert len(telling) == MAX_PAIRS + 1 and telling["1.1"] == ()
    plan = choose_pairs([f"{r.id.id}.1" for r in rules], telling, ["secret"], columns)
    assert [e for _, _, e in plan.pairs] == [(f"c{i}",) for i in range(2, 2 + MAX_PAIRS)]
