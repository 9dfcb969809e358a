"""The lobby: what the home page and its poll draw for one player (the lists of games and
challenges, the ratings beside the names, the fingerprint the poll compares)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games import selectors


def lobby_context(user: User, *, version: str | None = None) -> dict[str, Any]:
    """The lists and their ratings (two queries), and the lists' fingerprint: ``version`` if
    the caller read it already (the poll reads it first, to answer "nothing new" with one
    query), else read after the lists."""
    lists = selectors.lobby(user)
    ratings = selectors.ratings_in(lists, user)
    return {
        "lists": lists,
        "ratings": ratings,
        "my_rating": ratings[user.pk],
        "lobby_version": selectors.lobby_version(user) if version is None else version,
    }
