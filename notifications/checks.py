from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.db import connection


@register()
def outbox_relay_needs_postgresql(**kwargs: Any) -> list[Error]:
    if settings.OUTBOX_RELAY and connection.vendor != "postgresql":
        return [
            Error(
                "OUTBOX_RELAY is on, but the outbox relay listens for PostgreSQL's NOTIFY.",
                hint="Use PostgreSQL (DATABASE_URL), or turn OUTBOX_RELAY off.",
                id="notifications.E001",
            )
        ]
    return []
