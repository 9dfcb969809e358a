"""A word with a play: written with the play (services._play adds the row to the play's own
statement), read only by the game's two players, and hidden from a player who muted its
writer, earlier messages included (the filter is applied when reading).

Rate limit: besides the "plays" throttle every play already passes (API and page alike), a
player sends at most MESSAGES_PER_WINDOW messages per WINDOW_SECONDS over all their games,
counted in the cache as every throttle here is (core.cache.count_hit)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext

from core.cache import count_hit
from core.errors import InvalidRequest, NotFound
from engine.cards import Seat
from games.models import MESSAGE_MAX_CHARS, Game, Mute, PlayMessage

MESSAGES_PER_WINDOW = 30
WINDOW_SECONDS = 10 * 60


def cleaned(text: str | None) -> str:
    """The message as stored: surrounding blanks dropped; "" for none."""
    return (text or "").strip()


def check_length(text: str) -> None:
    if len(text) > MESSAGE_MAX_CHARS:
        raise InvalidRequest(
            "message_too_long",
            gettext("A message has at most %(max)d characters.") % {"max": MESSAGE_MAX_CHARS},
        )


def message_row(*, game: Game, user: User, seat: Seat, turn: int, version: int, text: str) -> PlayMessage:
    """The row a play writes with its events; counts against the player's message limit."""
    check_length(text)
    if count_hit(f"play-messages:{user.pk}", WINDOW_SECONDS) > MESSAGES_PER_WINDOW:
        raise InvalidRequest(
            "too_many_messages",
            gettext("You sent many messages lately: play without one, or wait a few minutes."),
        )
    return PlayMessage(game=game, user=user, seat=seat, turn=turn, version=version, text=text)


@dataclass(frozen=True)
class Said:
    """A message as one reader may see it: ``muted`` ones have no text (the reader muted their
    writer), so that a page can offer "Unmute" where the message was."""

    turn: int
    seat: str
    text: str
    own: bool
    muted: bool = False


def messages_for(game: Game, viewer: User) -> dict[int, Said]:
    """Every message of ``game`` as ``viewer`` may see it, by turn, muted ones without their
    text; none at all for anyone not seated in it (no query then). One query."""
    seat = game.seat_of(viewer)
    if seat is None:
        return {}
    muted = Exists(Mute.objects.filter(user=viewer, muted=OuterRef("user")))
    rows = PlayMessage.objects.filter(game=game).annotate(muted=muted).order_by("turn")
    return {
        row.turn: Said(
            turn=row.turn,
            seat=row.seat,
            text="" if row.muted else row.text,
            own=row.seat == seat,
            muted=row.muted,
        )
        for row in rows
    }


def visible_messages(game: Game, viewer: User) -> dict[int, Said]:
    """The messages of ``game`` that ``viewer`` may read, by turn: none for anyone not seated
    in it, and none of an opponent the viewer muted. One query."""
    return {turn: said for turn, said in messages_for(game, viewer).items() if not said.muted}


def mute_set(*, user: User, name: str, muted: bool) -> User:
    """Mute (or unmute) the player called ``name`` for ``user``; idempotent. Raises NotFound
    for no such player, InvalidRequest for oneself."""
    other = User.objects.filter(username=name, is_active=True).first()
    if other is None:
        raise NotFound(
            "no_such_player", gettext("There is no player called %(name)s.") % {"name": repr(name)}
        )
    if other.pk == user.pk:
        raise InvalidRequest("mute_self", gettext("You cannot mute yourself."))
    if muted:
        Mute.objects.get_or_create(user=user, muted=other)
    else:
        Mute.objects.filter(user=user, muted=other).delete()
    return other
