"""The players API under /api/ (the pages are in urls.py): a player, the leaderboards, the bots
online, and turning one's account into a bot (here, not in accounts: this floor knows games,
which decide whether the account may)."""

from __future__ import annotations

from django.urls import path

from players import api

urlpatterns = [
    path("players/<str:name>/", api.PlayerApi.as_view(), name="api-player"),
    path("leaderboard/", api.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("bots/leaderboard/", api.BotsLeaderboardApi.as_view(), name="api-bots-leaderboard"),
    path("bots/online/", api.BotsOnlineApi.as_view(), name="api-bots-online"),
    path("account/bot/", api.AccountBotApi.as_view(), name="api-account-bot"),
]
