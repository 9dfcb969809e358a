"""Slowing down password guessing on the login page, and the API's throttles on the pages
that write what a throttled endpoint writes. Their 429s are pages, not JSON, and say when to
come back in ``Retry-After`` as the API's do (core.throttling.retry_after_seconds)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from redis.exceptions import RedisError
from rest_framework.views import APIView

from core.cache import count_hit
from core.throttling import client_address, retry_after_seconds

log = logging.getLogger(__name__)
FAILURES_ALLOWED = 10
WINDOW_SECONDS = 15 * 60


def _key(request: HttpRequest) -> str:
    address = client_address(request)  # the API's rule: behind a proxy, not the proxy's
    username = (request.POST.get("username") or "").lower()[:150]
    return f"login-failures:{address}:{username}"


def _failures(request: HttpRequest) -> int:
    """Wrong passwords counted for this username and address. With the cache down, none: like
    every throttle here (core.cache.count_hit), a lockout that cannot count lets
    the try through and logs it, rather than locking everyone out or failing the page."""
    try:
        return int(cache.get(_key(request), 0))
    except RedisError:
        log.warning("cache unavailable; login failures for this try not read")
        return 0


def _seconds_left(request: HttpRequest) -> float:
    """Until the failures are forgotten: the counter's time to live where the cache tells it
    (Redis), else the whole window, which is never shorter than what is left of it."""
    ttl = getattr(cache, "ttl", None)  # django-redis' RedisCache has it, the local memory not
    if ttl is None:
        return WINDOW_SECONDS
    try:
        left = ttl(_key(request))
    except RedisError:
        return WINDOW_SECONDS
    # None: kept without an expiry, which count_hit never leaves; 0: gone since it was read.
    return WINDOW_SECONDS if left is None else float(left)


class ThrottledLoginView(auth_views.LoginView):
    """Django's login, refusing further tries for a while after ten wrong passwords for one
    username from one address."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _failures(request) >= FAILURES_ALLOWED:
            response = render(request, "registration/login_throttled.html", status=429)
            response["Retry-After"] = str(retry_after_seconds(_seconds_left(request)))
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        count_hit(_key(self.request), WINDOW_SECONDS)
        return super().form_invalid(form)


class _Scope:
    """What a DRF throttle reads of a view."""

    def __init__(self, scope: str) -> None:
        self.throttle_scope = scope


class _Address:
    """A request as a throttle keyed by the client's address sees it (as the API's sign-up,
    which authenticates nobody): a new account must not bring a new allowance."""

    def __init__(self, request: HttpRequest) -> None:
        self.META = request.META
        self.headers = request.headers
        self.user = AnonymousUser()


View = Callable[..., HttpResponse]


def throttled_post(scope: str, by_address: bool = False) -> Callable[[View], View]:
    """Count a page's POSTs against the API scope ``scope``: the same rate and the same
    counter as the endpoint, so a script gains nothing by posting the form instead."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def throttled(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method == "POST":
                for throttle_class in APIView.throttle_classes:  # settings.REST_FRAMEWORK's
                    throttle = throttle_class()
                    # Duck-typed: a throttle reads only .user, .META, .headers and the scope.
                    counted: Any = _Address(request) if by_address else request
                    as_view: Any = _Scope(scope)
                    if not throttle.allow_request(counted, as_view):
                        response = render(request, "throttled.html", status=429)
                        response["Retry-After"] = str(retry_after_seconds(throttle.wait()))
                        return response
            return view(request, *args, **kwargs)

        return throttled

    return decorate
