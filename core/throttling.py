"""DRF's scoped throttle, counting requests in fixed windows.

DRF's own throttle reads the list of every request's time in the window, then writes it back:
two cache round trips and a pickled list of up to (rate) floats on every play, and two
racing requests can both read the same list and both pass. Here a request costs one atomic
increment (one round trip on Redis). The price of fixed windows: a client can spend one
window's allowance at its end and the next one's at the start of the next.

Who a client is, when no user is signed in, is its address: ``client_address``, the one rule
for these throttles, the pages' and the login page's lockout.

Every 429 says when to come back, as whole seconds (``retry_after_seconds``): the API's as
``Retry-After`` and ``retry_after`` in its body (core.api_errors), the pages' as the header.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

from core.cache import count_hit

if TYPE_CHECKING:  # the views module imports the throttles
    from rest_framework.views import APIView


def retry_after_seconds(wait: float | None) -> int:
    """The wait a 429 announces: whole seconds, rounded up so that a client that waits them is
    let through, and at least 1 (``Retry-After: 0`` invites an immediate retry). A throttle
    that cannot tell (DRF's, after a rate change) gets 1."""
    return max(1, math.ceil(wait)) if wait is not None else 1


def client_address(request: HttpRequest | Request) -> str:
    """The client's address, as DRF's throttles key anonymous requests (``get_ident``): with
    settings.REST_FRAMEWORK's NUM_PROXIES at 0, REMOTE_ADDR and never a header; behind N
    trusted proxies, each appending the address it was reached from to X-Forwarded-For, the
    N-th address from the right. DRF's own code, so that the API's throttles (which call it
    themselves) and everything else that counts by address cannot disagree."""
    return BaseThrottle().get_ident(request) or ""  # type: ignore[arg-type]  # reads .META only


class WindowScopedRateThrottle(ScopedRateThrottle):
    wait_seconds: float | None = None

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        limit, duration = self.num_requests, self.duration
        key = self.get_cache_key(request, view)
        if limit is None or duration is None or key is None:
            return True
        now = self.timer()  # DRF's clock attribute (time.time), which tests can pin
        window = int(now // duration)
        if count_hit(f"{key}:{window}", duration) <= limit:
            return True
        self.wait_seconds = (window + 1) * duration - now
        return False

    def wait(self) -> float | None:
        return self.wait_seconds
