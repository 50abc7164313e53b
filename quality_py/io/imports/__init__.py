"""Rulesets of other tools read into ours: DQX checks YAML, Spark-Expectations rules (their YAML
file or a CSV export of their rules table), SodaCL ``checks for`` files, Soda v4 data contracts,
Great Expectations expectation suites (JSON) and ODCS v3 data contracts.

Each reader maps what has a faithful counterpart (row rules, dataset checks, SQL checks) and
lists what does not, with the line it is on, so nothing is dropped silently. The result is our
YAML ruleset text; ``quality-py validate`` then checks it like any other (the imported SQL passes
the same policy as rules written here).

>>> text = "- criticality: error\\n  check: {function: is_not_null, arguments: {column: id}}\\n"
>>> result = import_text(text, "dqx", "orders.yml")
>>> [line.strip() for line in result.text.splitlines() if "expression" in line]
['expression: (id IS NULL) IS NOT TRUE']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from quality_py.errors import QualityError, RulesetFormatError
from quality_py.io.imports import dqx, gx, odcs, soda, soda_contract, spark_expectations
from quality_py.io.imports.common import FORMATS, SHAPE_ERRORS, ImportResult, Unmapped, malformed

__all__ = ["FORMATS", "ImportResult", "Unmapped", "import_text"]

#: The largest foreign rules file read (a rules file is kilobytes; this bounds the work).
MAX_CHARS = 10_000_000


def import_text(
    text: str,
    kind: str,
    origin: str = "<string>",
    *,
    dqx_version: str | None = None,
    dq_env: str | None = None,
    se_table: str | None = None,
    odcs_object: str | None = None,
) -> ImportResult:
    """The ruleset of ``text`` written for ``kind`` (one of :data:`FORMATS`), with the meaning
    of DQX ``dqx_version`` (default: the newest read, see the summary's note), the defaults
    of the Spark-Expectations environment ``dq_env`` and the rules of its table ``se_table``,
    and of an ODCS contract the schema object named ``odcs_object`` (default: the first)."""
    readers: dict[str, Callable[[str, str], ImportResult]] = {
        "dqx": partial(dqx.read, version=dqx.parse_version(dqx_version)),
        "spark-expectations": partial(spark_expectations.read, env=dq_env, table=se_table),
        "sodacl": soda.read,
        "soda-contract": soda_contract.read,
        "gx": gx.read,
        "odcs": partial(odcs.read, name=odcs_object),
    }
    if kind not in readers:
        raise RulesetFormatError(
            f"cannot import {kind!r}: use one of {', '.join(FORMATS)}", item_kind="ruleset"
        )
    if len(text) > MAX_CHARS:
        raise RulesetFormatError(
            f"{origin}: {len(text):,} characters; a rules file of another tool is read up to "
            f"{MAX_CHARS:,}",
            item_kind="ruleset",
        )
    try:
        return readers[kind](text, origin)
    except QualityError:
        raise
    except RecursionError:
        raise malformed(origin, 1, "the file", "it nests deeper than a rules file does") from None
    except SHAPE_ERRORS as err:  # the document's top level (items are checked one by one)
        raise malformed(origin, 1, "the file", err) from None
    except Exception as err:  # a converter's own bug: one paragraph still, never a traceback
        raise RulesetFormatError(
            f"{origin}: the {kind} converter failed on this file ({type(err).__name__}: "
            f"{str(err)[:200]}); this is a bug of quality_py: please report it with the file",
            item_kind="ruleset",
        ) from err
