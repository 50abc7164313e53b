"""Every allowlisted function contained or refused, proven by generation (issue 24, item 5).

For each function of the catalogue (``sql/allowed/catalogue.py``, which *is* the allowlist) and each of
its declared signatures, the fuzzer derives adversarial arguments from the argument kinds:
extremes and overflow for numbers, NaN and infinities, invalid text for every parse, empty and
null-holding arrays, duplicate keys, bad patterns, formats, zones and lambdas that return null.
Each call runs twice under ANSI mode over a real frame:

* **as Spark runs it raw**, the oracle: per row, an error or a value;
* **as we compile it** (the containment passes): the job must complete; where the raw call
  raised, our value must be null (the rule's row fails); elsewhere it must equal Spark's own.

Rows on which the raw frame cannot run because one raises are settled one by one with literal
arguments. Every function must have at least one signature that analyses on this Spark with no
cast of our columns, so that the fuzzer covers it: a function it cannot cover does not belong on
the allowlist. Declared sizes are measured too: a text or binary value stays within its size
rule of its arguments' sizes.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from typing import Any

import pytest

from quality_py.errors import QualityError
from quality_py.sql.allowed.catalogue import SPECS
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_expression

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

#: Data kinds: the column type and hostile values of it (literals valid in that type).
DATA: dict[str, tuple[str, list[str]]] = {
    "s": (
        "STRING",
        ["''", "'abc'", "'%zz'", "'-1'", "'12'", "'2024-01-05'", "'2023-02-30'",
         "'99999999999999999999'", "'a$'", "'ß'", "'0A'", "'http://x.org/a?q=1'", "'http://[bad'",
         "'{\"a\": 1}'", "'[1,2]'", "'4111111111111111'", "'MO'", "' pad '", "'2024-01-05 10:30:00'",
         "NULL"],
    ),
    "n": ("INT", ["0", "1", "-1", "3", "28", "64", "2147483647", "-2147483648", "NULL"]),
    "l": ("BIGINT", ["0", "-1", "1", "9223372036854775807", "-9223372036854775808",
                     "1000000000000", "NULL"]),
    "d": ("DOUBLE", ["0.0", "-0.0", "1.5", "-2.5", "'NaN'", "'Infinity'", "'-Infinity'", "1e308",
                     "4.9e-324", "NULL"]),
    "x": ("DECIMAL(10, 2)", ["0", "12.35", "-99999999.99", "NULL"]),
    "b": ("BOOLEAN", ["true", "false", "NULL"]),
    "dt": ("DATE", ["DATE'2024-01-05'", "DATE'0001-01-01'", "DATE'9999-12-31'", "DATE'2024-02-29'",
                    "NULL"]),
    "ts": ("TIMESTAMP", ["TIMESTAMP'2024-01-05 10:30:00'", "TIMESTAMP'0001-01-01 00:00:00'",
                         "TIMESTAMP'9999-12-31 23:59:59.999999'", "NULL"]),
    "bin": ("BINARY", ["X''", "X'00FF'", "X'41'", "NULL"]),
    "a": ("ARRAY<INT>", ["array()", "array(1, 2, 3)", "array(2147483647, -2147483648)",
                         "array(1, NULL)", "array(3, 1, 3)", "NULL"]),
    "as": ("ARRAY<STRING>", ["array()", "array('a', 'a')", "array('x', NULL)", "array('k')", "NULL"]),
    "aa": ("ARRAY<ARRAY<INT>>", ["array(array(1), array(2, 3))", "array(CAST(NULL AS ARRAY<INT>))",
                                 "array()", "NULL"]),
    "m": ("MAP<STRING, INT>", ["map()", "map('a', 1)", "map('a', NULL, 'b', 2147483647)",
                               "map('k', 2)", "NULL"]),
    "ntz": ("TIMESTAMP_NTZ", ["TIMESTAMP_NTZ'2024-01-05 10:30:00'",
                              "TIMESTAMP_NTZ'0001-01-01 00:00:00'", "NULL"]),
    "sec": ("DECIMAL(16, 6)", ["0", "59.999999", "60", "61.5", "-1", "NULL"]),
    "st": ("STRUCT<a: INT, b: STRING>", ["named_struct('a', 1, 'b', 'x')",
                                         "named_struct('a', NULL, 'b', NULL)", "NULL"]),
}  # fmt: skip
#: Literal kinds: what a rule writes in the call itself, good first, then hostile.
LITERALS: dict[str, list[str]] = {
    "#n": ["2", "0", "-1", "64", "2147483647"],
    "#s": ["'X'", "''", "'ab'", "NULL"],
    "#re": ["'a'", "'(a)(b)?'", "'[0-9]+'", "'(?P<x>a)'", "'(a'", "'a?a?a?aaa'", "'\\\\d{2}'"],
    "#rep": ["'x'", "'$1'", "'$'", "'\\\\'", "'$9'"],
    "#dfmt": ["'yyyy-MM-dd'", "'yyyy'", "'MMMMM'", "'yyyyyyyyyyy'", "'#'", "'EEEE'", "''''"],
    "#tz": ["'UTC'", "'Europe/Berlin'", "'+01:00'", "'Mars/Base'", "''"],
    "#unit": ["'MM'", "'year'", "'week'", "'xx'"],
    "#field": ["YEAR", "MONTH", "DOW", "xx"],
    "#fieldq": ["'YEAR'", "'MONTH'", "'DOW'", "'xx'", "''"],
    "#nfmt": ["'999'", "'9,999.99'", "'S999'", "'xx'", "'$99'"],
    "#part": ["'HOST'", "'QUERY'", "'PATH'", "'xx'"],
    "#day": ["'MO'", "'monday'", "'xx'"],
    "#enc": ["'hex'", "'base64'", "'utf-8'", "'xx'"],
    "#schema": ["'a INT'", "'array<int>'", "'x y z'"],
    "#bits": ["256", "224", "0", "7"],
    "#base": ["10", "2", "16", "36", "1", "37", "-16"],
    "#path": ["'$.a'", "'$'", "'x'", "'$[0]'"],
    "#l1": ["x -> x + 1", "x -> x % 2 = 0", "x -> x * 2147483647", "x -> x IS NULL", "x -> 1"],
    "#l2": ["(x, y) -> x + y", "(x, y) -> NULL", "(x, y) -> x - y",
            "(x, y) -> CASE WHEN x < y THEN -1 WHEN x > y THEN 1 ELSE 0 END"],
    "#li": ["(x, i) -> x + i", "(x, i) -> i * 2147483647"],
    "#lk": ["(k, v) -> v > 0", "(k, v) -> 1", "(k, v) -> concat(k, 'x')", "(k, v) -> v * 2",
            "(k, v) -> NULL"],
    "#l3": ["(k, v1, v2) -> v1 + v2", "(k, v1, v2) -> coalesce(v1, v2)"],
}  # fmt: skip
#: Functions that convert their argument: Spark's plan shows the conversion as a cast.
CASTS = frozenset(
    [
        "cast",
        "try_cast",
        "bigint",
        "boolean",
        "date",
        "decimal",
        "double",
        "float",
        "int",
        "smallint",
        "tinyint",
        "string",
        "binary",
        "timestamp",
    ]
)
ROWS = 30  # data rows per signature (a deterministic sample of the product of the pools)
COMBOS = 4  # literal combinations per signature


def _calls(name: str, signature: str) -> tuple[list[str], list[str]]:
    """(call texts over columns c0, c1 ..., the data kinds of those columns)."""
    if "{" in signature:
        holes = list(signature.replace("}", "{").split("{")[1::2])
        template = signature
    else:
        holes = [k for k in signature.split(",") if k]
        template = f"{name}(" + ", ".join("{" + k + "}" for k in holes) + ")"
    data = [k for k in holes if not k.startswith("#")]
    literal = [k for k in holes if k.startswith("#")]
    pools = [LITERALS[k] for k in literal]
    combos = list(itertools.product(*pools))
    chosen = combos[:1] + random.Random(signature + name).sample(
        combos[1:], min(COMBOS - 1, len(combos) - 1)
    )
    texts = []
    for combo in chosen:
        text, columns, values = template, iter(range(len(data))), iter(combo)
        for hole in holes:
            fill = next(values) if hole.startswith("#") else f"c{next(columns)}"
            text = text.replace("{" + hole + "}", fill, 1)
        texts.append(text)
    return texts, data


def _rows(kinds: tuple[str, ...]) -> list[tuple[str, ...]]:
    product = list(itertools.product(*(DATA[k][1] for k in kinds)))
    if len(product) <= ROWS:
        return product
    return random.Random(",".join(kinds)).sample(product, ROWS)


def _typed(kind: str, value: str) -> str:
    return f"CAST({value} AS {DATA[kind][0]})"


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or left == right
    return bool(left == right)


@pytest.fixture(scope="module")
def ansi(spark: Any) -> Iterator[Any]:
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", before)


class _Fuzz:
    """Runs the calls of one tuple of data kinds over one frame."""

    def __init__(self, spark: Any, kinds: tuple[str, ...]) -> None:
        self.spark, self.kinds = spark, kinds
        self.rows = _rows(kinds)
        columns = ", ".join(["rid", *(f"c{i}" for i in range(len(kinds)))])
        values = ", ".join(
            "("
            + ", ".join([str(i), *(_typed(k, v) for k, v in zip(kinds, row, strict=True))])
            + ")"
            for i, row in enumerate(self.rows)
        )
        if kinds:
            self.frame = spark.sql(f"SELECT * FROM VALUES {values} AS t({columns})")
        else:
            self.frame = spark.range(1).selectExpr("CAST(id AS INT) AS rid")
        self.frame = self.frame.repartition(2)  # evaluated in tasks, not folded on the driver
        self.frame.cache().count()

    def all_analyse(self, calls: list[tuple[str, str]]) -> bool:
        """Whether every call analyses with no cast of our columns (one analysis for all)."""
        plain = [raw for name, raw in calls if name not in CASTS]
        if not plain:
            return False
        try:
            plan = self.frame.selectExpr(*plain)._jdf.queryExecution().analyzed().toString()
        except Exception:
            return False
        return not any(f"cast(c{i}#" in plan.lower() for i in range(len(self.kinds)))

    def analyses(self, name: str, raw: str) -> bool:
        """Whether Spark analyses the call without converting one of our columns itself (an
        implicit cast is another class, refused by the policy; casts are what CASTS do)."""
        try:
            plan = self.frame.selectExpr(raw)._jdf.queryExecution().analyzed().toString()
        except Exception:
            return False
        if name in CASTS:
            return True
        return not any(f"cast(c{i}#" in plan.lower() for i in range(len(self.kinds)))

    def raw_values(self, raws: list[str], ours: list[list[Any]]) -> dict[str, list[Any]]:
        """Per call, per row: Spark's own value (as text), or the ``RAISED`` marker.

        When the raw frame aborts, the call is run once with ANSI off (Spark gives null or a
        wrapped value instead of raising). A row on which that agrees with ours, or on which
        both are null, needs nothing more: ours is a ``try_`` form or a guard, so where ours
        is a value the raw call cannot have raised, and where both are null the raw call
        raised or gave null, either of which ours matches. Every other row is settled with its
        arguments as literals under ANSI, one query per row.
        """
        out: dict[str, list[Any]] = {}
        try:
            rows = sorted(self.frame.selectExpr("rid", *map(_text, raws)).collect())
            for j, raw in enumerate(raws):
                out[raw] = [r[j + 1] for r in rows]
            return out
        except Exception:
            pass
        for raw, mine in zip(raws, ours, strict=True):
            try:
                rows = sorted(self.frame.selectExpr("rid", _text(raw)).collect())
                out[raw] = [r[1] for r in rows]
                continue
            except Exception:
                pass
            lenient = self.without_ansi(raw)
            out[raw] = [
                m if lenient is not None and lenient[i] == m else self.settle(raw, i)
                for i, m in enumerate(mine)
            ]
        return out

    def without_ansi(self, raw: str) -> list[Any] | None:
        self.spark.conf.set("spark.sql.ansi.enabled", "false")
        try:
            return [r[1] for r in sorted(self.frame.selectExpr("rid", _text(raw)).collect())]
        except Exception:
            return None
        finally:
            self.spark.conf.set("spark.sql.ansi.enabled", "true")

    def literal(self, raw: str, row: tuple[str, ...]) -> str:
        text = raw
        for i in reversed(range(len(self.kinds))):  # c10 before c1
            text = text.replace(f"c{i}", _typed(self.kinds[i], row[i]))
        return _text(text)

    def settle(self, raw: str, row: int) -> Any:
        """Spark's value or ``RAISED`` for one row, its arguments written as literals."""
        try:
            return self.spark.sql(f"SELECT {self.literal(raw, self.rows[row])}").collect()[0][0]
        except Exception:
            return RAISED

    def contained(self, sqls: list[str]) -> list[list[Any]]:
        rows = sorted(self.frame.selectExpr("rid", *map(_text, sqls)).collect())
        return [[r[j + 1] for r in rows] for j in range(len(sqls))]


RAISED = object()


def _text(sql: str) -> str:
    """A value as Spark writes it as text: Spark's dates reach years Python cannot hold, and
    text compares exactly (doubles print their shortest exact form)."""
    return f"CAST(({sql}) AS STRING)"


def _contained(raw: str, value: Any) -> bool:
    """Null, or a collection in which an element a lambda computed is null: an error inside a
    lambda nulls that element (the rule then reads a null), not the whole value."""
    return value is None or ("->" in raw and "null" in str(value).lower())


def _out_of_range(text: Any) -> bool:
    """A date or timestamp Spark wrapped or saturated past years 1 to 9999 (``+294247-01-10``,
    ``-5877587-06-26``): our form gives null there instead."""
    return isinstance(text, str) and text[:1] in "+-" and text[1:2].isdigit() and "-" in text[1:]


#: The syntax a rule may use besides calls (operators, indexing, intervals), as templates: the
#: same proof holds for it ("one enforcement path ... anything").
SYNTAX: dict[str, tuple[str, ...]] = {
    "+ - * /": ("{n} + {n}", "{l} - {l}", "{n} * {n}", "{l} * {l}", "{x} * {x}", "{d} / {d}",
                "{n} / {n}", "-{n}", "{x} + {x}"),
    "% div": ("{n} % {n}", "{l} div {l}", "{d} % {d}"),
    "dates and intervals": ("{dt} + INTERVAL 1 DAY", "{ts} + INTERVAL 1000 YEAR",
                            "{dt} - INTERVAL 10000 YEAR", "{dt} + {n}", "{dt} - {dt}",
                            "{ts} - {ts}"),
    "indexing": ("{a}[{n}]", "{m}[{s}]", "{as}[0]", "{aa}[{n}][{n}]", "{st}.a"),
    "comparisons": ("{s} = {s}", "{n} IN ({n}, 1)", "{n} BETWEEN {n} AND 5", "{s} LIKE 'a%'",
                    "{s} || {s}", "{b} AND {b}", "NOT {b}", "{d} <=> {d}"),
    "case": ("CASE WHEN {b} THEN {n} ELSE 1 END", "CASE {n} WHEN 1 THEN {s} END",
             "IF({b}, {d}, {d})"),
}  # fmt: skip


def _plan() -> dict[tuple[str, ...], list[tuple[str, str]]]:
    """Calls by their data kinds: (function name, raw call text)."""
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for name, spec in sorted(SPECS.items()):
        for signature in spec.signatures:
            texts, data = _calls(name, signature)
            groups.setdefault(tuple(data), []).extend((name, t) for t in texts)
    for name, templates in SYNTAX.items():
        for template in templates:
            texts, data = _calls(name, template)
            groups.setdefault(tuple(data), []).extend((name, t) for t in texts)
    return groups


def _size_holds(spec_size: str, value: Any, args: list[Any], raw: str) -> bool:
    """Whether a text or binary ``value`` is within its declared size of ``args``'."""
    if not isinstance(value, (str, bytes, bytearray)):
        return True
    sizes = [len(a) for a in args if isinstance(a, (str, bytes, bytearray))]
    sizes.append(sum(len(p) for p in raw.split("'")[1::2]))  # the literals the call writes
    head, _, tail = spec_size.partition(" ")
    total, slack = sum(sizes), 64
    if head == "sum":
        return len(value) <= total + slack
    if head == "scale":
        return len(value) <= int(tail) * total + slack
    if head == "fixed":
        return len(value) <= slack
    return True  # amp, product, hof: bounded by the algebra on literal counts


@pytest.mark.long  # about a minute: run on the newest Spark only (scripts/test-spark35.sh)
def test_every_allowlisted_function_is_contained_or_refused(ansi: Any) -> None:
    covered: set[str] = set()
    problems: list[str] = []
    for kinds, calls in sorted(_plan().items()):
        fuzz = _Fuzz(ansi, kinds)
        runnable: list[tuple[str, str, str]] = []  # name, raw, compiled
        accepted = []
        for name, raw in calls:
            try:
                accepted.append((name, raw, to_sql(compile_expression(raw))))
            except QualityError:
                continue  # refused by the policy: safe by construction
        every = fuzz.all_analyse([(n, r) for n, r, _ in accepted if n not in CASTS])
        for name, raw, compiled in accepted:
            if not (every and name not in CASTS) and not fuzz.analyses(name, raw):
                continue  # not this Spark's signature (or a bad literal it refuses to analyse)
            runnable.append((name, raw, compiled))
        if not runnable:
            continue
        try:
            ours = fuzz.contained([c for _, _, c in runnable])
        except Exception:  # the job aborted: find the calls, report them, go on without them
            kept = []
            for name, raw, compiled in runnable:
                try:
                    fuzz.contained([compiled])
                    kept.append((name, raw, compiled))
                except Exception as err:
                    reason = str(err).split("Exception: ")[-1].splitlines()[0][:100]
                    problems.append(f"{raw}: aborted the job ({reason})")
            runnable = kept
            ours = fuzz.contained([c for _, _, c in runnable]) if runnable else []
        spark_values = fuzz.raw_values([r for _, r, _ in runnable], ours)
        for (name, raw, _), values in zip(runnable, ours, strict=True):
            covered.add(name)
            for row, mine, theirs in zip(fuzz.rows, values, spark_values[raw], strict=True):
                args = [None if v == "NULL" else v.strip("'") for v in row]
                if theirs is RAISED and not _contained(raw, mine):
                    problems.append(f"{raw} on {row}: Spark raises, ours gives {mine!r}")
                elif theirs is not RAISED and not _same(mine, theirs):
                    if mine is None and _out_of_range(theirs):
                        continue
                    problems.append(f"{raw} on {row}: Spark gives {theirs!r}, ours {mine!r}")
                elif name in SPECS and not _size_holds(SPECS[name].size, mine, args, raw):
                    problems.append(f"{raw} on {row}: {len(mine)} over its size {SPECS[name].size}")
    assert problems == [], "\n".join(problems)
    uncovered = sorted((set(SPECS) | set(SYNTAX)) - covered)
    assert uncovered == [], f"the fuzzer cannot cover these (refuse them or declare): {uncovered}"
