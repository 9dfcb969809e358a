"""What a player's page and the leaderboard read, each in a fixed number of queries whatever the
number of games (the indexes on each seat and status serve them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet

from accounts import bots as bot_accounts
from engine.cards import Seat, other
from games.models import Game
from ratings import selectors as ratings

RECENT_GAMES = 10


@dataclass(frozen=True)
class Record:
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws


@dataclass(frozen=True)
class OpponentRecord:
    name: str  # a username, or "bot:LEVEL" (games.models.shown_name names it)
    is_bot: bool  # the site's own bot or a bot account
    record: Record

    @property
    def is_site_bot(self) -> bool:
        """The site's own bot, which has no player's page (a bot account has one)."""
        return self.name.startswith("bot:")


def _counted(rows: QuerySet[Game, Any], seat: Seat) -> QuerySet[Game, Any]:
    return rows.annotate(
        wins=Count("pk", filter=Q(winner=seat)),
        losses=Count("pk", filter=Q(winner=other(seat))),
        draws=Count("pk", filter=Q(winner="")),
    )


def against_each_opponent(user: User) -> list[OpponentRecord]:
    """Finished games (an aborted one never counts) by opponent, the most played first; every
    bot level is an opponent of its own. Two queries: as seat a, as seat b."""
    finished = Game.objects.filter(status=Game.Status.FINISHED).exclude(end_reason="aborted")
    totals: dict[tuple[str, bool], Record] = {}
    as_a = _counted(
        finished.filter(player_a=user).values("player_b_name", "bot", "player_b_is_bot").order_by(), "a"
    )
    as_b = _counted(finished.filter(player_b=user).values("player_a_name", "player_a_is_bot").order_by(), "b")
    for row in as_a:
        key = (
            f"bot:{row['bot']}" if row["bot"] else row["player_b_name"],
            bool(row["bot"]) or row["player_b_is_bot"],
        )
        totals[key] = _plus(totals.get(key), row)
    for row in as_b:
        key = (row["player_a_name"], row["player_a_is_bot"])
        totals[key] = _plus(totals.get(key), row)
    records = [OpponentRecord(name, is_bot, record) for (name, is_bot), record in totals.items()]
    return sorted(records, key=lambda r: (-r.record.played, r.name.lower()))


def _plus(record: Record | None, row: dict[str, Any]) -> Record:
    base = record or Record()
    return Record(base.wins + row["wins"], base.losses + row["losses"], base.draws + row["draws"])


def overall(opponents: list[OpponentRecord]) -> Record:
    return Record(
        sum(o.record.wins for o in opponents),
        sum(o.record.losses for o in opponents),
        sum(o.record.draws for o in opponents),
    )


# What a row of games shows (templates/games/_game_row.html and the outcome): never the state.
ROW_FIELDS = (
    "status", "player_a_id", "player_b_id", "player_a_name", "player_b_name", "player_a_is_bot",
    "player_b_is_bot", "bot", "rated",
    "rating_min", "rating_max", "series_id", "number", "to_move", "winner", "scores", "end_reason",
    "turn_started_at", "finished_at",
)  # fmt: skip


def current_games(user: User) -> list[Game]:
    running = Game.objects.of_player(user).filter(status=Game.Status.ACTIVE).only(*ROW_FIELDS)
    return list(running.order_by("-turn_started_at")[:50])


def recent_games(user: User) -> list[Game]:
    finished = Game.objects.of_player(user).filter(status=Game.Status.FINISHED).exclude(end_reason="aborted")
    return list(finished.only(*ROW_FIELDS).order_by("-finished_at")[:RECENT_GAMES])


def player_named(name: str) -> User | None:
    # With its bot account (or none): the page and the API say whether it is a bot, no query more.
    users = User.objects.filter(username__iexact=name, is_active=True)
    return users.select_related("rating", "bot_account").first()


def shown_rating(user: User) -> ratings.Shown:
    return ratings.shown(getattr(user, "rating", None))


@dataclass(frozen=True)
class OnlineBot:
    user_id: int
    username: str
    rating: ratings.Shown
    seen_at: datetime  # the stream's last mark (accounts.bots.mark_streaming)


def online_bots(now: datetime | None = None) -> list[OnlineBot]:
    """The bot accounts with an account stream open now, by name: two queries and a read of
    the cache."""
    seen = bot_accounts.online_bots(now)
    if not seen:
        return []
    users = User.objects.filter(pk__in=seen, is_active=True).select_related("rating")
    return [
        OnlineBot(user.pk, user.username, ratings.shown(getattr(user, "rating", None), now), seen[user.pk])
        for user in users.order_by("username")
    ]
