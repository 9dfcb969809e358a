"""Writing ratings: each rated game's result once, in the transaction that ends the game, and
the whole projection again from the results (``rebuild``). Both go through ``step``, so that a
rebuild reproduces what was written, to the last bit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.conf import settings
from django.db import transaction

from ratings.glicko import START, Glicko, idle, rate
from ratings.models import Rating, RatingChange

ESTABLISHED_GAMES = 5  # rated games in the last ESTABLISHED_DAYS to be on the leaderboard


@dataclass(frozen=True)
class Result:
    """A rated game's end as the games floor hands it over."""

    game_id: str
    player_a: int
    player_b: int
    score_a: float  # 1 seat a won, 0.5 a draw, 0 seat b won
    ended_at: datetime


def score_of_a(winner: str | None) -> float:
    """Seat a's score in a game ``winner`` won ("a", "b"; empty or None: a draw)."""
    return {"a": 1.0, "b": 0.0}.get(winner or "", 0.5)


@dataclass(frozen=True)
class Standing:
    """What the projection keeps of a player."""

    glicko: Glicko = START
    games: int = 0
    rated_at: datetime | None = None
    recent: tuple[datetime, ...] = field(default=())  # the last ESTABLISHED_GAMES games' ends

    @property
    def fifth_last_at(self) -> datetime | None:
        return self.recent[0] if len(self.recent) == ESTABLISHED_GAMES else None


def periods_between(earlier: datetime | None, later: datetime) -> float:
    """Rating periods (RATING_PERIOD_DAYS) from ``earlier`` to ``later``; none before a first game."""
    if earlier is None:
        return 0.0
    period_seconds = int(settings.RATING_PERIOD_DAYS) * 86400
    return max(0.0, (later - earlier).total_seconds() / period_seconds)


def step(
    a: Standing, b: Standing, result: Result
) -> tuple[Standing, Standing, tuple[RatingChange, RatingChange]]:
    """Both players after ``result``: each rated against the other as they stood when the game
    ended (their deviations grown by the time since their last rated game)."""
    a_now = idle(a.glicko, periods_between(a.rated_at, result.ended_at))
    b_now = idle(b.glicko, periods_between(b.rated_at, result.ended_at))
    a_after = _after(a, rate(a_now, b_now, result.score_a), result.ended_at)
    b_after = _after(b, rate(b_now, a_now, 1 - result.score_a), result.ended_at)
    changes = (
        _change(result, result.player_a, result.player_b, result.score_a, a_now, a_after.glicko),
        _change(result, result.player_b, result.player_a, 1 - result.score_a, b_now, b_after.glicko),
    )
    return a_after, b_after, changes


def _after(before: Standing, glicko: Glicko, at: datetime) -> Standing:
    recent = (*before.recent, at)[-ESTABLISHED_GAMES:]
    return replace(before, glicko=glicko, games=before.games + 1, rated_at=at, recent=recent)


def _change(
    result: Result, user: int, opponent: int, score: float, before: Glicko, after: Glicko
) -> RatingChange:
    return RatingChange(
        game_id=result.game_id,
        user_id=user,
        opponent_id=opponent,
        score=score,
        rating_before=before.rating,
        deviation_before=before.deviation,
        rating_after=after.rating,
        deviation_after=after.deviation,
        volatility_after=after.volatility,
        rated_at=result.ended_at,
    )


def rate_game(result: Result) -> None:
    """Record ``result`` in the caller's transaction (the one that ends the game); a game rated
    already is left alone. The two rating rows are locked in a fixed order, so that two games
    ending at once for the same player are rated one after the other, never both from the same
    rating."""
    with transaction.atomic():
        if RatingChange.objects.filter(game_id=result.game_id).exists():
            return
        ids = sorted((result.player_a, result.player_b))
        Rating.objects.bulk_create([Rating(user_id=i) for i in ids], ignore_conflicts=True)
        rows = {
            r.user_id: r for r in Rating.objects.select_for_update().filter(user_id__in=ids).order_by("pk")
        }
        a, b = (_standing(rows[result.player_a]), _standing(rows[result.player_b]))
        a_after, b_after, changes = step(a, b, result)
        RatingChange.objects.bulk_create(changes)
        for user_id, standing in ((result.player_a, a_after), (result.player_b, b_after)):
            _store(rows[user_id], standing)


def _standing(row: Rating) -> Standing:
    recent = RatingChange.objects.filter(user_id=row.user_id).order_by("-rated_at", "-pk")
    times = [c.rated_at for c in recent.only("rated_at")[: ESTABLISHED_GAMES - 1]]
    return Standing(row.glicko, row.games, row.rated_at, tuple(reversed(times)))


def _store(row: Rating, standing: Standing) -> None:
    row.rating, row.deviation, row.volatility = standing.glicko
    row.games = standing.games
    row.rated_at = standing.rated_at
    row.fifth_last_at = standing.fifth_last_at
    row.save(update_fields=["rating", "deviation", "volatility", "games", "rated_at", "fifth_last_at"])


def replay(results: Iterable[Result]) -> tuple[dict[int, Standing], list[RatingChange]]:
    """Every player's standing and every change, computed afresh from ``results`` in the order
    given (the order the games ended)."""
    standings: dict[int, Standing] = {}
    changes: list[RatingChange] = []
    for result in results:
        a, b = standings.get(result.player_a, Standing()), standings.get(result.player_b, Standing())
        standings[result.player_a], standings[result.player_b], pair = step(a, b, result)
        changes.extend(pair)
    return standings, changes


@dataclass(frozen=True)
class Difference:
    user_id: int
    stored: tuple[float, float, float, int] | None
    computed: tuple[float, float, float, int] | None


def differences(standings: dict[int, Standing]) -> list[Difference]:
    """Where the stored ratings differ from ``standings`` (exactly: the same arithmetic in the
    same order gives the same floats)."""
    stored = {r.user_id: (r.rating, r.deviation, r.volatility, r.games) for r in Rating.objects.all()}
    computed = {u: (*s.glicko, s.games) for u, s in standings.items()}
    return [
        Difference(user, stored.get(user), computed.get(user))
        for user in sorted(stored.keys() | computed.keys())
        if stored.get(user) != computed.get(user)
    ]


@transaction.atomic
def overwrite(standings: dict[int, Standing], changes: list[RatingChange]) -> None:
    """Replace the whole projection with a rebuilt one."""
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    RatingChange.objects.bulk_create(changes, batch_size=2000)
    Rating.objects.bulk_create(
        [
            Rating(
                user_id=user,
                rating=s.glicko.rating,
                deviation=s.glicko.deviation,
                volatility=s.glicko.volatility,
                games=s.games,
                rated_at=s.rated_at,
                fifth_last_at=s.fifth_last_at,
            )
            for user, s in standings.items()
        ],
        batch_size=2000,
    )
