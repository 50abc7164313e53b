"""Inline SVG charts for the report: trend lines with marked anomalies, and bar charts.

Drawn as SVG text here, so the report is one file that needs no script and no network to view.
"""

from __future__ import annotations

from collections.abc import Sequence
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
