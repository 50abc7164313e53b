"""Rule engine and rule folder against hand-written equivalents of the same run.

Data: the ``dataFrameLong`` parquet of ``bench_dq.py`` (1M rows, 27 BIGINT columns).

* Engine, n rules: trigger ``k`` is ``(`c` % m) = 0`` (as in ``bench_dq.py``), salience
  ``(k * 7919) % n`` (shuffled), output `` `c` * k ``. Baseline: a hand-written
  ``CASE WHEN`` of the same triggers in salience order (no DQ struct); and ``hand_dq``, the
  engine's whole contract by hand (the triggers' codes and data-quality struct, then the ``CASE``
  over the codes).
* Folder ("chain"), n rules over ``struct(`0`, `1`, `2`)``: rule ``k`` adds 1 to field ``k % 3``
  when its trigger passes (read-modify-write: the worst case, every step depends on an earlier
  one). Baseline: the same steps hand-written as one ``withColumn`` per rule with
  ``Column.withField`` (the chained form; a single nested expression would grow exponentially).
* Folder ("default"): rule ``k`` sets field ``k % 3`` to `` `c` * k `` (corrections and defaults
  computed from the input, the folder's common use). Baseline: the same ``withField`` chain.

Also prints the compiled folder SQL size for 50..400 rules (it must grow linearly).

Usage: ``python benchmarks/bench_engine_folder.py [--rows N] [--runs R] [--rules 10,100,1000]
[--folder-rules 10,100] [--default-rules 10,100,1000]`` (the hand-written folder needs one
projection per rule, which Spark plans slowly beyond a few hundred).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench_dq import COLS, hand_code_sqls, hand_struct_sql, interleaved, rule_text, texts_of
from common import long_data, noop, save, spark_session

from quality_py import (
    Id,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    rule_engine_with_struct,
    rule_folder_with_struct,
)
from quality_py.runners.rule_folder import folder_result
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_suite
from quality_py.sql.dq_struct import rendered

SET_SIZE = 14
STARTER = "struct(`0` AS f0, `1` AS f1, `2` AS f2)"
STARTER_DDL = "struct<f0:bigint,f1:bigint,f2:bigint>"


def salience(k: int, n: int) -> int:
    return (k * 7919) % max(n, 1)


def _sets(rules: list[Rule]) -> list[RuleSet]:
    return [
        RuleSet(Id(50 + s, 1), rules[i : i + SET_SIZE])
        for s, i in enumerate(range(0, len(rules), SET_SIZE))
    ]


def engine_suite(n: int) -> RuleSuite:
    rules = [
        Rule(
            Id(100 + k, 1),
            rule_text(k),
            salience=salience(k, n),
            output=OutputExpression(Id(10_000 + k, 1), f"`{k % COLS}` * {k}"),
        )
        for k in range(n)
    ]
    return RuleSuite(Id(1, 1), _sets(rules))


def engine_hand(df: Any, n: int) -> Any:
    order = sorted(range(n), key=lambda k: (salience(k, n), k))
    whens = " ".join(f"WHEN {rule_text(k)} THEN `{k % COLS}` * {k}" for k in order)
    return df.selectExpr("*", f"CASE {whens} END AS result")


def engine_hand_dq(df: Any, n: int) -> Any:
    """The engine's whole contract by hand: the triggers' data-quality struct (as
    ``bench_dq.hand_written_codes``) and the salience-ordered ``CASE`` over the trigger codes."""
    staged = df.selectExpr("*", *hand_code_sqls(texts_of(str(n))))
    order = sorted(range(n), key=lambda k: (salience(k, n), k))
    whens = " ".join(f"WHEN __c{k} = 100000 THEN `{k % COLS}` * {k}" for k in order)
    return staged.selectExpr(
        *[f"`{c}`" for c in df.columns], hand_struct_sql(n), f"CASE {whens} END AS result"
    )


def folder_suite(n: int) -> RuleSuite:
    rules = [
        Rule(
            Id(100 + k, 1),
            rule_text(k),
            salience=salience(k, n),
            output=OutputExpression(
                Id(10_000 + k, 1), f"set(f{k % 3} = currentResult.f{k % 3} + 1)"
            ),
        )
        for k in range(n)
    ]
    return RuleSuite(Id(1, 1), _sets(rules))


def default_suite(n: int) -> RuleSuite:
    rules = [
        Rule(
            Id(100 + k, 1),
            rule_text(k),
            salience=salience(k, n),
            output=OutputExpression(Id(10_000 + k, 1), f"set(f{k % 3} = `{k % COLS}` * {k})"),
        )
        for k in range(n)
    ]
    return RuleSuite(Id(1, 1), _sets(rules))


def _with_field_chain(df: Any, n: int, value: Any) -> Any:
    from pyspark.sql import functions as F

    out = df.withColumn("s", F.expr(STARTER))
    for k in sorted(range(n), key=lambda k: (salience(k, n), k)):
        s = F.col("s")
        f = f"f{k % 3}"
        out = out.withColumn(
            "s", F.when(F.expr(rule_text(k)), s.withField(f, value(k, s[f]))).otherwise(s)
        )
    return out


def folder_hand(df: Any, n: int) -> Any:
    return _with_field_chain(df, n, lambda k, current: current + 1)


def default_hand(df: Any, n: int) -> Any:
    from pyspark.sql import functions as F

    return _with_field_chain(df, n, lambda k, current: F.col(f"`{k % COLS}`") * k)


def folder_sql_size(n: int) -> int:
    suite = folder_suite(n)
    compiled = compile_suite(suite)
    codes = [rendered(f"c{i}") for i in range(len(compiled.rules))]
    tree = folder_result(
        suite, codes, rendered(STARTER), STARTER_DDL, compiled.lambdas, debug=False
    )
    return len(to_sql(tree))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="10,100,1000", help="engine rule counts")
    ap.add_argument("--folder-rules", default="10,100", help="read-modify-write folder rules")
    ap.add_argument("--default-rules", default="10,100,1000", help="defaulting folder rules")
    ap.add_argument(
        "--huge-method-limit",
        type=int,
        default=None,
        help="set spark.sql.codegen.hugeMethodLimit (both sides), e.g. 8000",
    )
    args = ap.parse_args()
    spark = spark_session()
    if args.huge_method_limit:
        spark.conf.set("spark.sql.codegen.hugeMethodLimit", args.huge_method_limit)
    df = long_data(spark, args.rows, COLS)
    for _ in range(3):
        noop(df)
    results: dict[str, Any] = {
        "rows": args.rows,
        "runs": args.runs,
        "hugeMethodLimit": args.huge_method_limit,
    }
    results.update({kind: {} for kind in ("engine", "folder", "default")})
    results["folder_sql_chars"] = {n: folder_sql_size(n) for n in (50, 100, 200, 400)}
    print("folder SQL chars", results["folder_sql_chars"], flush=True)
    plan = [(int(x), "engine") for x in args.rules.split(",") if x]
    plan += [(int(x), "folder") for x in args.folder_rules.split(",") if x]
    plan += [(int(x), "default") for x in args.default_rules.split(",") if x]
    makers = {
        "engine": (engine_suite, engine_hand),
        "folder": (folder_suite, folder_hand),
        "default": (default_suite, default_hand),
    }
    for n, kind in plan:
        make_suite, hand = makers[kind]
        suite = make_suite(n)
        start = time.perf_counter()
        if kind == "engine":
            ours = rule_engine_with_struct(df, suite, "bigint", layout="compact")
        else:
            ours = rule_folder_with_struct(df, suite, STARTER, layout="compact")
        build_s = time.perf_counter() - start
        start = time.perf_counter()
        ours._jdf.queryExecution().executedPlan()
        plan_s = time.perf_counter() - start
        start = time.perf_counter()
        cases = {"noop": df, "hand": hand(df, n), "ours": ours}
        if kind == "engine":
            cases["hand_dq"] = engine_hand_dq(df, n)
        hand_build_s = time.perf_counter() - start
        hand_error = None
        try:
            noop(cases["hand"])
        except Exception as err:  # e.g. a 1000-projection chain overflows Spark's stack
            hand_error = type(err).__name__ + ": " + str(err).splitlines()[0][:200]
            print(kind, n, "hand-written baseline failed:", hand_error, flush=True)
            del cases["hand"]
        times = interleaved(cases, args.runs)
        med = {k: v["median"] for k, v in times.items()}
        entry = {
            **times,
            "hand_error": hand_error,
            "ours/hand": round(med["ours"] / med["hand"], 2) if "hand" in med else None,
            "ours/hand_dq": round(med["ours"] / med["hand_dq"], 2) if "hand_dq" in med else None,
            "build_s": round(build_s, 3),
            "plan_s": round(plan_s, 3),
            "hand_build_s": round(hand_build_s, 3),
        }
        results[kind][n] = entry
        print(
            kind,
            n,
            {k: round(v, 3) for k, v in med.items()},
            {k: entry[k] for k in ("ours/hand", "ours/hand_dq", "build_s", "plan_s")},
            flush=True,
        )
    print(save("bench_engine_folder", results))


if __name__ == "__main__":
    main()
