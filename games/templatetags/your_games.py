"""``{% games_waiting as games_waiting_count %}`` (templates/base.html): how many games wait for
the signed-in reader's play, for the header's "Your games (2)" and the tab's "(2) …".

One query a page at most, and none where the view has already counted: the lobby's "your turn"
list (games/lobby.py ``lists``) and the table's "Next game" (games/table.py ``next_game``) are
the same games; elsewhere the context processor's lazy ``your_games``
(games/context_processors.py, selectors.next_game_for). 0 for a visitor."""

from __future__ import annotations

from typing import Any

from django import template

from games.selectors import NextGame

register = template.Library()


@register.simple_tag(takes_context=True)
def games_waiting(context: template.Context) -> int:
    lists: Any = context.get("lists")
    if isinstance(lists, dict) and "your_turn" in lists:
        return len(lists["your_turn"])
    read: Any = context.get("next_game")
    if not isinstance(read, NextGame):
        read = context.get("your_games")
    return int(read.waiting) if read is not None else 0
