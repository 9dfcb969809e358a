"""Thin tasks: they take ids and call services."""

from __future__ import annotations

import smtplib
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.utils import timezone

from notifications import emails, services
from outbox import services as outbox

# An email that the SMTP server refused, or could not be reached for, is tried again with
# back-off (eight tries over at most some twenty minutes) before the task gives up.
SENDING_RETRIES: dict[str, Any] = {
    "autoretry_for": (smtplib.SMTPException, OSError),
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "max_retries": 8,
}


@shared_task(ignore_result=True, **SENDING_RETRIES)
def send_notification(note_id: int) -> bool:
    return services.deliver(note_id)


@shared_task(ignore_result=True, **SENDING_RETRIES)
def send_email_confirmation(user_id: int) -> bool:
    """The link that confirms a new player's address, for tasks queued by an earlier release:
    confirmation emails are outbox rows now (Notification.Kind.CONFIRM_EMAIL)."""
    return emails.send_confirmation(user_id)


@shared_task(ignore_result=True)
def send_notifications(note_ids: list[int]) -> int:
    """A batch from the outbox relay: one task for several emails. A row whose sending fails
    goes on retrying alone, with send_notification's back-off, and the rest of the batch is
    still sent."""
    sent = 0
    for note_id in note_ids:
        try:
            sent += services.deliver(note_id)
        except (smtplib.SMTPException, OSError):
            send_notification.apply_async((note_id,), countdown=5)
    return sent


@shared_task(ignore_result=True)
def send_digests() -> int:
    """Periodic (beat, every quarter hour): the daily digests whose local hour has come."""
    return services.queue_digests(timezone.now())


@shared_task(ignore_result=True)
def sweep_outbox() -> int:
    """Periodic (beat): queue what never reached a worker (broker down at commit time)."""
    lost = outbox.pending(older_than=timedelta(minutes=1))
    for note_id in lost:
        outbox.queue_delivery(note_id)
    return len(lost)
