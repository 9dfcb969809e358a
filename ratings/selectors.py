"""Reading ratings as pages and the API show them: as of now (the deviation grown by the time
since the player's last rated game), with "?" while provisional."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.utils import timezone

from ratings.glicko import PROVISIONAL_ABOVE, START, Glicko, idle
from ratings.models import Rating, RatingChange
from ratings.services import periods_between

LEADERBOARD_SIZE = 100


class Shown(NamedTuple):
    rating: int
    deviation: int
    provisional: bool
    games: int

    def __str__(self) -> str:
        return f"{self.rating}{'?' if self.provisional else ''}"


def shown(row: Rating | None, now: datetime | None = None) -> Shown:
    """A player's rating as of ``now``; a player without a rated game has the start rating."""
    if row is None:
        return _shown(START, 0)
    at = now or timezone.now()
    return _shown(idle(row.glicko, periods_between(row.rated_at, at)), row.games)


def _shown(glicko: Glicko, games: int) -> Shown:
    return Shown(round(glicko.rating), round(glicko.deviation), glicko.provisional, games)


def shown_for(user_ids: Iterable[int | None]) -> dict[int, Shown]:
    """The shown rating of each of ``user_ids`` (None skipped), in one query."""
    wanted = {i for i in user_ids if i is not None}
    if not wanted:
        return {}
    now = timezone.now()
    rows = {r.user_id: r for r in Rating.objects.filter(user_id__in=wanted)}
    return {i: shown(rows.get(i), now) for i in wanted}


def history(user_id: int) -> list[RatingChange]:
    """The player's rating changes, oldest first (the chart)."""
    return list(RatingChange.objects.filter(user_id=user_id).order_by("rated_at", "pk"))


def changes_in(game_id: str) -> list[RatingChange]:
    """The rating changes a game made (none for a casual or aborted game)."""
    return list(RatingChange.objects.filter(game_id=game_id))


class Ranked(NamedTuple):
    rank: int
    user_id: int
    username: str
    shown: Shown


def leaderboard(limit: int = LEADERBOARD_SIZE, *, bots: bool = False) -> list[Ranked]:
    """Established players, best first: at least ESTABLISHED_GAMES rated games in the last
    ESTABLISHED_DAYS and a rating no longer provisional as of now. People, or with ``bots``
    the bot accounts: each kind is rated against its own (games.challenges), on a board of
    its own."""
    now = timezone.now()
    cutoff = now - timedelta(days=settings.ESTABLISHED_DAYS)
    # The stored deviation only grows until now, so it bounds the shown one from below: the
    # query drops what is provisional already, the exact check comes after, over a margin of
    # rows (values, not model instances: a page of the leaderboard reads a hundred of them).
    rows = (
        Rating.objects.filter(
            fifth_last_at__gte=cutoff, deviation__lte=PROVISIONAL_ABOVE, user__bot_account__isnull=not bots
        )
        .order_by("-rating", "user_id")
        .values_list("user_id", "user__username", "rating", "deviation", "volatility", "games", "rated_at")[
            : limit + limit // 2
        ]
    )
    ranked: list[Ranked] = []
    for user_id, username, rating, deviation, volatility, games, rated_at in rows:
        glicko = idle(Glicko(rating, deviation, volatility), periods_between(rated_at, now))
        if not glicko.provisional:
            ranked.append(Ranked(len(ranked) + 1, user_id, username, _shown(glicko, games)))
        if len(ranked) == limit:
            break
    return ranked
