from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpResponseBase
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import views as account_views
from accounts.throttling import ThrottledLoginView
from core.health import HealthApi, ReadinessApi
from core.renderers import JSONRenderer
from games import views
from notifications import views as notification_views
from players import views as player_views


def _errors_in_json(request: Request, response: HttpResponseBase) -> None:
    """drf-spectacular's views render their errors in their own format (the schema's YAML, the
    docs' HTML); the API's errors are JSON wherever they come from."""
    if isinstance(response, Response) and response.status_code >= 400:
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"


class SchemaView(SpectacularAPIView):
    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        _errors_in_json(request, response)
        return super().finalize_response(request, response, *args, **kwargs)


class DocsView(SpectacularSwaggerSplitView):
    # OPTIONS would describe the view through its HTML renderer, which cannot: a 405 instead.
    metadata_class = None

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        _errors_in_json(request, response)
        return super().finalize_response(request, response, *args, **kwargs)


# Django tries the patterns in order: the API's busiest routes (opening a game, playing) come
# first, so that they do not pay for matching every page's pattern (8% of opening a game).
urlpatterns = [
    path("api/", include("games.urls")),
    path("api/", include("accounts.urls")),
    path("api/", include("players.urls")),
    path("api/health/", HealthApi.as_view(), name="api-health"),
    path("api/health/ready/", ReadinessApi.as_view(), name="api-ready"),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves its script as a file, for the Content-Security-Policy.
    path("api/docs/", DocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("", views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/profile/", notification_views.profile, name="profile"),
    path("accounts/tokens/", account_views.token_create, name="token-create"),
    path("accounts/vacation/", views.vacation_start, name="vacation-start"),
    path("accounts/tokens/<int:token_id>/revoke/", account_views.token_revoke, name="token-revoke"),
    path("accounts/confirm/<str:token>/", account_views.email_confirm, name="email-confirm"),
    path("accounts/confirm/", account_views.email_confirmation_send, name="email-confirmation-send"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("how-to-play/", views.how_to_play, name="how-to-play"),
    path("players/", player_views.leaderboard, name="leaderboard"),
    path("players/<str:name>/", player_views.player_page, name="player"),
    path("play/<str:token>/", views.play_link, name="play-link"),
    path("unsubscribe/<str:token>/", notification_views.unsubscribe, name="unsubscribe"),
    path("games/<str:game_id>/", views.game_page, name="game"),
    path("games/<str:game_id>/poll/", views.game_poll, name="game-poll"),
    path("games/<str:game_id>/waiting/", views.game_waiting, name="game-waiting"),
    path("games/<str:game_id>/play/", views.game_play, name="game-play"),
    path("games/<str:game_id>/history/", views.game_history, name="game-history"),
    path("games/<str:game_id>/accept/", views.game_accept, name="game-accept"),
    path("games/<str:game_id>/decline/", views.game_decline, name="game-decline"),
    path("games/<str:game_id>/cancel/", views.game_cancel, name="game-cancel"),
    path("games/<str:game_id>/resign/", views.game_resign, name="game-resign"),
    path("games/<str:game_id>/rematch/", views.game_rematch, name="game-rematch"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language, for the switcher
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),  # turn.js's words
    path("admin/", admin.site.urls),
]

# The mail provider's inbound webhook (play by reply), on only with its secret: anymail refuses
# to serve a webhook anyone could call.
if settings.ANYMAIL.get("WEBHOOK_SECRET"):
    urlpatterns.insert(0, path(settings.INBOUND_WEBHOOK_PREFIX.strip("/") + "/", include("anymail.urls")))

# The API answers JSON, whatever fails; pages keep Django's own.
handler400 = "core.api_errors.bad_request"
handler404 = "core.api_errors.not_found"
handler500 = "core.api_errors.server_error"
