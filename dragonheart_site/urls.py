from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import views as account_views
from accounts.throttling import ThrottledLoginView
from dragonheart_site.health import HealthApi
from games import views
from notifications import views as notification_views

# Django tries the patterns in order: the API's busiest routes (opening a game, playing) come
# first, so that they do not pay for matching every page's pattern (8% of opening a game).
urlpatterns = [
    path("api/", include("games.urls")),
    path("api/", include("accounts.urls")),
    path("api/health/", HealthApi.as_view(), name="api-health"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script as a file, for the Content-Security-Policy.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/profile/", account_views.profile, name="profile"),
    path("accounts/tokens/", account_views.token_create, name="token-create"),
    path("accounts/vacation/", account_views.vacation_start, name="vacation-start"),
    path("accounts/tokens/<int:token_id>/revoke/", account_views.token_revoke, name="token-revoke"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("unsubscribe/<str:token>/", notification_views.unsubscribe, name="unsubscribe"),
    path("games/<str:game_id>/", views.game_page, name="game"),
    path("games/<str:game_id>/poll/", views.game_poll, name="game-poll"),
    path("games/<str:game_id>/play/", views.game_play, name="game-play"),
    path("games/<str:game_id>/history/", views.game_history, name="game-history"),
    path("games/<str:game_id>/accept/", views.game_accept, name="game-accept"),
    path("games/<str:game_id>/decline/", views.game_decline, name="game-decline"),
    path("games/<str:game_id>/cancel/", views.game_cancel, name="game-cancel"),
    path("games/<str:game_id>/resign/", views.game_resign, name="game-resign"),
    path("games/<str:game_id>/rematch/", views.game_rematch, name="game-rematch"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language, for the switcher
    path("admin/", admin.site.urls),
]

handler404 = "dragonheart_site.api_errors.not_found"
