from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app shares (errors, caching, health); an app only so that its management
    commands (migrate under a lock) are found. It has no models and imports no other app."""

    name = "core"
