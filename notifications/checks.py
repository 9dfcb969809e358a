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


@register()
def vapid_keys_make_a_pair(**kwargs: Any) -> list[Error]:
    """The three VAPID settings all or none, the keys one pair, the subject a URL to reach you:
    a wrong pair would have every push refused, and no player told why."""
    from notifications import push

    given = [settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY, settings.VAPID_SUBJECT]
    if not any(given):
        return []
    problem = push.vapid_problem()
    if not problem:
        return []
    return [
        Error(
            f"The VAPID settings are wrong: {problem}",
            hint="Set all three from `manage.py vapid_keys`, or none (push off).",
            id="notifications.E002",
        )
    ]
