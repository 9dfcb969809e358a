"""The SMTP server of play by reply (manage.py inbound_smtp; aiosmtpd): it accepts mail for
INBOUND_EMAIL_DOMAIN only and hands each message to notifications.inbound.receive."""

from __future__ import annotations

import logging
from email import policy
from email.parser import BytesParser
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from notifications import inbound

log = logging.getLogger(__name__)


def _received(content: bytes, recipients: list[str]) -> inbound.Outcome:
    try:
        message = BytesParser(policy=policy.default).parsebytes(content)
        return inbound.receive(message, recipients)
    finally:
        # Replies are few and the server lives long: a connection per message, closed after
        # it, is never found stale and never outlives the database it was opened on.
        connections.close_all()


class Handler:
    """aiosmtpd's handler: RCPT for our domain only, DATA handed to the service."""

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        domain = str(settings.INBOUND_EMAIL_DOMAIN).lower()
        if not domain or not address.lower().endswith("@" + domain):
            return "550 5.7.1 not a mailbox of this site"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content = envelope.original_content or envelope.content
        try:
            outcome = await sync_to_async(_received, thread_sensitive=True)(
                bytes(content), list(envelope.rcpt_tos)
            )
        except inbound.Busy:  # another server is playing it: the retry will find it handled
            log.info("inbound mail is being handled by another server")
            return "451 4.3.0 being handled, try again later"
        except Exception:  # the sender's server will try again later
            log.exception("inbound mail could not be handled")
            return "451 4.3.0 try again later"
        log.info("inbound mail: %s %s", outcome.status, outcome.detail)
        return "250 2.0.0 accepted"
