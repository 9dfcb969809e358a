"""Bot accounts play only through the API (issue 27). Every other way to act on a game (the
pages' forms, an email's play link, a reply by email) asks here first: ``refuse_bot`` for a
service call, ``people_only`` for a page that changes a game.

The services themselves do not refuse bots, since the API calls them too; a bot reading pages
(its games, the leaderboard) is welcome: only POSTs are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.translation import gettext

from accounts import bots as bot_accounts
from core.errors import Forbidden

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def bot_refusal() -> Forbidden:
    return Forbidden(
        "bot_api_only",
        gettext("This is a bot account: it plays only through the API (its token and its stream)."),
    )


def refuse_bot(user: Any) -> None:
    """Raise Forbidden when ``user`` is a bot account (an email link or reply, a page)."""
    if bot_accounts.is_bot(user):
        raise bot_refusal()


def people_only(view: View) -> View:
    """A page view whose POST changes a game (a play, an answer to a challenge, a new game):
    a bot account's POST gets a 403 page that says to use the API; its GETs pass."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method == "POST" and bot_accounts.is_bot(request.user):
            return refused_page(request)
        return view(request, *args, **kwargs)

    return cast(View, wrapper)


def refused_page(request: HttpRequest) -> HttpResponse:
    return render(request, "games/bot_api_only.html", {"detail": bot_refusal().detail}, status=403)
