"""The notifications API under /api/: push subscriptions and each kind's channel."""

from __future__ import annotations

from django.urls import path

from notifications import api

urlpatterns = [
    path("push/key/", api.PushKeyApi.as_view(), name="api-push-key"),
    path("push/subscriptions/", api.PushSubscriptionApi.as_view(), name="api-push-subscriptions"),
    path("account/notifications/", api.ChannelsApi.as_view(), name="api-account-notifications"),
]
