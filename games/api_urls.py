"""The games API under /api/ (the pages are in urls.py): games, plays, events, records and
the answers to a challenge, a player's private notes on a game and muting a player's messages."""

from __future__ import annotations

from django.urls import path

from games import api, stream_api

urlpatterns = [
    path("games/", api.GameListCreateApi.as_view(), name="api-games"),
    path("games/<str:game_id>/", api.GameDetailApi.as_view(), name="api-game"),
    path("games/<str:game_id>/stream/", stream_api.GameStreamApi.as_view(), name="api-game-stream"),
    # The account's stream: its events are written by the games floor (games/stream_events.py).
    path("stream/", stream_api.AccountStreamApi.as_view(), name="api-stream"),
    path("games/<str:game_id>/plays/", api.PlayCreateApi.as_view(), name="api-plays"),
    path("games/<str:game_id>/events/", api.EventListApi.as_view(), name="api-events"),
    path("games/<str:game_id>/record/", api.RecordApi.as_view(), name="api-record"),
    path("games/<str:game_id>/accept/", api.GameAcceptApi.as_view(), name="api-accept"),
    path("games/<str:game_id>/decline/", api.GameDeclineApi.as_view(), name="api-decline"),
    path("games/<str:game_id>/cancel/", api.GameCancelApi.as_view(), name="api-cancel"),
    path("games/<str:game_id>/resign/", api.GameResignApi.as_view(), name="api-resign"),
    path("games/<str:game_id>/rematch/", api.GameRematchApi.as_view(), name="api-rematch"),
    path("games/<str:game_id>/notes/", api.NotesApi.as_view(), name="api-notes"),
    # A player's messages are muted from the games floor (games.models.Mute): players sits above.
    path("players/<str:name>/mute/", api.MuteApi.as_view(), name="api-mute"),
]
