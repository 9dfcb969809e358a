"""``{% end_of_game as end %}``: what the end screen (templates/games/_result.html) says to the
reader, from the table's own context (``game``, ``me``, ``rating_changes``, ``breakdown``,
``seat_ratings``) and the signed-in user. A tag of the partial's own, so that the table's
context builder (games/table.py) needs no word of it; games/end.py has the words."""

from __future__ import annotations

from typing import Any

from django import template

from games import end

register = template.Library()


@register.simple_tag(takes_context=True)
def end_of_game(context: template.Context) -> dict[str, Any]:
    changes = [row["change"] for row in context.get("rating_changes") or []]
    me = context.get("me")
    mine = (context.get("seat_ratings") or {}).get(me)  # ratings.selectors.Shown, as of now
    return end.end_context(
        context["game"],
        context["user"],
        me,
        changes=changes,
        breakdown=context.get("breakdown") or [],
        games=mine.games if mine is not None else None,
        # The same games the header counts: read once a page (games.context_processors).
        next_game=context.get("next_game") or context.get("your_games"),
    )
