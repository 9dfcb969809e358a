"""Reads: one game by id for the hot paths, and the lobby's lists, each one query whatever
the number of games."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Count, Q, QuerySet

from games.models import Game, GameQuerySet
from ratings import selectors as rating_selectors
from ratings.selectors import Shown


@cache
def _game_row_query() -> tuple[str, list[str], list[tuple[int, list[Any], Any]]]:
    """The ORM's own SQL for ``Game.objects.filter(pk=…)`` and its row converters, made once."""
    compiler = Game.objects.filter(pk="").query.get_compiler(using=DEFAULT_DB_ALIAS)
    sql, _ = compiler.as_sql()
    columns = [column for column, _, _ in compiler.select]
    converters = compiler.get_converters(columns)
    names = [column.target.attname for column in columns]
    return sql, names, [(i, funcs, column) for i, (funcs, column) in converters.items()]


def game_by_id(game_id: str) -> Game | None:
    """The game row, exactly as ``Game.objects.filter(pk=game_id).first()`` gives it.

    Opening a game and playing are the busiest requests, and compiling the ORM query for a
    row this wide took more CPU than all the rest of opening a game; so the query is compiled
    once and the row still goes through the ORM's converters."""
    sql, names, converters = _game_row_query()
    db = connections[DEFAULT_DB_ALIAS]  # once: each read through django.db.connection looks it up
    with db.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for i, funcs, column in converters:
        for convert in funcs:
            values[i] = convert(values[i], column, db)
    return Game.from_db(db.alias, names, values)


def _light() -> GameQuerySet:
    # Lists never need the snapshot or the options.
    return Game.objects.defer("state", "options")


def lobby(user: User) -> dict[str, list[Game]]:
    mine = _light().of_player(user)
    active = list(mine.filter(status=Game.Status.ACTIVE).order_by("turn_started_at"))
    your_turn = [g for g in active if g.seat_of(user) == g.to_move]
    challenges = list(
        mine.filter(status__in=[Game.Status.CHALLENGE, Game.Status.OPEN]).order_by("-created_at")
    )
    return {
        "your_turn": your_turn,  # longest waiting first
        "their_turn": [g for g in active if g not in your_turn],
        "received": [g for g in challenges if g.player_b_id == user.pk],
        "sent": [g for g in challenges if g.created_by_id == user.pk],
        "open": list(
            _light()
            .filter(status=Game.Status.OPEN, private=False)
            .exclude(created_by=user)
            .order_by("-created_at")[:30]
        ),
        "finished": list(mine.filter(status=Game.Status.FINISHED).order_by("-finished_at")[:20]),
    }


def ratings_in(lists: dict[str, list[Game]], viewer: User) -> dict[int, Shown]:
    """The shown rating of the viewer and of every player in ``lists`` (games.selectors.lobby),
    in one query."""
    games = [g for listed in lists.values() for g in listed]
    ids = [viewer.pk] + [g.player_a_id for g in games] + [g.player_b_id for g in games]
    return rating_selectors.shown_for(ids)


def lobby_version(user: User) -> str:
    """A short fingerprint of everything the lobby's lists show, in one query: it changes
    when a challenge arrives, is accepted, declined or cancelled, an open challenge appears
    or goes, a game moves (its version) or ends. The lobby polls with it and is answered
    "nothing new" while it holds, whatever the number of games."""
    live = [Game.Status.CHALLENGE, Game.Status.OPEN, Game.Status.ACTIVE]
    shown = Game.objects.of_player(user).filter(status__in=live) | Game.objects.filter(
        status=Game.Status.OPEN, private=False
    )
    rows = shown.order_by("pk").values_list("pk", "status", "version")
    # A game that ends leaves this set, which changes the fingerprint: finished games need
    # no row of their own.
    digest = hashlib.blake2b(repr(list(rows)).encode(), digest_size=8)
    return digest.hexdigest()


def win_loss_record(user: User) -> dict[str, int]:
    """Wins, losses and draws over finished games, in one query."""
    finished = Game.objects.of_player(user).filter(status=Game.Status.FINISHED)
    return finished.aggregate(
        played=Count("pk"),
        wins=Count("pk", filter=Q(player_a=user, winner="a") | Q(player_b=user, winner="b")),
        losses=Count("pk", filter=Q(player_a=user, winner="b") | Q(player_b=user, winner="a")),
        draws=Count("pk", filter=Q(winner="")),
    )


def games_of(user: User, *, limit: int = 100) -> QuerySet[Game]:
    """The player's games, newest first (the profile's list)."""
    return _light().of_player(user).order_by("-created_at")[:limit]


class NextGame(NamedTuple):
    """Where "Next game" leads: the game that has waited longest for the player's move (None
    when none waits) and how many games wait for it."""

    game_id: str | None
    waiting: int


def next_game_for(user: User) -> NextGame:
    """The player's running games where it is their move, longest waiting first as in the
    lobby's "your turn" list: the first and the count, in one query (ids only; a player has a
    handful of games, not thousands)."""
    own_move = Q(player_a=user, to_move="a") | Q(player_b=user, to_move="b")
    waiting = Game.objects.of_player(user).filter(own_move, status=Game.Status.ACTIVE)
    ids = list(waiting.order_by("turn_started_at", "pk").values_list("pk", flat=True))
    return NextGame(ids[0] if ids else None, len(ids))
