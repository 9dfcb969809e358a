"""The reference the issue measures against: a bare DRF view in a bare Django project (no
middleware, no database, no authentication), served by the same gunicorn as the site.

    gunicorn benchmarks.bare_drf:application

benchmarks/api_load.py starts it beside the site and measures both in the same run, so that
each figure can be read as a fraction of what this machine gives Django + DRF at all.
"""

from __future__ import annotations

from typing import Any

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="bare-drf-benchmark-only",
    ALLOWED_HOSTS=["127.0.0.1"],
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"],
    MIDDLEWARE=[],
    ROOT_URLCONF=__name__,
    DATABASES={},
    USE_TZ=True,
    REST_FRAMEWORK={
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

# DRF reads the settings when imported: only now.
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework.request import Request  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402


class Hello(APIView):
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


urlpatterns: list[Any] = [path("api/health/", Hello.as_view())]
application = get_wsgi_application()
