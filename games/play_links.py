"""Playing from an email by link: each legal play of a "your turn" email is a signed link
bound to its reader, the game and the version it was written at.

Opening a link never plays (mail scanners open links): its page shows the play on the board
with a Confirm button, and only that POST plays, through services.game_play like every other
play, under an Idempotency-Key made from the link, so a double click plays once. The link is
single-use by its version: once any play is recorded, every link of that turn is stale.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core import signing
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from core.errors import Forbidden, InvalidRequest
from engine.cards import CARD_TYPE, TYPES
from engine.rules import legal_plays
from engine.state import State
from games.models import Game
from games.templatetags.games_extras import card_name

SALT = "games.play-link"
# A turn lasts at most the longest clock (games.models.DAYS_PER_TURN); a game without a clock
# may wait longer, and its link still names the version, so an old link is stale, not unsafe.
MAX_AGE_DAYS = 60


@dataclass(frozen=True)
class PlayLink:
    """The ``index``-th of the reader's legal plays (engine.rules.legal_plays, whose order is
    fixed for a position) at ``version``: the link names no card, so it reveals nothing even
    to someone who decodes it, and what it plays is worked out again from the position."""

    user_id: int
    game_id: str
    version: int
    index: int

    @property
    def idempotency_key(self) -> str:
        """The same for every use of one link: a second Confirm replays the first."""
        what = f"{self.game_id}:{self.version}:{self.index}"
        return "mail-link:" + hashlib.sha256(what.encode()).hexdigest()[:32]

    def play(self, state: State) -> tuple[list[str], str | None]:
        """The cards and choice this link plays in ``state`` (the game at its version)."""
        plays = legal_plays(state)
        if not 0 <= self.index < len(plays):
            raise InvalidRequest("invalid_link", gettext("This link names no play of this turn."))
        return list(plays[self.index].cards), plays[self.index].choice


def link_token(*, user: User, game: Game, version: int, index: int) -> str:
    return signing.dumps({"u": user.pk, "g": game.pk, "v": version, "i": index}, salt=SALT)


def read_link(token: str) -> PlayLink:
    """The play a token names, or InvalidRequest if it is not one of ours (tampered, cut short,
    too old)."""
    try:
        data: dict[str, Any] = signing.loads(token, salt=SALT, max_age=MAX_AGE_DAYS * 24 * 3600)
        return PlayLink(
            user_id=int(data["u"]), game_id=str(data["g"]), version=int(data["v"]), index=int(data["i"])
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise InvalidRequest(
            "invalid_link", gettext("This link is not valid: it may have been cut short in the email.")
        ) from None


def check_viewer(link: PlayLink, viewer: Any) -> None:
    """A browser signed in as someone else than the link's reader must not play for them."""
    if viewer.is_authenticated and viewer.pk != link.user_id:
        raise Forbidden(
            "not_your_link",
            gettext("This link was sent to another player: nothing was played."),
        )


# What a choice takes, as the page's play form words it.
CHOICES = {
    "chests": gettext_noop("the treasure chests"),
    "stones": gettext_noop("the petrified dragons (and the Great Dragon)"),
    "princesses": gettext_noop("the princesses"),
    "trolls": gettext_noop("the trolls"),
}


def play_label(cards: list[str] | tuple[str, ...], choice: str | None, values: dict[str, int]) -> str:
    """A play in the edition's words, in the active language: "Dwarf 1 + Dwarf 1",
    "Princess 2 → the treasure chests"."""
    label = " + ".join(card_name(card, values) for card in cards)
    return f"{label} → {gettext(CHOICES[choice])}" if choice in CHOICES else label


def listed_plays(*, user: User, game: Game, state: State) -> list[tuple[str, int]]:
    """The reader's legal plays as a turn email lists and numbers them, (label, the play's
    index among the legal plays): on their turn only, grouped by card type in board order as
    the page groups the hand, plays that read the same (two dwarves of one value) once."""
    if state.over or state.to_move != game.seat_of(user):
        return []
    groups: dict[str, dict[str, int]] = {}
    for index, play in enumerate(legal_plays(state)):
        label = play_label(play.cards, play.choice, state.values)
        groups.setdefault(CARD_TYPE[play.cards[0]], {}).setdefault(label, index)
    return [(label, index) for kind in TYPES if kind in groups for label, index in groups[kind].items()]


def legal_play_links(*, user: User, game: Game, state: State) -> list[list[dict[str, Any]]]:
    """``listed_plays`` as numbered links, one group per card type."""
    plays = legal_plays(state)
    groups: dict[str, list[dict[str, Any]]] = {}
    for number, (label, index) in enumerate(listed_plays(user=user, game=game, state=state), start=1):
        token = link_token(user=user, game=game, version=state.version, index=index)
        groups.setdefault(CARD_TYPE[plays[index].cards[0]], []).append(
            {"number": number, "label": label, "path": reverse("play-link", args=[token])}
        )
    return list(groups.values())
