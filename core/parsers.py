"""DRF's JSON parser, refusing as malformed a body nested deeper than the decoder goes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """The standard library's decoder gives up on a body nested past the interpreter's
    recursion limit (``[[[…]]]``, a few kilobytes) with RecursionError, which DRF's parser lets
    through as a server error; it is a malformed body like any other, a 400."""

    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
