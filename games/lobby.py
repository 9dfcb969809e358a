"""The lobby: what the home page and its poll draw for one player (the lists of games and
challenges, the ratings beside the names, the fingerprint the poll compares)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games import selectors
from games.models import Game


def lobby_context(user: User, *, version: str | None = None) -> dict[str, Any]:
    """The lists and their ratings (two queries), and the lists' fingerprint: ``version`` if
    the caller read it already (the poll reads it first, to answer "nothing new" with one
    query), else read after the lists."""
    lists = selectors.lobby(user)
    ratings = selectors.ratings_in(lists, user)
    mine = ("your_turn", "their_turn", "received", "sent", "finished")
    newcomer = not any(lists[name] for name in mine)
    return {
        "lists": lists,
        "ratings": ratings,
        "my_rating": ratings[user.pk],
        "lobby_version": selectors.lobby_version(user) if version is None else version,
        # A player without a game is welcomed with one a tap away (home.html).
        "newcomer": newcomer,
        # "1500?" is explained under the lists wherever such a rating shows.
        "provisional_shown": any(
            ratings[pk].provisional for pk in _rated_beside_names(lists) if pk in ratings
        ),
    }


def _rated_beside_names(lists: dict[str, list[Game]]) -> set[int]:
    """The players whose rating the lists show beside their name: the other side of each
    challenge, both players of a finished game."""
    shown = {g.player_a_id for g in lists["received"] + lists["open"]}
    shown |= {g.player_b_id for g in lists["sent"]}
    shown |= {pk for g in lists["finished"] for pk in (g.player_a_id, g.player_b_id)}
    return {pk for pk in shown if pk is not None}
