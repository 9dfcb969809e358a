"""What every page's header says about the player's games (templates/base.html)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import selectors


def your_games(request: HttpRequest) -> dict[str, Any]:
    """``your_games``: the signed-in player's selectors.NextGame (``.waiting`` is how many games
    wait for their play), read in one query by the first template that asks, and never by a
    response that draws no page (a poll's 204, a redirect, the API). Nothing for visitors."""
    user = getattr(request, "user", None)
    if not isinstance(user, User):  # a visitor (AnonymousUser), or a request without one
        return {}
    return {"your_games": SimpleLazyObject(lambda: selectors.next_game_for(user))}
