"""The notifications app's pages: the profile (with its vacation form) and the one-click
unsubscribe. The inbound mail webhook is anymail's, included by dragonheart_site/urls.py."""

from __future__ import annotations

from django.urls import path

from notifications import views

urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/vacation/", views.vacation_start, name="vacation-start"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
