"""The players API under /api/ (the pages are in urls.py): a player, the leaderboard."""

from __future__ import annotations

from django.urls import path

from players import api

urlpatterns = [
    path("players/<str:name>/", api.PlayerApi.as_view(), name="api-player"),
    path("leaderboard/", api.LeaderboardApi.as_view(), name="api-leaderboard"),
]
