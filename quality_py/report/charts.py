"""Inline SVG charts for the report: trend lines with marked anomalies, and bar charts.

Drawn as SVG text here, so the report is one file that needs no script and no network to view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from html import escape


def _fmt(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def trend(
    key: str,
    points: Sequence[tuple[str, float | None]],
    anomalies: set[str],
    *,
    width: int = 380,
    height: int = 150,
) -> str:
    """A line chart of ``points`` (run id, value) in run order; runs in ``anomalies`` are red.

    >>> svg = trend("rows.run.input_rows", [("a", 10), ("b", 12), ("c", 3)], {"c"})
    >>> svg.count("<circle"), 'data-run="c" class="point anomaly"' in svg
    (3, True)
    """
    left, right, top, bottom = 56, 12, 14, 28
    known = [v for _, v in points if v is not None]
    lo, hi = (min(known), max(known)) if known else (0.0, 1.0)
    if hi == lo:  # a flat series: centre it
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    span_x = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return left + (width - left - right) * (i / span_x if len(points) > 1 else 0.5)

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - (v - lo) / (hi - lo))

    parts = [
        f'<svg class="trend" data-metric="{escape(key)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(key)} over runs">',
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}"/>',
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}"/>',
        f'<text class="tick" x="{left - 4}" y="{top + 4}" text-anchor="end">{_fmt(hi)}</text>',
        f'<text class="tick" x="{left - 4}" y="{height - bottom}" text-anchor="end">'
        f"{_fmt(lo)}</text>",
    ]
    line = [f"{x(i):.1f},{y(v):.1f}" for i, (_, v) in enumerate(points) if v is not None]
    if len(line) > 1:
        parts.append(f'<polyline class="line" points="{" ".join(line)}"/>')
    for i, (run, v) in enumerate(points):
        label = escape(run)
        if i in (0, len(points) - 1) or len(points) <= 6:
            anchor = "start" if i == 0 else "end" if i == len(points) - 1 else "middle"
            parts.append(
                f'<text class="run" x="{x(i):.1f}" y="{height - 8}" text-anchor="{anchor}">'
                f"{label[:12]}</text>"
            )
        if v is None:
            continue
        kind = "point anomaly" if run in anomalies else "point"
        radius = 5 if run in anomalies else 3
        parts.append(
            f'<circle data-run="{label}" class="{kind}" data-value="{v!r}" cx="{x(i):.1f}" '
            f'cy="{y(v):.1f}" r="{radius}"><title>{label}: {_fmt(v)}</title></circle>'
        )
    parts.append("</svg>")
    return "".join(parts)


def bars(name: str, counts: Sequence[tuple[str, float]], *, width: int = 380) -> str:
    """A horizontal bar chart of ``(label, count)``, largest first as given.

    >>> bars("origin", [("EWR", 3), ("JFK", 1)]).count('class="bar"')
    2
    """
    row, label_w = 18, 90
    height = row * len(counts) + 6
    top = max((c for _, c in counts), default=1) or 1
    parts = [
        f'<svg class="bars" data-column="{escape(name)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="values of {escape(name)}">'
    ]
    for i, (label, count) in enumerate(counts):
        w = (width - label_w - 60) * count / top
        yy = 3 + i * row
        parts.append(
            f'<text class="tick" x="{label_w - 4}" y="{yy + 12}" text-anchor="end">'
            f"{escape(label[:14])}</text>"
            f'<rect class="bar" data-value="{escape(label)}" x="{label_w}" y="{yy}" '
            f'width="{w:.1f}" height="{row - 4}"><title>{escape(label)}: {_fmt(count)}</title>'
            f"</rect>"
            f'<text class="tick" x="{label_w + w + 4:.1f}" y="{yy + 12}">{_fmt(count)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


#: a series longer than this gets a dot (a link to the run) only where its value is not zero
DOTS = 90


@dataclass(frozen=True)
class Point:
    """One run on a time chart: when, the value, a label, the run's page, whether anomalous,
    and the anomaly check's expected band at that run (when it was recorded)."""

    when: datetime
    value: float | None
    label: str
    href: str | None = None
    marked: bool = False
    band: tuple[float | None, float | None] | None = None
    #: when the run ran, if ``when`` is the time of its data (shown on hover)
    ran: datetime | None = None


def _bounds(points: Sequence[Point], thresholds: Sequence[float]) -> tuple[float, float, float]:
    """The value axis: from zero (or the lowest negative value) to a little above the highest
    value, band or threshold; and that highest one (labelled)."""
    seen = [p.value for p in points if p.value is not None]
    seen += [b for p in points if p.band for b in p.band if b is not None]
    seen += list(thresholds)
    lo, top = min([0.0, *seen]), max([0.0, *seen])
    hi = top if top != lo else lo + 1.0
    return lo, hi * 1.05 if hi > 0 else hi, top


def _band(
    banded: Sequence[tuple[float, tuple[float | None, float | None]]],
    y: Callable[[float], float],
    lo: float,
    hi: float,
) -> str:
    """The shaded band of expected values at the runs that recorded one (an open side reaches
    the axis' end; a single run gets a narrow bar)."""
    upper = [(bx, y(b[1] if b[1] is not None else hi)) for bx, b in banded]
    lower = [(bx, y(b[0] if b[0] is not None else lo)) for bx, b in banded]
    if len(banded) == 1:
        upper.append((upper[0][0] + 4, upper[0][1]))
        lower.append((lower[0][0] + 4, lower[0][1]))
    outline = " ".join(f"{px:.1f},{py:.1f}" for px, py in [*upper, *lower[::-1]])
    return f'<polygon class="band" points="{outline}"/>'


def _hover(p: Point) -> str:
    """When a point stands and, for a run placed at its data's time, when it ran.

    >>> _hover(Point(datetime(2026, 4, 1), 1, "r", ran=datetime(2026, 11, 28, 9, 30)))
    'data 2026-04-01 00:00, ran 2026-11-28 09:30'
    """
    if p.ran is None:
        return f"{p.when:%Y-%m-%d %H:%M}"
    return f"data {p.when:%Y-%m-%d %H:%M}, ran {p.ran:%Y-%m-%d %H:%M}"


def time_chart(
    key: str,
    points: Sequence[Point],
    *,
    thresholds: Sequence[float] = (),
    width: int = 640,
    height: int = 200,
) -> str:
    """A line over time (x: the runs' times, y: from zero), each point linked to its run's page,
    anomalous runs in red, a check's ``thresholds`` (its bounds) as dashed lines and recorded
    anomaly bands as a shaded area.

    >>> from datetime import datetime, timedelta
    >>> t = datetime(2026, 1, 1)
    >>> svg = time_chart("k", [Point(t, 2, "a"), Point(t + timedelta(days=1), 5, "b", marked=True)],
    ...                  thresholds=[4])
    >>> svg.count("<circle"), 'class="threshold"' in svg, '>0</text>' in svg
    (2, True, True)
    """
    left, right, top, bottom = 60, 14, 12, 34
    points = sorted(points, key=lambda p: p.when)  # the line runs in the data's time
    lo, hi, highest = _bounds(points, thresholds)
    times = [p.when.timestamp() for p in points]
    t0, t1 = (min(times), max(times)) if times else (0.0, 1.0)
    span = (t1 - t0) or 1.0

    def x(t: float) -> float:
        if len(points) < 2 or t1 == t0:
            return left + (width - left - right) / 2
        return left + (width - left - right) * (t - t0) / span

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - (v - lo) / (hi - lo))

    base = height - bottom
    parts = [
        f'<svg class="chart" data-metric="{escape(key)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(key)} over time">',
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{base}"/>',
        f'<line class="axis" x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}"/>',
        f'<text class="tick" x="{left - 4}" y="{y(highest) + 4:.1f}" text-anchor="end">'
        f"{_fmt(highest)}</text>",
        f'<text class="tick" x="{left - 4}" y="{y(0):.1f}" text-anchor="end">0</text>',
    ]
    if lo < 0:
        parts.append(
            f'<text class="tick" x="{left - 4}" y="{base}" text-anchor="end">{_fmt(lo)}</text>'
        )
    banded = [(x(t), p.band) for t, p in zip(times, points, strict=True) if p.band]
    if banded:
        parts.append(_band(banded, y, lo, hi))
    for bound in thresholds:
        parts.append(
            f'<line class="threshold" data-threshold="{bound!r}" x1="{left}" '
            f'y1="{y(bound):.1f}" x2="{width - right}" y2="{y(bound):.1f}"/>'
        )
    for t, anchor in ((t0, "start"), (t1, "end")) if times else ():
        when = datetime.fromtimestamp(t, timezone.utc)
        parts.append(
            f'<text class="tick" x="{x(t):.1f}" y="{height - 8}" text-anchor="{anchor}">'
            f"{when:%Y-%m-%d %H:%M}</text>"
        )
    line = [f"{x(t):.1f},{y(p.value):.1f}" for t, p in zip(times, points, strict=True)
            if p.value is not None]  # fmt: skip
    if len(line) > 1:
        parts.append(f'<polyline class="line" points="{" ".join(line)}"/>')
    every = len(points) <= DOTS
    for t, p in zip(times, points, strict=True):
        if p.value is None or not (every or p.value or p.marked or p is points[-1]):
            continue  # a long series: dots where something happened (the line shows the rest)
        label = escape(p.label)
        kind = "point anomaly" if p.marked else "point"
        dot = (
            f'<circle data-run="{label}" class="{kind}" data-value="{p.value!r}" '
            f'cx="{x(t):.1f}" cy="{y(p.value):.1f}" r="{5 if p.marked else 3}">'
            f"<title>{label} ({_hover(p)}): {_fmt(p.value)}</title></circle>"
        )
        parts.append(f'<a href="{escape(p.href)}">{dot}</a>' if p.href else dot)
    parts.append("</svg>")
    return "".join(parts)
