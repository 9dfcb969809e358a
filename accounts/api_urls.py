"""The accounts API under /api/ (the pages are in urls.py): new users and API tokens."""

from __future__ import annotations

from django.urls import path

from accounts import api

urlpatterns = [
    path("users/", api.UserCreateApi.as_view(), name="api-users"),
    path("tokens/", api.TokenListCreateApi.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>/", api.TokenRevokeApi.as_view(), name="api-token"),
]
