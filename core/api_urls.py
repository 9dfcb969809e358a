"""The API's own routes under /api/, which no app owns: health, readiness, the schema and its
docs."""

from __future__ import annotations

from django.urls import path

from core.api_docs import DocsView, SchemaView
from core.health import HealthApi, ReadinessApi

urlpatterns = [
    path("health/", HealthApi.as_view(), name="api-health"),
    path("health/ready/", ReadinessApi.as_view(), name="api-ready"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves its script as a file, for the Content-Security-Policy.
    path("docs/", DocsView.as_view(url_name="api-schema"), name="api-docs"),
]
