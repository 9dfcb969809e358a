"""``{% rating ratings user_id %}``: a player's rating beside their name, as " 1523" or, while
provisional, " 1500?" (with its deviation in the title); nothing for a bot, an open seat or a
page that looked up no ratings (ratings.selectors.shown_for gives the mapping in one query)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from ratings.models import RatingChange
from ratings.selectors import Shown

register = template.Library()


@register.simple_tag
def rating(ratings: Mapping[Any, Shown] | None, key: Any) -> SafeString | str:
    """``key``: a user id, or a seat where the page maps seats to ratings."""
    shown = (ratings or {}).get(key) if key is not None else None
    if shown is None:
        return ""
    title = (
        gettext("Rating %(rating)d ± %(deviation)d, provisional: fewer games than it takes to be sure")
        if shown.provisional
        else gettext("Rating %(rating)d ± %(deviation)d")
    ) % {"rating": shown.rating, "deviation": shown.deviation}
    return format_html(' <span class="rating" title="{}">{}</span>', title, str(shown))


@register.filter
def rating_change_in(changes: Mapping[str, RatingChange], game_id: str) -> RatingChange | None:
    """The player's rating change in the game ``game_id``, if it was rated."""
    return changes.get(game_id)


@register.filter
def rating_delta(change: RatingChange) -> str:
    """ "+12" or "−8": how the game moved the rating (as shown, rounded)."""
    delta = round(change.rating_after) - round(change.rating_before)
    return f"+{delta}" if delta >= 0 else f"−{-delta}"
