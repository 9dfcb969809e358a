"""signed_in: the request's user as the user model, or 403 where a view forgot its guard."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from accounts.users import signed_in


def test_it_gives_the_signed_in_user(alice):
    request = RequestFactory().get("/")
    request.user = alice
    assert signed_in(request) == alice


def test_it_refuses_an_anonymous_request():
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with pytest.raises(PermissionDenied):
        signed_in(request)
