"""The rating history as a chart drawn on the server (an SVG in the page, no chart library in
the browser): the rating after each rated game as a line, the deviation as a band around it,
a few round ratings as grid lines. Coordinates only; templates/players/_chart.html draws."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ratings.models import RatingChange

WIDE = (640, 220)  # drawn at about its own size on a desktop
NARROW = (360, 240)  # and on a phone, where the wide one would shrink its labels out of sight
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28  # room for the axis labels


@dataclass(frozen=True)
class Chart:
    line: str  # the polyline's points
    band: str  # the polygon of rating ± deviation
    dots: list[tuple[float, float, int]]  # x, y, rating (each game's, for the last one's mark)
    grid: list[tuple[float, int]]  # y, rating
    first: datetime
    last: datetime
    width: int
    height: int

    @property
    def end(self) -> tuple[float, float, int]:
        return self.dots[-1]


def chart(changes: list[RatingChange], size: tuple[int, int] = WIDE) -> Chart | None:
    """The chart of ``changes`` (oldest first) at ``size``, starting from the rating before the
    first; None before a first rated game."""
    width, height = size
    if not changes:
        return None
    points = [(changes[0].rated_at, changes[0].rating_before, changes[0].deviation_before)] + [
        (c.rated_at, c.rating_after, c.deviation_after) for c in changes
    ]
    low = min(r - d for _, r, d in points)
    high = max(r + d for _, r, d in points)
    low, high = _round_down(low), _round_up(high)
    x_of = _scale(0, len(points) - 1, LEFT, width - RIGHT)  # by game, so a busy week is readable
    y_of = _scale(low, high, height - BOTTOM, TOP)
    line = [(x_of(i), y_of(r)) for i, (_, r, _) in enumerate(points)]
    upper = [(x_of(i), y_of(r + d)) for i, (_, r, d) in enumerate(points)]
    lower = [(x_of(i), y_of(r - d)) for i, (_, r, d) in enumerate(points)]
    step = _grid_step(high - low)
    grid = [(y_of(v), v) for v in range(int(low), int(high) + 1, step)]
    return Chart(
        line=_points(line),
        band=_points(upper + lower[::-1]),
        dots=[(x, y, round(r)) for (x, y), (_, r, _) in zip(line, points, strict=True)],
        grid=grid,
        first=points[0][0],
        last=points[-1][0],
        width=width,
        height=height,
    )


def _scale(lo: float, hi: float, out_lo: float, out_hi: float) -> Callable[[float], float]:
    span = (hi - lo) or 1.0
    return lambda v: round(out_lo + (v - lo) * (out_hi - out_lo) / span, 1)


def _points(pairs: list[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in pairs)


def _round_down(v: float) -> float:
    return math.floor(v / 100) * 100


def _round_up(v: float) -> float:
    return math.ceil(v / 100) * 100


def _grid_step(span: float) -> int:
    return 100 if span <= 600 else 200 if span <= 1200 else 500
