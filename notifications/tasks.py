"""Thin tasks: they take ids and call services."""

from __future__ import annotations

import smtplib
from datetime import timedelta

from celery import shared_task

from notifications import services


@shared_task(
    ignore_result=True,
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=5,
    retry_backoff_max=600,
    max_retries=8,
)
def send_notification(note_id: int) -> bool:
    return services.deliver(note_id)


@shared_task(ignore_result=True)
def sweep_outbox() -> int:
    """Periodic (beat): queue what never reached a worker (broker down at commit time)."""
    lost = services.pending(older_than=timedelta(minutes=1))
    for note_id in lost:
        services.queue_delivery(note_id)
    return len(lost)
