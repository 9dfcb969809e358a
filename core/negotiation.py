"""DRF's content negotiation, with its common case answered without parsing.

Nearly every API request asks for JSON or for anything (``Accept: */*``, or no header): DRF
then parses the header and matches it against every renderer, 6% of the CPU of opening a
game. Those requests get the first renderer at once, which is what DRF would choose for them
(tests/api/test_negotiation.py compares both); every other request goes through DRF's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> Any:
        renderers = list(renderers)
        first = renderers[0] if renderers else None
        if (
            first is not None
            and not format_suffix
            and request.META.get("HTTP_ACCEPT", "*/*") in ("*/*", first.media_type)
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
        ):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
