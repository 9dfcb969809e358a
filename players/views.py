"""A player's page (/players/NAME/), the leaderboard (/players/: people) and the bots' page
(/bots/: their leaderboard and who is online), for everyone: reads that may lag, from the
replica where there is one (core.replicas)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core.replicas import reads_may_lag
from players import chart, selectors
from ratings import selectors as ratings


@reads_may_lag
def player_page(request: HttpRequest, name: str) -> HttpResponse:
    user = selectors.player_named(name)
    if user is None:
        raise Http404("no such player")
    return render(request, "players/player.html", page_context(user))


def page_context(user: User) -> dict[str, Any]:
    opponents = selectors.against_each_opponent(user)
    recent = selectors.recent_games(user)
    current = selectors.current_games(user)
    changes = ratings.history(user.pk)
    names = {g.player_a_id for g in recent + current} | {g.player_b_id for g in recent + current}
    return {
        "player": user,
        "rating": selectors.shown_rating(user),
        "charts": [c for c in (chart.chart(changes, chart.WIDE), chart.chart(changes, chart.NARROW)) if c],
        "changes_count": len(changes),
        "opponents": opponents,
        "record": selectors.overall(opponents),
        "current": current,
        "recent": recent,
        "changes": {c.game_id: c for c in changes if c.game_id in {g.pk for g in recent}},
        "ratings": ratings.shown_for(names),
    }


@reads_may_lag
def leaderboard(request: HttpRequest) -> HttpResponse:
    return render(request, "players/leaderboard.html", {"ranked": ratings.leaderboard()})


@reads_may_lag
def bots(request: HttpRequest) -> HttpResponse:
    """Bot accounts are rated apart from people: their own leaderboard, and the bots a player
    could challenge now (an account stream open)."""
    context = {"ranked": ratings.leaderboard(bots=True), "online": selectors.online_bots()}
    return render(request, "players/bots.html", context)
