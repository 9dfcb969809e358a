"""The end of a game as a moment: the result line (in the second person for a player, by name
for a watcher), why the game ended, how it moved the ratings and why by that much, and where
to go next. templates/games/_result.html draws it through ``{% end_of_game %}``
(games/templatetags/game_end.py), beside what games/table.py gives the whole table."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from engine import events as ev
from engine.cards import Seat, other
from games import history, selectors
from games.models import Game
from ratings.glicko import PROVISIONAL_ABOVE
from ratings.models import RatingChange


def outcome(game: Game, me: Seat | None) -> str:
    """ "won", "lost", "draw" for a player; "over" for a watcher or a game called off."""
    if game.end_reason == ev.ABORTED or me is None:
        return "over"
    return game.outcome_of(me)


def result_line(game: Game, me: Seat | None, names: dict[str, str]) -> str:
    """ "You won 34 : 28", "You lost 28 : 34", "bob won 34 : 28", "A draw, 30 : 30": the
    reader's own score first, a watcher's the winner's."""
    if game.end_reason == ev.ABORTED:
        return _("The game was called off")
    scores = game.scores or {"a": 0, "b": 0}
    first: Seat = me or ("b" if game.winner == "b" else "a")
    points = {"mine": scores[first], "theirs": scores[other(first)]}
    if not game.winner:
        return _("A draw, %(mine)d : %(theirs)d") % points
    if me is None:
        return _("%(name)s won %(mine)d : %(theirs)d") % {**points, "name": names[game.winner]}
    if game.winner == me:
        return _("You won %(mine)d : %(theirs)d") % points
    return _("You lost %(mine)d : %(theirs)d") % points


def reason_line(game: Game, me: Seat | None, names: dict[str, str]) -> str:
    """Why the game ended, said of whoever ended it; and, on equal points, why it is won."""
    loser: Seat | None = ("b" if game.winner == "a" else "a") if game.winner else None
    reason = game.end_reason
    if reason == ev.RESIGNED and loser is not None:
        return _("You resigned.") if loser == me else _("%(name)s resigned.") % {"name": names[loser]}
    if reason == ev.TIMEOUT and loser is not None:
        return (
            _("Your time ran out.")
            if loser == me
            else _("%(name)s ran out of time.") % {"name": names[loser]}
        )
    if reason == ev.ABORTED:
        return _("The first move never came in time: nobody won.")
    said = {
        ev.THIRD_VOYAGE: _("The third voyage ended the game."),
        ev.DECK_EXHAUSTED: _("A draw pile ran out, which ended the game."),
    }.get(reason, history.end_reason(reason))
    scores = game.scores or {}
    if game.winner and scores.get("a") == scores.get("b"):
        said += " " + _("Equal points: the holder of the Great Dragon wins.")
    return said


def score_table(
    game: Game, me: Seat | None, names: dict[str, str], breakdown: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The points by card type (games.table's breakdown, seat a first), with the columns in
    the result line's order: the reader's own first, for a watcher the winner's."""
    if not breakdown or not game.scores:
        return None
    first: Seat = me or ("b" if game.winner == "b" else "a")
    order = (0, 1) if first == "a" else (1, 0)
    seats = [first, other(first)]
    return {
        "players": [
            {"name": names[s], "is_bot": game.seat_is_bot(s), "won": game.winner == s, "mine": s == me}
            for s in seats
        ],
        "rows": [{"label": row["label"], "points": [row["points"][i] for i in order]} for row in breakdown],
        "totals": [game.scores[s] for s in seats],
    }


def _shown(rating: float, deviation: float) -> str:
    # As ratings.selectors.Shown prints a rating: "1662?" while provisional.
    return f"{round(rating)}{'?' if deviation > PROVISIONAL_ABOVE else ''}"


def _delta(change: RatingChange) -> str:
    delta = round(change.rating_after) - round(change.rating_before)
    return f"+{delta}" if delta >= 0 else f"−{-delta}"


def rating_lines(
    changes: list[RatingChange], names: dict[int, str], user: User, bots: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """Each player's move: "alice +162 → 1662?", from what, and whether it is the reader's
    (``bots``: the ids of bot accounts among them, for the badge)."""
    return [
        {
            "name": names.get(c.user_id, ""),
            "is_bot": c.user_id in bots,
            "delta": _delta(c),
            "before": _shown(c.rating_before, c.deviation_before),
            "after": _shown(c.rating_after, c.deviation_after),
            "mine": c.user_id == user.pk,
        }
        for c in changes
    ]


def rating_why(changes: list[RatingChange], user: User, *, games: int | None = None) -> str:
    """Why a rating moved by as much as it did, as ratings/glicko.py computes it: Glicko-2
    moves a rating the more, the less sure it is of it (its deviation: ±350 for a new player,
    narrower with every rated game, wider again with time away; "?" above ±110). ``games``:
    the reader's rated games so far, 1 when this was their first."""
    mine = next((c for c in changes if c.user_id == user.pk), None)
    if mine is None:
        if any(c.deviation_before > PROVISIONAL_ABOVE for c in changes):
            return _(
                "A rating marked “?” is provisional: after few rated games the site is unsure of a "
                "player's strength, so each result moves it a lot. It settles as they play."
            )
        return _("Ratings are Glicko-2: a win against a stronger player counts more.")
    figures = {
        "before": round(mine.deviation_before),
        "after": round(mine.deviation_after),
        "settled": round(PROVISIONAL_ABOVE),
    }
    if games == 1:
        return (
            _(
                "This was your first rated game: the site knew nothing yet of your strength (±%(before)d), "
                "so the result moved your rating a lot. Every rated game makes it surer, now ±%(after)d, "
                "and the moves smaller; below ±%(settled)d it counts as settled."
            )
            % figures
        )
    if mine.deviation_before > PROVISIONAL_ABOVE:
        return (
            _(
                "Your rating is still provisional (“?”): with few rated games behind it the site is "
                "unsure of your strength (±%(before)d before this game), so each result moves it a "
                "lot. Every rated game makes it surer, now ±%(after)d, and the moves smaller; below "
                "±%(settled)d it counts as settled."
            )
            % figures
        )
    return (
        _(
            "Your rating is settled (±%(before)d), so one game moves it only a little: more when "
            "the result is a surprise, such as a win over a stronger player, less when it was expected."
        )
        % figures
    )


def _bot_accounts(game: Game) -> frozenset[int]:
    seated = ((game.player_a_id, "a"), (game.player_b_id, "b"))
    return frozenset(user_id for user_id, seat in seated if user_id is not None and game.seat_is_bot(seat))


def end_context(
    game: Game,
    user: User,
    me: Seat | None,
    *,
    changes: list[RatingChange],
    breakdown: list[dict[str, Any]],
    games: int | None = None,
    next_game: selectors.NextGame | None = None,
) -> dict[str, Any]:
    """What the end screen says to ``user`` (``me``: their seat, None for a watcher), given the
    game's rating changes, points by card type and the reader's rated games so far (games.table
    reads them all), and "Next game" if the page read it already (else one query for it)."""
    names = history.names_of(game)
    by_user = {game.player_a_id: names["a"], game.player_b_id: names["b"]}
    return {
        "outcome": outcome(game, me),
        "headline": result_line(game, me, names),
        "reason": reason_line(game, me, names),
        "scores": score_table(game, me, names, breakdown),
        "ratings": rating_lines(
            changes, {k: v for k, v in by_user.items() if k is not None}, user, _bot_accounts(game)
        ),
        "rating_why": rating_why(changes, user, games=games) if changes else "",
        "next": next_game if next_game is not None else selectors.next_game_for(user),
    }
