"""The one YAML emitter of every file we write (rulesets, converted sections, suggestions).

PyYAML with ``allow_unicode`` writes a string holding one of YAML's other line breaks (NEL
U+0085, LS U+2028, PS U+2029) or a carriage return in a style that reads back changed (NEL
came back as a space). Such strings, and any holding a character that is not printable, are
written double-quoted, where the emitter escapes them; everything else is written as PyYAML
chooses, readable (``é`` stays ``é``).
"""

from __future__ import annotations

from typing import Any

import yaml

_BREAKS = frozenset("\r\x85\u2028\u2029\ufeff")


class _Dumper(yaml.SafeDumper):
    """SafeDumper whose strings always read back as written."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if any(ch in _BREAKS or (not ch.isprintable() and ch not in "\n\t") for ch in value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


_Dumper.add_representer(str, _text)


def dump_yaml(doc: Any) -> str:
    """``doc`` as YAML text that ``yaml.safe_load`` reads back equal.

    >>> import yaml
    >>> text = dump_yaml({"name": "a\\x85b", "city": "Zürich"})
    >>> yaml.safe_load(text) == {"name": "a\\x85b", "city": "Zürich"}, "Zürich" in text
    (True, True)
    """
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
