"""Small SVG charts drawn on the server: no chart library, nothing fetched by the page."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

SEAT_COLOURS = ("#d1495b", "#00798c", "#edae49", "#66a182")
WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 28, 36


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi == lo:
        return [lo]
    raw = (hi - lo) / n
    magnitude = 10 ** len(str(int(abs(raw)))) / 10 if raw >= 1 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    start = (lo // step) * step
    out, v = [], start
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            out.append(v)
        v += step
    return out


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def line_chart(
    series: Sequence[Sequence[float]],
    labels: Sequence[str],
    title: str,
    x_label: str,
    *,
    width: int = WIDTH,
    font: int = 12,
) -> str:
    """One line per entry of ``series`` (all the same length), on a shared y axis with 0.
    ``width`` and ``font``: a narrower chart with larger text stays readable where a phone
    shrinks it to its screen."""
    n = max((len(s) for s in series), default=0)
    values = [v for s in series for v in s] + [0.0]
    lo, hi = min(values), max(values)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    plot_w, plot_h = width - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (hi - v) / (hi - lo)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {HEIGHT}" '
        f'width="{width}" height="{HEIGHT}" role="img" aria-label="{escape(title)}" '
        f'font-family="Noto Sans CJK SC, sans-serif" font-size="{font}">',
        f'<rect width="{width}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="18" font-size="{font + 2}" font-weight="bold">{escape(title)}</text>',
    ]
    for t in _ticks(lo, hi):
        parts.append(
            f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
            f'stroke="{"#888" if t == 0 else "#e3e3e3"}"/>'
            f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>'
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle">'
        f"{escape(x_label)} (n = {n})</text>"
    )
    for k, s in enumerate(series):
        colour = SEAT_COLOURS[k % len(SEAT_COLOURS)]
        if s:
            points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s))
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
            )
        lx = LEFT + 8 + k * 120
        parts.append(
            f'<rect x="{lx}" y="{TOP + 4}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{lx + 16}" y="{TOP + 14}">{escape(labels[k] if k < len(labels) else "")}'
            f"{' ' + _fmt(s[-1]) if s else ''}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _bars_frame(title: str, hi: float) -> list[str]:
    """The SVG's start, title and the y grid from 0 to ``hi`` of a bar chart."""
    plot_h = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}" '
        'font-family="Noto Sans CJK SC, sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for t in _ticks(0, hi):
        yy = TOP + plot_h * (1 - t / hi)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#e3e3e3"/>'
            f'<text x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end">{_fmt(t)}</text>'
        )
    return parts


def bar_chart(values: Sequence[float], labels: Sequence[str], title: str) -> str:
    """Vertical bars (e.g. hands per day), labelled under each bar."""
    n = len(values)
    hi = max([*values, 1.0])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bar = plot_w / max(n, 1)
    parts = _bars_frame(title, hi)
    every = max(1, n // 10)
    for i, v in enumerate(values):
        h = plot_h * v / hi
        bx = LEFT + i * bar + bar * 0.1
        parts.append(
            f'<rect x="{bx:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar * 0.8:.1f}" '
            f'height="{h:.1f}" fill="{SEAT_COLOURS[1]}"><title>{escape(labels[i])}: '
            f"{_fmt(v)}</title></rect>"
        )
        if i % every == 0:
            parts.append(
                f'<text x="{bx + bar * 0.4:.1f}" y="{HEIGHT - 18}" text-anchor="middle" '
                f'font-size="10">{escape(labels[i][5:])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def count_chart(
    observed: Sequence[float], expected: Sequence[float], labels: Sequence[str], title: str
) -> str:
    """Bars of observed counts, each with a dark tick at the count fair play expects."""
    n = len(observed)
    hi = max([*observed, *expected, 1.0])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bar = plot_w / max(n, 1)
    parts = _bars_frame(title, hi)
    every = max(1, n // 20)
    for i, (v, e) in enumerate(zip(observed, expected, strict=True)):
        h = plot_h * v / hi
        bx = LEFT + i * bar + bar * 0.1
        ey = TOP + plot_h * (1 - e / hi)
        parts.append(
            f'<rect x="{bx:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar * 0.8:.1f}" '
            f'height="{h:.1f}" fill="{SEAT_COLOURS[1]}"><title>{escape(labels[i])}: '
            f"{_fmt(v)} ({_fmt(round(e, 1))})</title></rect>"
            f'<line x1="{bx:.1f}" x2="{bx + bar * 0.8:.1f}" y1="{ey:.1f}" y2="{ey:.1f}" '
            'stroke="#222" stroke-width="2"/>'
        )
        if i % every == 0:
            parts.append(
                f'<text x="{bx + bar * 0.4:.1f}" y="{HEIGHT - 18}" text-anchor="middle" '
                f'font-size="10">{escape(labels[i])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
