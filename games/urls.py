"""The games app's pages (its API is in api_urls.py). Paths and names are the site's, unprefixed:
dragonheart_site/urls.py includes this at the root."""

from __future__ import annotations

from django.urls import path
from django.views.i18n import JavaScriptCatalog

from games.views import app, end, guide, history, links, lobby, table

urlpatterns = [
    path("", lobby.home, name="home"),
    path("play-computer/", lobby.play_computer, name="play-computer"),
    path("invite/<str:token>/", lobby.invite, name="invite"),
    path("how-to-play/", guide.how_to_play, name="how-to-play"),
    path("play/<str:token>/", links.play_link, name="play-link"),
    path("games/<str:game_id>/", table.game_page, name="game"),
    path("games/<str:game_id>/poll/", table.game_poll, name="game-poll"),
    path("games/<str:game_id>/waiting/", table.game_waiting, name="game-waiting"),
    path("games/<str:game_id>/play/", table.game_play, name="game-play"),
    path("games/<str:game_id>/history/", history.game_history, name="game-history"),
    path("games/<str:game_id>/review/", end.game_review, name="game-review"),  # the end screen's review
    path("games/<str:game_id>/accept/", table.game_accept, name="game-accept"),
    path("games/<str:game_id>/decline/", table.game_decline, name="game-decline"),
    path("games/<str:game_id>/cancel/", table.game_cancel, name="game-cancel"),
    path("games/<str:game_id>/resign/", table.game_resign, name="game-resign"),
    path("games/<str:game_id>/rematch/", table.game_rematch, name="game-rematch"),
    path("games/<str:game_id>/notes/", table.game_notes, name="game-notes"),
    path("games/<str:game_id>/mute/", table.game_mute, name="game-mute"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),  # turn.js's words
    # The installable app (games/views/app.py): the worker at the root, so its scope is the site.
    path("manifest.webmanifest", app.manifest, name="manifest"),
    path("sw.js", app.service_worker, name="service-worker"),
    path("offline/", app.offline, name="offline"),
]
