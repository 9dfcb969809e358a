"""The players app's pages: the leaderboard and a player's page (its API is in api_urls.py)."""

from __future__ import annotations

from django.urls import path

from players import views

urlpatterns = [
    path("players/", views.leaderboard, name="leaderboard"),
    # Not under players/: a player may be called "bots".
    path("bots/", views.bots, name="bots"),
    path("players/<str:name>/", views.player_page, name="player"),
]
