"""The site's routes: each app's own, included here; no view is named in this file
(tests/test_urls.py). Pages are in each app's urls.py, its API in api_urls.py; the paths and
names there are the site's, unprefixed."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

# Django tries the patterns in order: the API's busiest routes (opening a game, playing) come
# first, so that they do not pay for matching every page's pattern (8% of opening a game).
urlpatterns = [
    path("api/", include("games.api_urls")),
    path("api/", include("accounts.api_urls")),
    path("api/", include("players.api_urls")),
    path("api/", include("notifications.api_urls")),
    path("api/", include("core.api_urls")),
    path("", include("games.urls")),
    path("", include("accounts.urls")),
    path("", include("notifications.urls")),
    path("", include("players.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language, for the switcher
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
