from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts import services as account_services


@pytest.fixture
def make_user(db):  # type: ignore[no-untyped-def]
    def make(username: str) -> Any:
        return account_services.user_create(
            email_confirmed=True,
            username=username,
            password="dragon-heart-42",
            email=f"{username}@example.com",
        )

    return make


@pytest.fixture
def alice(make_user):  # type: ignore[no-untyped-def]
    return make_user("alice")


@pytest.fixture
def bob(make_user):  # type: ignore[no-untyped-def]
    return make_user("bob")


@pytest.fixture
def charlie(make_user):  # type: ignore[no-untyped-def]
    return make_user("charlie")


def client_for(user: Any) -> APIClient:
    """An API client that authenticates with a real personal token, as programs do."""
    _, key = account_services.token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def api(alice, bob, charlie):  # type: ignore[no-untyped-def]
    return {
        "alice": client_for(alice),
        "bob": client_for(bob),
        "charlie": client_for(charlie),
        "anon": APIClient(),
    }
