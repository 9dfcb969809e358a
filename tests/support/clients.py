"""Clients as the service's users hold them."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from accounts import services as account_services


def client_for(user: Any) -> APIClient:
    """An API client that authenticates with a real personal token, as programs do."""
    _, key = account_services.token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client
