"""What the lobby and the waiting page say about the players of a game: names as pages show
them (a bot as "Computer (medium)") and, for a finished game, how it went for the viewer."""

from __future__ import annotations

from typing import Any

from django import template

from games.challenges import rating_range_label
from games.history import end_reason
from games.models import Game, shown_name
from ratings.selectors import Shown

register = template.Library()


@register.filter
def player(name: str | None) -> str | None:
    """``{{ p.username|player }}``: a name from ``Game.player_name`` or a view's ``username``
    as pages show it; see games.models.shown_name."""
    return shown_name(name)


@register.filter
def outcome_for(game: Game, user: Any) -> str:
    """For ``user`` in a finished game: "won", "lost" or "draw"; "" for anyone else (a game
    they watch, or one not finished)."""
    seat = game.seat_of(user)
    return "" if seat is None else game.outcome_of(seat)


@register.filter
def rating_range(game: Game) -> str:
    """An open challenge's rating range as the lobby shows it: "1400–1700", "1400 or more"."""
    return rating_range_label(game)


@register.filter
def in_range_of(game: Game, rating: Shown | None) -> bool:
    """Whether a player of ``rating`` may accept the open challenge ``game`` (Game.accepts_rating;
    games.challenges checks it again on accepting)."""
    return rating is None or game.accepts_rating(rating.rating)


@register.filter
def end_reason_label(reason: str) -> str:
    """How a game ended, in words ("by resignation"): games.history.end_reason."""
    return end_reason(reason)
