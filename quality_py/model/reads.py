"""What a rule reads, from its text: the input columns its text or the lambdas it calls name.

Text only (no parser): every identifier is a candidate and the input's columns pick the real
ones, so the answer may include a column a rule merely names in a string, never miss one it
reads. Used to show a failing row's relevant values (samples in the history, the report).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quality_py.model.rules import RuleSuite

_WORD = re.compile(r"`((?:[^`]|``)+)`|([A-Za-z_][A-Za-z0-9_]*)")


def _words(text: str) -> set[str]:
    """Lower-cased identifiers of ``text`` (backquoted ones too; their first part when
    dotted): a superset of the columns it reads."""
    out = set()
    for quoted, bare in _WORD.findall(text):
        name = quoted.replace("``", "`") if quoted else bare
        out.add(name.lower())
        out.add(name.split(".")[0].lower())
    return out


def columns_read(suite: RuleSuite, columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each rule's entity (``id.version``) -> the input ``columns`` its text or the lambdas it
    calls (transitively) name (its filter's too), in input order.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite, LambdaFunction
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "ok(a) AND `b c` > 1")])],
    ...                   lambdas=[LambdaFunction("ok", "x -> x > d", Id(9, 1))])
    >>> columns_read(suite, ["a", "b c", "d", "e"])
    {'3.1': ('a', 'b c', 'd')}
    """
    lambdas = {f.name.lower(): _words(f.expression) for f in suite.lambdas}
    out = {}
    for _, rule in suite.iter_rules():
        words = _words(rule.expression) | _words(rule.filter or "")
        todo = [w for w in words if w in lambdas]
        seen: set[str] = set()
        while todo:  # lambdas calling lambdas
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            words |= lambdas[name]
            todo += [w for w in lambdas[name] if w in lambdas and w not in seen]
        out[f"{rule.id.id}.{rule.id.version}"] = tuple(c for c in columns if c.lower() in words)
    return out


__all__ = ["columns_read"]
