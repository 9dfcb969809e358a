"""The game services' own refusals: a stale version, and a refused move in the player's language.
The kinds themselves (InvalidRequest, Forbidden, NotFound, Conflict) are core.errors'."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from core.errors import Conflict
from engine import rules


class StaleVersion(Conflict):
    def __init__(self, expected: int, actual: int | None = None) -> None:
        if actual is None:
            detail = gettext("You played on version %(expected)d; it has moved on. Reload and try again.")
        else:
            detail = gettext(
                "You played on version %(expected)d; it is now at version %(actual)d. Reload and try again."
            )
        super().__init__("stale_version", detail % {"expected": expected, "actual": actual})


# The engine explains a refused move in English and names the cards. In another language a
# player gets one translated sentence per code instead; where no translation is active
# (English), the engine's own, more precise words stay.
_ILLEGAL_MOVE_DETAILS = {
    rules.GAME_OVER: gettext_noop("The game is over: no more plays."),
    rules.NOT_YOUR_TURN: gettext_noop("It is not your turn: wait for your opponent's play."),
    rules.NO_CARDS: gettext_noop("Put down at least one card: passing is not allowed."),
    rules.UNKNOWN_CARD: gettext_noop("There is no such card."),
    rules.DUPLICATE_CARD: gettext_noop("A card is named twice."),
    rules.CARD_NOT_IN_HAND: gettext_noop("A card you chose is not in your hand."),
    rules.MIXED_TYPES: gettext_noop("All cards put down in one turn must be of the same type."),
    rules.TOO_MANY_CARDS: gettext_noop("That space has fewer free slots than the cards you chose."),
    rules.CHOICE_REQUIRED: gettext_noop("This play needs a choice: say which cards it takes."),
    rules.CHOICE_NOT_ALLOWED: gettext_noop("This play takes no choice."),
    rules.INVALID_CHOICE: gettext_noop("That choice is not possible for this play."),
}


def illegal_move_detail(code: str, message: str) -> str:
    """``message`` (the engine's) in the active language, as far as a catalogue has it."""
    generic = _ILLEGAL_MOVE_DETAILS.get(code)
    if generic is None:
        return message
    translated = gettext(generic)
    return message if translated == generic else translated
