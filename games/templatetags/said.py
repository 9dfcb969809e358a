"""``{% turn_message game user turn as said %}``: the word the opponent sent with the play of
``turn`` (the game's count), as ``user`` may read it: None for a spectator, for an opponent the
reader muted, or when there was none. The turn email (templates/emails/your_turn-body.*) reads it
from its own context, so the email's context builder (notifications) needs no word of it."""

from __future__ import annotations

from typing import Any

from django import template

from games import play_messages
from games.play_messages import Said

register = template.Library()


@register.simple_tag
def turn_message(game: Any, user: Any, turn: Any) -> Said | None:
    if game is None or user is None or not isinstance(turn, int):
        return None
    said = play_messages.visible_messages(game, user).get(turn)
    return said if said is not None and not said.own else None
