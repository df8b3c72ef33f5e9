"""Inline SVG charts drawn by code for the review page: no scripts, no network assets."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 30, 40


@dataclass
class Point:
    label: str        # x label (a short run id)
    value: float
    key: str = ""     # full run id, written into data-run for tests and links
    note: str = ""    # tooltip text


def nice_ceiling(value: float) -> float:
    """The smallest 1/2/5 x 10^n at or above ``value`` (axis top)."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** _floor_log10(value)
    for step in (1, 2, 5, 10):
        if value <= step * magnitude:
            return step * magnitude
    return 10 * magnitude  # pragma: no cover


def _floor_log10(value: float) -> int:
    exponent = 0
    while value >= 10:
        value /= 10
        exponent += 1
    while value < 1:
        value *= 10
        exponent -= 1
    return exponent


def _fmt(value: float, unit: str) -> str:
    if unit == "$":
        if value == 0:
            return "$0"
        return f"${value:.4f}" if value < 0.01 else f"${value:.2f}"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def chart(chart_id: str, title: str, points: list[Point], unit: str = "",
          kind: str = "bar", color: str = "#3b6ea8") -> str:
    """One chart as an ``<svg>`` element; ``kind`` is 'bar' or 'line'."""
    head = (f'<svg class="chart" id="{escape(chart_id)}" role="img" viewBox="0 0 {WIDTH} '
            f'{HEIGHT}" width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{escape(title)}</title>'
            f'<text x="{LEFT}" y="18" class="chart-title">{escape(title)}</text>')
    if not points:
        return (head + f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" '
                'class="empty">no runs yet</text></svg>')
    top = nice_ceiling(max(p.value for p in points))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = [head]
    for frac in (0, 0.5, 1):
        y = TOP + plot_h * (1 - frac)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                     'class="grid"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">'
                     f'{escape(_fmt(top * frac, unit))}</text>')
    step = plot_w / len(points)

    def y_of(value: float) -> float:
        return TOP + plot_h * (1 - value / top)

    if kind == "line":
        coords = [(LEFT + step * (i + 0.5), y_of(p.value)) for i, p in enumerate(points)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                     'stroke-width="2"/>')
        for (x, y), p in zip(coords, points, strict=True):
            parts.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3.5" '
                         f'fill="{color}" data-run="{escape(p.key)}" data-value="{p.value:g}">'
                         f'<title>{escape(p.note or f"{p.label}: {_fmt(p.value, unit)}")}'
                         '</title></circle>')
    else:
        bar_w = max(2.0, step * 0.7)
        for i, p in enumerate(points):
            x = LEFT + step * i + (step - bar_w) / 2
            y = y_of(p.value)
            parts.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                         f'height="{TOP + plot_h - y:.1f}" fill="{color}" '
                         f'data-run="{escape(p.key)}" data-value="{p.value:g}">'
                         f'<title>{escape(p.note or f"{p.label}: {_fmt(p.value, unit)}")}'
                         '</title></rect>')
    every = max(1, -(-len(points) * 75 // plot_w))   # about 75 px per label
    for i, p in enumerate(points):
        if i % every == 0 or i == len(points) - 1:
            x = LEFT + step * (i + 0.5)
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                         f'class="tick">{escape(p.label)}</text>')
    parts.append('</svg>')
    return "".join(parts)
