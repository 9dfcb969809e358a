"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) by the ``glicko2`` package, one
game per rating period as lichess rates correspondence games, and the deviation grown by the
time a player spent without a rated game (the paper's step 6 for each idle period).

glicko2 2.1.0 writes the volatility's function f with the player's rating where the paper has
its deviation (phi squared): it agrees with the paper only for a player rated exactly 1500,
which is why its own test (the paper's example) passes. ``_Player`` puts the paper's f back;
tests/ratings/test_glicko.py holds it against the paper's formula and notices when the package
has fixed it (then this override can go)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import glicko2

SCALE = 173.7178  # the paper's conversion between the Glicko scale and Glicko-2's
START_RATING = 1500.0
START_DEVIATION = 350.0  # the paper's unrated player; also the cap inactivity grows towards
START_VOLATILITY = 0.06
PROVISIONAL_ABOVE = 110.0  # deviation above which a rating is shown with "?", as lichess does


class Glicko(NamedTuple):
    rating: float
    deviation: float
    volatility: float

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_ABOVE


START = Glicko(START_RATING, START_DEVIATION, START_VOLATILITY)


class _Player(glicko2.Player):  # type: ignore[misc]
    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        phi2 = (self.rd / SCALE) ** 2
        ex = math.exp(x)
        return float(ex * (delta**2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / self._tau**2)


def idle(player: Glicko, periods: float) -> Glicko:
    """``player`` after ``periods`` rating periods without a game: the deviation grows by the
    volatility for each (a fraction of a period counts as that fraction), never past the start."""
    if periods <= 0:
        return player
    phi2 = (player.deviation / SCALE) ** 2 + player.volatility**2 * periods
    return player._replace(deviation=min(START_DEVIATION, math.sqrt(phi2) * SCALE))


def rate(player: Glicko, opponent: Glicko, score: float) -> Glicko:
    """``player`` after one game against ``opponent`` scoring ``score`` (1 win, 0.5 draw, 0 loss)."""
    return rate_period(player, [(opponent, score)])


def rate_period(player: Glicko, games: list[tuple[Glicko, float]]) -> Glicko:
    """``player`` after a rating period of ``games`` (opponent, score), as in the paper."""
    p: Any = _Player(rating=player.rating, rd=player.deviation, vol=player.volatility)
    p.update_player([o.rating for o, _ in games], [o.deviation for o, _ in games], [s for _, s in games])
    return Glicko(float(p.rating), min(START_DEVIATION, float(p.rd)), float(p.vol))
