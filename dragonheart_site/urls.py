from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from dragonheart_site.health import HealthApi
from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("games/<str:game_id>/", views.game_page, name="game"),
    path("api/health/", HealthApi.as_view(), name="api-health"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("accounts.urls")),
    path("api/", include("games.urls")),
    path("admin/", admin.site.urls),
]

handler404 = "dragonheart_site.api_errors.not_found"
