"""The mail provider's webhooks (django-anymail: its views check the provider's basic-auth
secret and parse the provider's payloads). A reply through the inbound webhook goes to the same
function as the SMTP server's, notifications.inbound.receive; a bounce or a complaint from the
tracking webhook stops emails to that address."""

from __future__ import annotations

from typing import Any

from anymail.signals import AnymailInboundEvent, AnymailTrackingEvent, inbound, tracking

from accounts import services as account_services
from notifications import inbound as replies

# What the provider's tracking webhook reports that stops emails to an address.
_STOPS = {"bounced": "bounced", "complained": "marked as spam"}


def _received(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    message = event.message
    if message is None:
        return
    recipient = getattr(message, "envelope_recipient", None)
    replies.receive(message, [recipient] if recipient else None)


def _tracked(sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any) -> None:
    """A bounce or a complaint stops every email to that address; the profile says so."""
    if event.event_type in _STOPS and event.recipient:
        reason = " ".join(filter(None, [_STOPS[event.event_type], event.description or ""]))
        account_services.email_bounced(address=event.recipient, reason=reason)


def connect() -> None:
    inbound.connect(_received, dispatch_uid="notifications.webhooks.inbound")
    tracking.connect(_tracked, dispatch_uid="notifications.webhooks.tracking")
