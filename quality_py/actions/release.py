"""Releasing quarantined rows that the current rules pass (issue 56, part 5).

When upstream fixes a feed, or an analyst fixes a wrong rule, the rows a run dropped stay in its
quarantine. :func:`release_quarantine` re-evaluates the current suite over the rows run ``R``
dropped (``qp_kept_in_valid = false``) **together with R's valid rows** (a uniqueness, group or
keep-one rule compares a released row with the rows it would join), then, in one atomic
publication of both outputs (:mod:`quality_py.outputs.publish`):

* the dropped rows that now fail no ``drop`` rule and no ``fail`` rule are appended to R's valid
  rows (R's partition of a valid output partitioned by run; else the valid output, which must
  hold R's run: the quarantine has no later run);
* R's quarantine partition keeps its rows that were kept in valid as they were, and the dropped
  rows anew: a released row that fails only ``ignore`` rules stays, kept in valid, with its
  current reasons; a row that still fails a ``drop`` rule stays dropped, with its current
  reasons; a row that fails nothing is gone;
* the history gets a ``release`` record (the run, the suite version that released, the counts).

Exactly once: the released rows leave the quarantine in the same publication that adds them to
valid, so a second release finds nothing to move, and a crash leaves both outputs as they were.
Both outputs must be paths published atomically (local or ``file://``, not Delta or tables):
anything else is refused before anything is read. ``where`` releases only the dropped rows
matching a condition (checked by the suite's rule policy, like any rule text); the others stay
as they were. The result says, rule by rule, what would move and what holds the rest back
(the rules that dropped the rows, as the quarantine names them, and the current rules that
still fail them): ``dry_run`` says it and moves nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from quality_py.actions.flags import ANY, DROP, FAILED_COLUMN, failed_rule_names
from quality_py.actions.quarantine_form import quarantine_form
from quality_py.actions.run import run_quality
from quality_py.errors import InputError
from quality_py.history.records import Metric, RunRecord
from quality_py.history.repository import MetricsRepository
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame, SparkSession
from quality_py.outputs.writing import OutputWriter, existing_columns, read_place, run_rows
from quality_py.sql.compiler import filter_sql

#: the column that tells a candidate (a dropped row) from R's valid rows while they are judged
CANDIDATE = "qp_release_candidate"
#: a candidate's failed rules as its quarantine row names them, carried through the judging
HELD = "qp_release_held_by"


@dataclass(frozen=True)
class RuleMove:
    """One rule's part in a release: the dropped rows it had held (as the quarantine names the
    rule), and how many of those the release moves."""

    rule: str
    held: int
    released: int

    def describe(self) -> str:
        """One line for people.

        >>> RuleMove("positive_amount", 4, 3).describe()
        'held by positive_amount: 4 rows, 3 released'
        """
        return f"held by {self.rule}: {_rows(self.held)}, {self.released} released"


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


@dataclass(frozen=True)
class ReleaseResult:
    """What a release moved (or, ``dry_run``, would move) for run ``run_id``."""

    run_id: str
    suite: str
    candidates: int
    released: int
    still_quarantined: int
    dry_run: bool
    #: the rules that had dropped the candidates, each with the rows it held and released
    moves: tuple[RuleMove, ...] = ()
    #: the current rules that still fail candidates, each with the rows it holds back
    held_by: tuple[tuple[str, int], ...] = ()
    #: the condition that chose the candidates among the dropped rows (None: all of them)
    where: str | None = None

    def describe(self) -> str:
        """A line for people, then one a rule: what moves, and what holds the rest back.

        >>> print(ReleaseResult("r1", "1.2", 4, 3, 1, False,
        ...       (RuleMove("positive", 4, 3),), (("positive", 1),)).describe())
        release of run r1 by suite 1.2: 3 of 4 dropped rows released (1 still quarantined)
          held by positive: 4 rows, 3 released
          still held by positive: 1 row
        """
        verb = "would be released" if self.dry_run else "released"
        which = f" matching {self.where}" if self.where else ""
        lines = [
            f"release of run {self.run_id} by suite {self.suite}: {self.released} of "
            f"{self.candidates} dropped rows{which} {verb} ({self.still_quarantined} still "
            "quarantined)",
            *(f"  {m.describe()}" for m in self.moves),
            *(f"  still held by {rule}: {_rows(n)}" for rule, n in self.held_by),
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``--json``).

        >>> ReleaseResult("r1", "1.2", 4, 3, 1, True).to_dict()["released_rows"]
        3
        """
        return {
            "run_id": self.run_id, "suite": self.suite, "dropped_rows": self.candidates,
            "released_rows": self.released, "still_quarantined": self.still_quarantined,
            "dry_run": self.dry_run, "where": self.where,
            "rules": [{"rule": m.rule, "held_rows": m.held, "released_rows": m.released}
                      for m in self.moves],
            "still_held_by": [{"rule": r, "rows": n} for r, n in self.held_by],
        }  # fmt: skip


def _refuse(message: str) -> InputError:
    return InputError(message, item_kind="release")


def _atomic(spark: SparkSession, valid: str, quarantine: str, fmt: str) -> OutputWriter:
    """The writer of both outputs, refused unless it publishes them atomically."""
    writer = OutputWriter({"valid": valid, "quarantine": quarantine}, fmt, "atomic", spark)
    if writer.publication is None:
        raise _refuse(
            f"a release rewrites {valid} and {quarantine} together and needs them published "
            "atomically: local or file:// paths in parquet, orc or json (not Delta or tables, "
            "where one output could change without the other)"
        )
    return writer


def _input_columns(valid: DataFrame) -> list[str]:
    return [c for c in valid.columns if c != "qp_run_id"]


def _judged(
    spark: SparkSession, suite: RuleSuite, run_id: str, valid_rows: DataFrame, dropped: DataFrame
) -> Any:
    """A quality run of the dropped rows, the candidates marked; together with R's valid rows
    when a rule compares rows (a window over a key: a released row meets the rows it would
    join), else alone (a row's result is its own: the valid rows need not be read)."""
    from pyspark.sql import functions as F

    columns = _input_columns(valid_rows)
    reasons = next(c for c in dropped.columns if c in FAILED_COLUMN.values())
    candidates = dropped.select(*columns, F.col(reasons).alias(HELD)).withColumn(
        CANDIDATE, F.lit(True)
    )
    held_back = _held_back(suite)
    alone = run_quality(candidates, held_back, run_id=run_id)
    if not alone.window_keys:
        return alone
    none = F.lit(None).cast(dropped.schema[reasons].dataType)
    both = (
        valid_rows.select(*columns)
        .withColumn(HELD, none)
        .withColumn(CANDIDATE, F.lit(False))
        .unionByName(candidates)
    )
    return run_quality(both, held_back, run_id=run_id)


def _held_back(suite: RuleSuite) -> RuleSuite:
    """``suite`` with every ``fail`` rule that stops a run made a ``drop`` rule: a release
    never stops on one, it holds the rows it fails back in the quarantine."""
    from dataclasses import replace

    sets = [
        replace(rs, rules=[
            replace(r, action_if_failed="drop")
            if r.action_if_failed == "fail" and r.fail_if is None else r
            for r in rs.rules
        ])
        for rs in suite.rule_sets
    ]  # fmt: skip
    return replace(suite, rule_sets=sets)


def _outputs(
    run: Any, valid_rows: DataFrame, stays: DataFrame, detail: str, run_time: Any
) -> tuple[DataFrame, DataFrame, DataFrame]:
    """The released rows, R's new valid rows and R's new quarantine partition (``stays``, the
    rows of R's quarantine that were no candidate, as they were, and the candidates anew)."""
    from pyspark.sql import functions as F

    flagged = run.flagged.where(F.col(CANDIDATE))
    released = flagged.where(f"NOT {DROP}").select(*_input_columns(valid_rows))
    new_valid = valid_rows.unionByName(
        released.withColumn("qp_run_id", F.lit(run.run_id))
        if "qp_run_id" in valid_rows.columns
        else released
    )
    anew = run.quarantine_of(flagged.where(ANY), detail).drop(CANDIDATE, HELD)
    anew = anew.withColumn("qp_run_time", F.lit(run_time).cast("timestamp"))
    return released, new_valid, stays.unionByName(anew.select(*stays.columns))


def _said(column: str, detail: str) -> str:
    """SQL of a quarantine row's failed rule as people read it, in any quarantine form: its
    name, or ``id.version`` of a packed id (``pack_ints``) or of the full form's struct."""
    if detail == "names":
        return column
    if detail == "ids":  # the packed id as text: unpacked by the model (Id.unpack)
        return f"CAST({column} AS STRING)"
    return f"concat(CAST({column}.ruleId AS STRING), '.', CAST({column}.ruleVersion AS STRING))"


def _unpacked(packed: str | None) -> str | None:
    """A packed rule id (as text) as ``id.version``.

    >>> _unpacked(str(Id(101, 2).packed)), _unpacked(None)
    ('101.2', None)
    """
    if packed is None:
        return None
    found = Id.unpack(int(packed))
    return f"{found.id}.{found.version}"


def _moves(run: Any, detail: str) -> tuple[int, tuple[RuleMove, ...], tuple[tuple[str, int], ...]]:
    """The candidates released, and rule by rule the rows each rule that dropped them held and
    now releases and the rows each current rule still fails: one job over the judged
    candidates."""
    from pyspark.sql import functions as F

    flagged = run.flagged.where(F.col(CANDIDATE)).select(
        F.expr(f"NOT {DROP}").alias("moves"), F.expr(ANY).alias("fails"), "*"
    )
    now = run.quarantine_of(flagged.where("fails"), detail).where("NOT qp_kept_in_valid")
    held = flagged.select(F.explode(HELD).alias("r"), "moves").selectExpr(
        "'held' AS kind", f"{_said('r', detail)} AS rule", "moves"
    )
    still = now.select(F.explode(FAILED_COLUMN[detail]).alias("r")).selectExpr(
        "'still' AS kind", f"{_said('r', detail)} AS rule", "false AS moves"
    )
    total = flagged.selectExpr("'total' AS kind", "CAST(NULL AS STRING) AS rule", "moves")
    rows = (
        held.unionByName(still)
        .unionByName(total)
        .groupBy("kind", "rule")
        .agg(F.count("*").alias("n"), F.count_if("moves").alias("released"))
        .collect()
    )
    names = failed_rule_names(run.refs)
    dropping = {  # the rules that keep a row out of valid (an ignore rule only flags it)
        names[i] if detail == "names" else f"{r.rule.id}.{r.rule.version}"
        for i, r in enumerate(run.refs)
        if r.drops_row
    }
    if detail == "ids":
        rows = [{**r.asDict(), "rule": _unpacked(r["rule"])} for r in rows]
    released = sum(int(r["released"]) for r in rows if r["kind"] == "total")
    moves = sorted((RuleMove(r["rule"], int(r["n"]), int(r["released"])) for r in rows
                    if r["kind"] == "held"), key=lambda m: (-m.held, m.rule))  # fmt: skip
    still_held = sorted(((r["rule"], int(r["n"])) for r in rows
                         if r["kind"] == "still" and r["rule"] in dropping),
                        key=lambda kv: (-kv[1], kv[0]))  # fmt: skip
    return released, tuple(moves), tuple(still_held)


def release_quarantine(
    spark: SparkSession,
    suite: RuleSuite,
    run_id: str,
    valid: str,
    quarantine: str,
    *,
    format: str = "parquet",
    history: MetricsRepository | None = None,
    dry_run: bool = False,
    where: str | None = None,
) -> ReleaseResult:
    """Release the rows run ``run_id`` dropped that ``suite`` now passes (see the module).

    >>> import tempfile
    >>> from quality_py import Id, Rule, RuleSet, run_quality
    >>> strict = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1",
    ...     action_if_failed="drop")])])
    >>> out = tempfile.mkdtemp()
    >>> df = spark.createDataFrame([(0,), (1,), (2,)], "a int")
    >>> _ = run_quality(df, strict, run_id="r1").write(f"{out}/v", f"{out}/q")
    >>> fixed = RuleSuite(Id(1, 2), [RuleSet(Id(2, 1), [Rule(Id(3, 2), "a > 0",
    ...     action_if_failed="drop")])])
    >>> print(release_quarantine(spark, fixed, "r1", f"{out}/v", f"{out}/q").describe())
    release of run r1 by suite 1.2: 1 of 2 dropped rows released (1 still quarantined)
      held by 3.1: 2 rows, 1 released
      still held by 3.2: 1 row
    >>> release_quarantine(spark, fixed, "r1", f"{out}/v", f"{out}/q").released  # once only
    0
    """
    suite_text = f"{suite.id.id}.{suite.id.version}"
    # checked by the suite's rule policy, refused before anything is read
    condition = None if where is None else filter_sql(where, what="release --where",
                                                      policy=suite.policy)  # fmt: skip
    writer = _atomic(spark, valid, quarantine, format)
    with writer as out:  # the lock is held from the first read to the last move
        if existing_columns(spark, valid, format) is None:
            raise _refuse(f"no valid output at {valid}: nothing to release into")
        detail = quarantine_form(spark, quarantine, format, None)
        quarantined = run_rows(spark, quarantine, format, run_id)
        chosen = f"NOT qp_kept_in_valid AND coalesce(({condition or 'true'}), false)"
        found = quarantined.selectExpr(f"count_if({chosen}) AS n", "max(qp_run_time) AS t").first()
        assert found is not None  # an aggregation without grouping has one row
        candidates = int(found["n"])
        if candidates == 0:
            return ReleaseResult(run_id, suite_text, 0, 0, 0, dry_run, where=where)
        valid_rows = _valid_of(spark, valid, format, run_id, quarantine, found["t"])
        run = _judged(spark, suite, run_id, valid_rows, quarantined.where(chosen))
        stays = quarantined.where(f"NOT ({chosen})")  # kept in valid, or not chosen: as they were
        _, new_valid, new_quarantine = _outputs(run, valid_rows, stays, detail, found["t"])
        released, moves, held_by = _moves(run, detail)  # one job: the counts and the rules
        result = ReleaseResult(run_id, suite_text, candidates, released, candidates - released,
                               dry_run, moves, held_by, where)  # fmt: skip
        if dry_run:
            return result
        partition = ("qp_run_id", run_id) if "qp_run_id" in valid_rows.columns else (None, None)
        out.write(new_valid, valid, "overwrite", *partition)
        out.write(new_quarantine, quarantine, "overwrite", "qp_run_id", run_id)
        out.commit()
    if history is not None:
        history.save(_record(result, suite))
    return result


def _valid_of(
    spark: SparkSession, valid: str, fmt: str, run_id: str, quarantine: str, run_time: Any
) -> DataFrame:
    """R's valid rows: its partition of a valid output partitioned by run, else the whole
    output, refused when the quarantine holds a later run (the valid output is that run's)."""
    from pyspark.sql import functions as F

    frame = read_place(spark, valid, fmt)
    if "qp_run_id" in frame.columns:
        return frame.where(F.col("qp_run_id") == F.lit(run_id))
    later = read_place(spark, quarantine, fmt)
    newer = later.where(F.col("qp_run_time") > F.lit(run_time)).select("qp_run_id").first()
    if newer is not None:
        raise _refuse(
            f"{valid} is not partitioned by run and the quarantine holds a later run "
            f"({newer[0]}): its valid rows are that run's, so run {run_id}'s rows cannot be "
            "released into it (write valid with partition_valid_by_run=True to release any run)"
        )
    return frame


def _record(result: ReleaseResult, suite: RuleSuite) -> RunRecord:
    """The history's record of a release."""
    now = datetime.now(timezone.utc)
    metrics = (
        Metric("release", "run", "dropped_rows", float(result.candidates)),
        Metric("release", "run", "released_rows", float(result.released)),
        Metric("release", "run", "still_quarantined", float(result.still_quarantined)),
    )
    return RunRecord(
        f"{result.run_id}.release-{uuid.uuid4().hex[:8]}", now, "release", result.suite,
        "success", {"released_run": result.run_id}, metrics, result.describe(),
    )  # fmt: skip


__all__ = ["ReleaseResult", "release_quarantine"]
