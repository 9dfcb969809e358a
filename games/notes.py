"""A player's private notes on a game: each account reads and writes only its own, on a game
it plays; anyone else is told there is no such thing (404), so that the notes' very existence
leaks nothing. Nothing else reads GameNote: no page, event, email or record shows it to anyone
but its writer."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils.translation import gettext

from core.errors import InvalidRequest, NotFound
from games.models import NOTE_MAX_CHARS, Game, GameNote


def _require_player(game: Game, user: User) -> None:
    if game.seat_of(user) is None:
        raise NotFound("not_found", gettext("There is no game with that id."))


def note_of(*, game: Game, user: User) -> GameNote | None:
    """The player's notes on ``game`` (None before the first save); raises NotFound for anyone
    not seated in it. Only reads."""
    _require_player(game, user)
    return GameNote.objects.filter(game=game, user=user).first()


def note_save(*, game: Game, user: User, text: str) -> GameNote:
    """Replace the player's notes on ``game`` (kept after the game too)."""
    _require_player(game, user)
    if len(text) > NOTE_MAX_CHARS:
        raise InvalidRequest(
            "note_too_long",
            gettext("Notes have at most %(max)d characters.") % {"max": NOTE_MAX_CHARS},
        )
    note, _ = GameNote.objects.update_or_create(game=game, user=user, defaults={"text": text})
    return note
