"""Every read of data by name goes through here: the only module that calls ``spark.table`` or
``spark.read`` (``tests/unit/test_architecture.py`` fails on such a call anywhere else).

Two kinds of name reach Spark, and each has its function:

* **names the operator gave** (a command-line option, an argument of a library call, the
  location of a history, a state store or rule tables, a views file's sources): the person
  running the job chose them, as they would in their own Spark code, so :func:`table` and
  :func:`files` read them as given;
* **names untrusted text wrote** (a ruleset, a dataset check, an import): :func:`reference`
  reads them only through :func:`quality_py.gate.names.reference_name`, that is, only when the
  policy's allowed views hold them.

A feature that reads data must take one of these doors, so a new check that compares with a
table cannot read around the policy by accident.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from quality_py.gate.names import reference_name
from quality_py.model.policy import RulePolicy
from quality_py.model.types import DataFrame, SparkSession

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def reference(spark: SparkSession, name: object, policy: RulePolicy, *, what: str) -> DataFrame:
    """The rows of a view or table that untrusted text names, if the policy allows it (else a
    :class:`~quality_py.errors.DataNameError` naming ``what``, before Spark sees the name).

    >>> from quality_py.model.policy import RulePolicy
    >>> spark.createDataFrame([(1,)], "k int").createOrReplaceTempView("gate_ref")
    >>> reference(spark, "GATE_REF", RulePolicy().with_views("gate_ref"), what="x").count()
    1
    """
    return spark.table(reference_name(name, policy, what=what))


def table(spark: SparkSession, name: str) -> DataFrame:
    """A table or view the operator named (an input, a history, rule tables, a registered view).

    >>> spark.createDataFrame([(1,)], "k int").createOrReplaceTempView("gate_op")
    >>> table(spark, "gate_op").columns
    ['k']
    """
    return spark.table(name)


def files(
    spark: SparkSession,
    fmt: str,
    paths: str | Sequence[str],
    *,
    options: Mapping[str, bool | float | int | str | None] | None = None,
    schema: StructType | str | None = None,
) -> DataFrame:
    """Files or folders the operator named, read as ``fmt`` with ``options`` (and ``schema``).

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> spark.createDataFrame([(1,)], "k int").write.mode("overwrite").parquet(folder)
    >>> files(spark, "parquet", folder).count()
    1
    """
    reader = spark.read.format(fmt)
    for key, value in (options or {}).items():
        reader = reader.option(key, value)
    if schema is not None:
        reader = reader.schema(schema)
    return reader.load(paths if isinstance(paths, str) else list(paths))
