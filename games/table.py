"""The table: what the game page draws for one viewer (the board's spaces, the hand in
groups, what each space takes, the last turns with the words sent with them, the end of the
game, a player's private notes and, while they wait, their next game), from presenters' view."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from engine.cards import CAPACITY, TYPES, Seat, other
from games import (
    deals,
    event_log,
    history,
    notes,
    play_messages,
    presenters,
    reviews,
    selectors,
    services,
    turns,
)
from games.models import MESSAGE_MAX_CHARS, NOTE_MAX_CHARS, Game, Series, Vacation
from ratings import selectors as rating_selectors
from ratings.selectors import Shown

BOARD_ORDER = (
    "chest",
    "fire_dragon",
    "huntress",
    "stone_dragon",
    "princess",
    "troll",
    "dwarf",
    "ship",
    "hero",
)


def spaces(board: dict[str, list[dict[str, Any]]] | None) -> list[dict[str, Any]]:
    """The nine spaces in board order. A stack shows its top card and a count (a chest space
    can hold twenty cards: drawn in full it would push the hand off a phone's screen); a
    limited space shows each of its slots."""
    spaces = []
    for kind in BOARD_ORDER:
        cards = board[kind] if board else []
        capacity = CAPACITY.get(kind)
        spaces.append(
            {
                "kind": kind,
                "cards": cards,
                "top": cards[-1] if cards else None,
                "capacity": capacity,
                "free": capacity - len(cards) if capacity else None,
                "slots": [cards[i] if i < len(cards) else None for i in range(capacity or 0)],
            }
        )
    return spaces


def _takings(board: dict[str, list[dict[str, Any]]] | None) -> dict[str, dict[str, int]]:
    """Cards and points each choice would take now, for the princess and hero prompts."""
    piles = {"chests": "chest", "stones": "stone_dragon", "princesses": "princess", "trolls": "troll"}
    return {
        choice: {
            "cards": len(board[kind]) if board else 0,
            "points": sum(c["value"] for c in board[kind]) if board else 0,
        }
        for choice, kind in piles.items()
    }


def end_notice(view: dict[str, Any], me: Seat | None, names: dict[str, str]) -> str:
    """The end in sight, before the viewer plays (rule R1.9.1 of the shared rules contract:
    the game ends once turn ``last_turn`` is complete; ``turn`` counts completed turns). Turns
    are named as the news box numbers them: each player's own (turns.own_number)."""
    last, turn, to_move = view["last_turn"], view["turn"], view["to_move"]
    if last is None or view["status"] != "active" or to_move is None:
        return ""
    # The seat to move plays turn ``turn + 1``: that says who began.
    first = to_move if (turn + 1) % 2 == 1 else other(to_move)
    ender, n = turns.seat_of(last, first), turns.own_number(last, first)
    if me is None:
        return _("%(name)s's turn %(n)d is the last of the game.") % {"name": names[ender], "n": n}
    mine_next = turn + 1 if to_move == me else turn + 2
    if mine_next > last:
        return _("The game ends after %(name)s's next turn: you do not play again.") % {
            "name": names[other(me)]
        }
    if mine_next + 2 <= last:
        if ender == me:
            return _("The game ends after your turn %(n)d.") % {"n": n}
        return _("The game ends after %(name)s's turn %(n)d.") % {"name": names[ender], "n": n}
    if to_move == me:
        return _("This is your last turn: the game ends after it.")
    return _("Your next turn is your last.")


def _breakdown(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Final points per card type and the dragon's bonus, for the end screen."""
    captured = view["revealed"]["captured"]
    rows = []
    for kind in TYPES:
        if kind == "ship":
            continue
        points = [sum(c["value"] for c in captured[seat] if c["type"] == kind) for seat in ("a", "b")]
        rows.append({"label": capfirst(history.type_name(kind, 2)), "points": points})
    rows.append(
        {"label": _("Great Dragon"), "points": [3 if view["dragon"] == seat else 0 for seat in ("a", "b")]}
    )
    return rows


def _seat_ratings(game: Game) -> dict[str, Shown]:
    """Each human seat's rating as of now, by seat (one query)."""
    by_user = rating_selectors.shown_for([game.player_a_id, game.player_b_id])
    seats = {"a": game.player_a_id, "b": None if game.bot else game.player_b_id}
    return {seat: by_user[uid] for seat, uid in seats.items() if uid is not None}


def _rating_changes(game: Game, names: dict[str, str]) -> list[dict[str, Any]]:
    """How a finished rated game moved each player's rating, seat a first (one query)."""
    if not game.rated or game.status != Game.Status.FINISHED:
        return []
    seats = {game.player_a_id: "a", game.player_b_id: "b"}
    changes = sorted(rating_selectors.changes_in(game.pk), key=lambda c: seats.get(c.user_id, "z"))
    return [{"name": names[seats[c.user_id]], "change": c, "after": round(c.rating_after)} for c in changes]


def _player_extras(game: Game, user: User, view: dict[str, Any], turns_shown: list[Any]) -> dict[str, Any]:
    """What only a seated player sees: the words sent with the last turns (never a
    spectator's: play_messages.visible_messages), whether the opponent is muted, the player's
    own notes, and (shown while they wait for the opponent) the game that waits longest for
    them."""
    me = view["your_seat"]
    # Muted messages come without their text: the news box offers "Unmute" where one was.
    said = play_messages.messages_for(game, user)
    news = [{"turn": t, "message": said.get(t.game_turn)} for t in turns_shown]
    if me is None:
        return {"news": news, "notes": None, "next_game": None}
    note = notes.note_of(game=game, user=user)
    return {
        "news": news,
        "notes": note.text if note is not None else "",
        # Read for every player: the header's count reads it too (templatetags/your_games.py),
        # so a page pays one query for both; the button shows while the player waits.
        "next_game": selectors.next_game_for(user),
        "waiting_for_opponent": game.status == Game.Status.ACTIVE and not view["your_turn"],
        "opponent_name": game.player_name(other(me)),
        "notes_max": NOTE_MAX_CHARS,
        "message_max": MESSAGE_MAX_CHARS,
    }


def table_context(game: Game, user: User) -> dict[str, Any]:
    """Everything the table (templates/games/game.html and its partials) shows ``user``."""
    state = event_log.load_state(game) if game.version else None
    view = presenters.game_view(game, state, user)
    me = view["your_seat"]
    names = history.names_of(game)
    turns_shown = (
        turns.turn_context(turns.last_turns(game, me, state), presenters.faces(state.options.deck_profile))
        if state is not None
        else turns.turn_context([], {})
    )
    return {
        "game": game,
        "view": view,
        "play_key": secrets.token_urlsafe(16),
        "spaces": spaces(view["board"]),
        "hand_groups": presenters.hand_groups(view["hand"]),
        "takings": _takings(view["board"]),
        "end_notice": end_notice(view, me, names) if state is not None else "",
        **turns_shown,
        **_player_extras(game, user, view, turns_shown["last_turns"]),
        "bot_pending": bool(game.bot)
        and game.status == Game.Status.ACTIVE
        and game.to_move == services.BOT_SEAT,
        "breakdown": _breakdown(view) if view["result"] and view["revealed"] else [],
        "deal": deals.deal_context(game) if state is not None else None,
        "review": reviews.end_summary(game, names),
        "series": Series.objects.filter(pk=game.series_id).first() if game.series_id else None,
        "me": me,
        "seat_ratings": _seat_ratings(game),
        "rating_changes": _rating_changes(game, names),
        "opponent": other(me) if me else None,
        "reason": history.end_reason(game.end_reason) if game.end_reason else "",
        "away": [
            {"name": game.player_name("a" if v.user_id == game.player_a_id else "b"), "until": v.ends_at}
            for v in Vacation.objects.filter(
                user_id__in=[game.player_a_id, game.player_b_id],
                starts_at__lte=timezone.now(),
                ends_at__gt=timezone.now(),
            )
        ],
    }
