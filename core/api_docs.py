"""The OpenAPI schema and its browsable docs (drf-spectacular's views), with the API's errors
in JSON."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

from core.renderers import JSONRenderer


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
