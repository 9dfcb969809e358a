"""The signed-in user of a request, typed as the user model."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.request import Request


def signed_in(request: HttpRequest | Request) -> User:
    """``request.user`` where login_required or IsAuthenticated has already refused anyone
    else; the type says so, and a view that forgot the guard answers 403, not a page."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("this view needs a signed-in user")
    return user
