"""The Reply-To address of a turn email: play+NOTE-SIGNATURE@INBOUND_EMAIL_DOMAIN, which names
the outbox row (its reader, game and version) and signs it. Lower-case hex and a number only:
some mail systems fold the case of an address, and a local part holds 64 characters."""

from __future__ import annotations

import re

from django.conf import settings
from django.utils.crypto import salted_hmac

from outbox.models import Notification

ADDRESS = re.compile(r"^play\+(\d+)-([0-9a-f]{20})@", re.IGNORECASE)


def signature(note_id: int, user_id: int) -> str:
    return salted_hmac("notifications.reply", f"{note_id}:{user_id}").hexdigest()[:20]


def reply_address(note: Notification) -> str | None:
    """The Reply-To of a turn email, or None where the site receives no mail."""
    domain = settings.INBOUND_EMAIL_DOMAIN
    if not domain:
        return None
    return f"play+{note.pk}-{signature(note.pk, note.user_id)}@{domain}"
