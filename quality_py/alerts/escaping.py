"""One escaper per place an alert's text lands, applied by construction.

A channel's renderer never sees an :class:`~quality_py.alerts.message.Alert`: it is handed
:class:`Escaped` views, and the only way to make one is :func:`escape_alert`, which passes
**every** text of the alert (title, facts, rule labels and ids, top values, problems, the
error) through the escaper of one context. So a field added to the alert later is escaped too,
and a renderer cannot place a value from the data or a run id unescaped. The link is the one
text not escaped: it is our page name under a report URL checked when the alert was set up
(``https``, no quote, space, ``&`` or markup character), safe verbatim in every context.

The contexts and what they neutralise:

* ``slack``: Slack's ``text`` and ``mrkdwn`` (and ``plain_text``, which Slack decodes the same
  way): ``&``, ``<`` and ``>`` as ``&amp;``, ``&lt;``, ``&gt;``, as Slack documents, so
  ``<!channel>`` or ``<https://x|click>`` is shown, never acted on.
* ``teams``: Adaptive Card markdown (a CommonMark subset in ``TextBlock`` and ``FactSet``):
  every mark it gives a meaning (emphasis, links, code, ``{{DATE()}}``) backslash-escaped, as
  CommonMark reads a backslash, and a leading list or heading mark too, so ``[Reset](https://x)``
  or ``**`` is shown as written.
* ``html``: an e-mail's HTML part, every text HTML-escaped (quotes too).
* ``header``: an e-mail header: no line break or control character (folded to a space).
* ``plain``: an e-mail's text part: control characters but line breaks as spaces.

In every context but JSON, a control or invisible format character (a bidirectional override
that reverses what a reader sees, a zero-width joiner) is shown as U+FFFD.
"""

from __future__ import annotations

import dataclasses
import html
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from quality_py.alerts.message import Alert


@dataclass(frozen=True)
class Escaper:
    """The escaping of one context, by name."""

    name: str
    function: Callable[[str], str]

    def __call__(self, text: str) -> str:
        return self.function(text)


@dataclass(frozen=True)
class Escaped:
    """An alert whose every text has passed ``context``'s escaper (made by
    :func:`escape_alert` only: renderers take this, never an ``Alert``)."""

    alert: Alert
    context: str


#: The fields of an alert that are not text to escape (the link is checked, not escaped)
_NOT_TEXT = frozenset({"link"})


def escape_alert(alert: Alert, escaper: Escaper) -> Escaped:
    """``alert`` with every text passed through ``escaper``, recursively.

    >>> from quality_py.alerts.message import alert_of
    >>> a = alert_of({"event": "failure", "run_id": "<!channel> nightly", "suite": "1.1"})
    >>> escape_alert(a, SLACK).alert.title
    'Quality run &lt;!channel&gt; nightly of suite 1.1: failure, nothing published'
    """
    return Escaped(_escaped(alert, escaper), escaper.name)


def _escaped(value: Any, escaper: Escaper) -> Any:
    if isinstance(value, str):
        return escaper(value)
    if isinstance(value, tuple):
        return tuple(_escaped(v, escaper) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _escaped(getattr(value, f.name), escaper)
            for f in dataclasses.fields(value)
            if f.name not in _NOT_TEXT
        }
        return dataclasses.replace(value, **changes)
    return value


def _visible(text: str, keep: str = "") -> str:
    """Controls and invisible format characters (bidirectional overrides that reverse what a
    reader sees, zero-width joiners) as U+FFFD, except those in ``keep``.

    >>> _visible("evil\\u202egpj.exe")
    'evil\\ufffdgpj.exe'
    """
    return "".join(
        "\ufffd" if c not in keep and unicodedata.category(c) in ("Cc", "Cf") else c for c in text
    )


def _slack(text: str) -> str:
    text = _visible(text, "\n")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: The marks Adaptive Card markdown gives a meaning inside a line (emphasis, links, code,
#: templated ``{{DATE()}}``); CommonMark makes each literal after a backslash. A run of ``_``
#: between letters or digits is left as it is: CommonMark never reads it as emphasis.
_MARKS = re.compile(r"[\\*\[\]`~<>|{}]|_+")
#: What starts a list at the start of a text (a marker and a space, as CommonMark reads one)
_LEADING = re.compile(r"^(\s*)(?:([-+])|(\d{1,9})([.)]))(?=\s|$)")


def _teams(text: str) -> str:
    # line breaks would start a list or paragraph: one line, its marks escaped
    line = _MARKS.sub(_mark, _visible(re.sub(r"[\r\n\u2028\u2029]+", " ", text)))
    return _LEADING.sub(_leading, line, count=1)


def _mark(m: re.Match[str]) -> str:
    text, start, end = m.string, m.start(), m.end()
    inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return m.group() if m.group()[0] == "_" and inside else "".join("\\" + c for c in m.group())


def _leading(m: re.Match[str]) -> str:
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def _html(text: str) -> str:
    return html.escape(_visible(text, "\n"), quote=True)


_CONTROLS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")
_CONTROLS_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\u2028\u2029\x85]")


def _header(text: str) -> str:
    return _visible(_CONTROLS.sub(" ", text))


def _plain(text: str) -> str:
    return _visible(_CONTROLS_BUT_NEWLINE.sub(" ", text), "\n")


SLACK = Escaper("slack", _slack)
TEAMS = Escaper("teams", _teams)
HTML = Escaper("html", _html)
HEADER = Escaper("header", _header)
PLAIN = Escaper("plain", _plain)
#: JSON is its own escaping: the generic webhook's body carries the texts as they are
JSON = Escaper("json", lambda text: text)


def views(alert: Alert, escapers: tuple[Escaper, ...]) -> Mapping[str, Escaped]:
    """The alert escaped for each of a channel's contexts, by context name.

    >>> from quality_py.alerts.message import alert_of
    >>> v = views(alert_of({"event": "failure", "run_id": "a&b"}), (HTML, HEADER))
    >>> v["html"].alert.run_id, v["header"].alert.run_id
    ('a&amp;b', 'a&b')
    """
    return {e.name: escape_alert(alert, e) for e in escapers}


__all__ = [
    "HEADER",
    "HTML",
    "JSON",
    "PLAIN",
    "SLACK",
    "TEAMS",
    "Escaped",
    "Escaper",
    "escape_alert",
    "views",
]
