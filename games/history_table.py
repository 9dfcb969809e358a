"""The table at a past turn: what the history page draws for one viewer (the board after the
turn, or after the better play the review found; the turn's events in words; the whole log
beside it, with the words the players sent with their plays and the reader's own notes, for the
two players only), from presenters' view as the game page's table is (games/table.py)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User

from engine.cards import Seat, other
from engine.events import Event
from engine.state import State
from games import history, notes, play_messages, presenters, reviews, table
from games.models import NOTE_MAX_CHARS, Game, GameEvent, TurnReview


@dataclass(frozen=True)
class _Step:
    """The turn on the board: the position it left, its events in words, the cards it put down."""

    state: State
    lines: list[str]
    fresh: set[str]
    better: bool  # the position is the better play's, not the one played


def history_context(
    game: Game, rows: list[GameEvent], viewer: User, query: Mapping[str, str]
) -> dict[str, Any]:
    """One turn of ``game`` (``query``: see asked_turn), its events in words and the board after
    it, as ``viewer`` may see it then; the whole log (``rows``, not empty) beside it."""
    log = [row.as_engine_event() for row in rows]
    seat = game.seat_of(viewer)
    turns = history.turns_of(log)
    step, last = asked_turn(query, turns, seat), turns[-1].number
    live = step == last and game.status == Game.Status.ACTIVE
    state = history.state_at(log, turns[step].end)
    judged = reviews.turn_reviews(game)  # empty until the game is over
    log_turns = _log_turns(rows, turns, game, viewer, state.values, judged)
    said = play_messages.visible_messages(game, viewer)  # none for a spectator
    for entry in log_turns:
        entry["message"] = said.get(entry["number"])
    row = judged.get(step) if step else None
    lines = log_turns[step]["lines"]
    shown = _shown_step(game, log, turns[step], state, lines, row, want_better=bool(query.get("better")))
    revealed = game.status == Game.Status.FINISHED
    # A past position has no clock: the deadline is the present turn's, so the panels of any
    # other step are drawn from a copy of the game without it (never saved).
    shown_game = game if live else _without_clock(game)
    return {
        **_board(shown_game, shown, viewer, seat, revealed=revealed),
        "step": step,
        "last": last,
        "turns": log_turns,
        "current": log_turns[step],
        "live": live,
        "note": reviews.turn_note(
            row, presenters.faces(shown.state.options.deck_profile), shown.state.values
        ),
        "review_pending": revealed and not judged and last > 0,
        **_reader_notes(game, viewer, seat),
    }


def _reader_notes(game: Game, viewer: User, seat: Seat | None) -> dict[str, Any]:
    """The reader's own notes beside the history (a player only: a spectator has none)."""
    if seat is None:
        return {"notes": None}
    note = notes.note_of(game=game, user=viewer)
    return {"notes": note.text if note else "", "notes_max": NOTE_MAX_CHARS, "back": "history"}


def asked_turn(query: Mapping[str, str], turns: list[history.Turn], seat: str | None) -> int:
    """The turn asked for: ``?turn=N`` (0 the deal); an old event link ``?step=N`` opens the
    turn holding that event; ``?since=1`` the first turn after the viewer's own last; else the
    last."""
    last = turns[-1].number
    try:
        if "turn" in query:
            return min(max(int(query["turn"]), 0), last)
        if "step" in query:
            return history.turn_of_step(turns, int(query["step"]))
    except ValueError:
        return last
    return history.first_unseen_turn(turns, seat) if query.get("since") else last


def _shown_step(
    game: Game,
    log: list[Event],
    turn: history.Turn,
    state: State,
    lines: list[str],
    row: TurnReview | None,
    *,
    want_better: bool,
) -> _Step:
    """The turn as played, its cards marked on the board as the game page marks the latest
    turn's (a history step is no moment for the capture animation); or, when ``want_better``
    and the review marked the turn, the board as the better play would have left it, told in
    the same words."""
    opener = log[turn.start]  # the turn's play (the deal's start for turn 0)
    fresh = set(opener["cards"]) if opener["kind"] == "cards_played" else set()
    if not (want_better and row is not None and row.mark):
        return _Step(state, lines, fresh, better=False)
    state, events = reviews.better_position(log, turn.start, row)
    names = history.names_of(game)
    lines = [history.describe(dict(e), names, state.values) for e in events if e["kind"] != "turn_ended"]
    return _Step(state, lines, set(row.best_cards), better=True)


def _board(game: Game, shown: _Step, viewer: User, seat: Seat | None, *, revealed: bool) -> dict[str, Any]:
    """The board and the two seats' panels at the step, as ``viewer`` may see them then."""
    view = presenters.state_view(game, shown.state, viewer, revealed=revealed)
    return {
        "game": game,
        "view": view,
        "spaces": table.spaces(view["board"]),
        "lines": shown.lines,
        "seats": _seats(view, seat),
        "fresh": shown.fresh,
        "flights": [],
        "me": seat,
        "opponent": other(seat) if seat else None,
        "better": shown.better,
    }


def _seats(view: dict[str, Any], me: Seat | None) -> dict[str, dict[str, Any]]:
    """The two seats in the order of the game page: the opponent above the board, the viewer
    below (a spectator sees seat b above, a below), each with the cards it may show now: the
    viewer's own hand, and every hand and draw pile once the game is over."""
    players = {p["seat"]: p for p in view["players"]}
    revealed = view["revealed"]

    def side(seat: str) -> dict[str, Any]:
        hand = revealed["hands"][seat] if revealed else view["hand"] if seat == me else None
        pile = revealed["piles"][seat] if revealed else None
        return {"player": players[seat], "own": seat == me, "hand": hand, "pile": pile}

    return {"top": side(other(me) if me else "b"), "bottom": side(me or "a")}


def _without_clock(game: Game) -> Game:
    past = copy.copy(game)
    past.deadline = None
    return past


def _log_turns(
    rows: list[GameEvent],
    turns: list[history.Turn],
    game: Game,
    viewer: User,
    values: dict[str, int],
    judged: dict[int, TurnReview],
) -> list[dict[str, Any]]:
    """Every turn with its events in words, as the viewer may see them, and the review's badge
    once there is one. The end of a turn goes without saying (each turn is its own entry)."""
    names = history.names_of(game)
    shown = [presenters.event_view(row, game, viewer) for row in rows]
    return [
        {
            "number": turn.number,
            "who": names[turn.seat] if turn.seat else "",
            "lines": [
                history.describe(shown[i], names, values)
                for i in range(turn.start, turn.end)
                if shown[i]["kind"] != "turn_ended"
            ],
            "badge": reviews.mark_badge(judged.get(turn.number)),
        }
        for turn in turns
    ]
