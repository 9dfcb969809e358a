"""What a change to a game or a challenge tells its players' account streams (issue 27; the
streams themselves: games/streams.py). Each function returns unsaved rows
(outbox.account_events) for the change to write with its own: an event exists exactly when
its change committed.

Only accounts hear: the site's own bot (seat b with ``Game.bot``) has no stream. Every
``data`` names its game as ``game_id``; a ``your_turn`` carries the view the player's
``GET /api/games/{id}/`` returns at that version (games/presenters.py), so that a program can
play without another call.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

from engine import AnyEvent
from engine import events as ev
from engine.cards import SEATS, Seat
from engine.state import State
from games import event_log, presenters
from games.models import Game
from outbox import account_events
from outbox.models import AccountEvent
from ratings import selectors as rating_selectors

CHALLENGE = "challenge"
CHALLENGE_GONE = "challenge_gone"
GAME_START = "game_start"
YOUR_TURN = "your_turn"
GAME_OVER = "game_over"
# Facts of the clock, not of the play: they leave the turn where it was and announce none.
_CLOCK_FACTS = frozenset({ev.VACATION_STARTED, ev.VACATION_ENDED})


def _account(game: Game, seat: Seat) -> int | None:
    """The account in ``seat``, or None (an open seat, the site's bot)."""
    if game.is_bot_seat(seat):
        return None
    return game.player_a_id if seat == "a" else game.player_b_id


def player(game: Game, seat: Seat) -> dict[str, Any] | None:
    name = game.player_name(seat)
    if name is None:
        return None
    return {"username": name, "is_bot": game.seat_is_bot(seat)}


def challenge_data(game: Game, direction: str, ratings: Mapping[int, int]) -> dict[str, Any]:
    """A challenge as a stream tells it: who asks whom, and everything accepting commits to.
    ``direction`` is "in" for the challenged account, "out" for the challenger's own."""
    challenger, challenged = player(game, "a"), player(game, "b")
    for entry, user_id in ((challenger, game.player_a_id), (challenged, game.player_b_id)):
        if entry is not None and user_id is not None:
            entry["rating"] = ratings.get(user_id)
    return {
        "game_id": game.pk,
        "direction": direction,
        "challenger": challenger,
        "challenged": challenged,
        "rated": game.rated,
        "days_per_turn": game.days_per_turn,
        "rules": game.options,
        "series": _series(game),
        "private": game.private,
        "rating_min": game.rating_min,
        "rating_max": game.rating_max,
        "created_at": game.created_at,
    }


def _series(game: Game) -> dict[str, Any] | None:
    if game.series_id is None:
        return None
    series = game.series
    assert series is not None
    return {"kind": series.kind, "target": series.target, "number": game.number}


def ratings_of(games: Iterable[Game]) -> dict[int, int]:
    """The shown rating of every player of ``games``, in one query."""
    ids = {user_id for g in games for user_id in (g.player_a_id, g.player_b_id) if user_id is not None}
    return {user_id: shown.rating for user_id, shown in rating_selectors.shown_for(ids).items()}


def challenge_made(game: Game) -> list[AccountEvent]:
    """A new challenge: to the challenged account, and to the challenger's own stream (its
    open challenges are part of its snapshot too)."""
    ratings = ratings_of([game])
    rows = [_event(game.created_by_id, CHALLENGE, challenge_data(game, "out", ratings))]
    if game.status == Game.Status.CHALLENGE and game.player_b_id is not None:
        rows.append(_event(game.player_b_id, CHALLENGE, challenge_data(game, "in", ratings)))
    return rows


def challenge_gone(game: Game, reason: str, *, challenged_id: int | None) -> list[AccountEvent]:
    """The challenge was cancelled, declined or accepted: gone for whoever was told of it."""
    data = {"game_id": game.pk, "reason": reason}
    told = {user_id for user_id in (game.created_by_id, challenged_id) if user_id is not None}
    return [_event(user_id, CHALLENGE_GONE, data) for user_id in sorted(told)]


def after_change(
    game: Game, state: State, events: list[AnyEvent], columns: Mapping[str, Any]
) -> list[AccountEvent]:
    """What a change appended to ``game``'s log (not yet applied to ``game``: ``columns``
    are the columns it will set beyond the state's) tells the players: a start, and whose
    turn it now is. A game's end is ``game_over``, written with the end's other rows."""
    rows: list[AccountEvent] = []
    if any(e["kind"] == ev.GAME_STARTED for e in events):
        rows += _game_started(game)
    if state.over or state.to_move is None or all(e["kind"] in _CLOCK_FACTS for e in events):
        return rows
    user_id = _account(game, state.to_move)
    if user_id is not None:
        rows.append(your_turn(_as_after(game, state, columns), state, user_id))
    return rows


def _as_after(game: Game, state: State, columns: Mapping[str, Any]) -> Game:
    """``game`` as its row will be once the change is written (event_log.append)."""
    after = copy.copy(game)
    for name, value in {**event_log.cache_fields(state), **columns}.items():
        setattr(after, name, value)
    return after


def your_turn_data(game: Game, state: State, user_id: int) -> dict[str, Any]:
    view = presenters.game_view(game, state, SimpleNamespace(pk=user_id))
    return {"game_id": game.pk, "version": state.version, "deadline": view["deadline"], "view": view}


def your_turn(game: Game, state: State, user_id: int) -> AccountEvent:
    return _event(user_id, YOUR_TURN, your_turn_data(game, state, user_id), game.pk)


def _game_started(game: Game) -> list[AccountEvent]:
    rows = []
    for seat in SEATS:
        user_id = _account(game, seat)
        if user_id is not None:
            other: Seat = "b" if seat == "a" else "a"
            data = {"game_id": game.pk, "seat": seat, "opponent": player(game, other)}
            rows.append(_event(user_id, GAME_START, data, game.pk))
    return rows


def game_over(game: Game) -> list[AccountEvent]:
    """The end, to both players (``game`` as the end left it)."""
    data = {"game_id": game.pk, "result": presenters.result(game), "scores": game.scores}
    return [
        _event(user_id, GAME_OVER, data, game.pk)
        for seat in SEATS
        if (user_id := _account(game, seat)) is not None
    ]


def _event(user_id: int, kind: str, data: dict[str, Any], game_id: str = "") -> AccountEvent:
    return account_events.event(user_id=user_id, kind=kind, data=data, game_id=game_id or data["game_id"])
