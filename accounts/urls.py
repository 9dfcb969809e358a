"""The accounts app's pages: signing up and in (Django's own views for the rest: logout,
password change and reset), API tokens, the email's confirmation. Its API is in api_urls.py;
the profile page is the notifications app's (notifications/urls.py)."""

from __future__ import annotations

from django.urls import include, path

from accounts import views
from accounts.throttling import ThrottledLoginView

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/tokens/", views.token_create, name="token-create"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke, name="token-revoke"),
    path("accounts/confirm/<str:token>/", views.email_confirm, name="email-confirm"),
    path("accounts/confirm/", views.email_confirmation_send, name="email-confirmation-send"),
    path("accounts/email/", views.email_change, name="email-change"),
    # Before Django's own: the same path, throttled.
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
]
