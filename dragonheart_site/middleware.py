"""django-csp's middleware, with the policy header built once.

django-csp builds the policy string for every response, through dataclasses.asdict, twice
(the policy and the report-only one): 15% of the CPU of a bare API request here. Our policy is
the same for every response (no nonces, no view changes it), so the common case sets the
header built once; a response that a django-csp decorator changed, or a request that asked for
a nonce, still goes through the library's own path.
"""

from __future__ import annotations

from functools import cache

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CSPMiddleware as LibraryCSPMiddleware
from csp.utils import build_policy
from django.http import HttpRequest, HttpResponseBase

_PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_exempt",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
    "_csp_exempt_ro",
)


@cache
def _static_policy(report_only: bool) -> str:
    return build_policy(report_only=report_only)


class CSPMiddleware(LibraryCSPMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if (
            getattr(request, "_csp_nonce", None) is not None
            or any(hasattr(response, name) for name in _PER_RESPONSE)
            or HEADER in response
            or HEADER_REPORT_ONLY in response
        ):
            return super().process_response(request, response)
        for header, report_only in ((HEADER, False), (HEADER_REPORT_ONLY, True)):
            if policy := _static_policy(report_only):
                response[header] = policy
        return response
