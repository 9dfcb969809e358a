"""Slowing down password guessing on the login page (the API has DRF's throttles)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

FAILURES_ALLOWED = 10
WINDOW_SECONDS = 15 * 60


def _key(request: HttpRequest) -> str:
    address = request.META.get("REMOTE_ADDR", "")
    username = (request.POST.get("username") or "").lower()[:150]
    return f"login-failures:{address}:{username}"


class ThrottledLoginView(auth_views.LoginView):
    """Django's login, refusing further tries for a while after ten wrong passwords for one
    username from one address."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if cache.get(_key(request), 0) >= FAILURES_ALLOWED:
            return render(request, "registration/login_throttled.html", status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        key = _key(self.request)
        if not cache.add(key, 1, WINDOW_SECONDS):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, WINDOW_SECONDS)
        return super().form_invalid(form)
