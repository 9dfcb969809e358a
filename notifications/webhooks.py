"""Replies that reach the site through a mail provider's inbound webhook (django-anymail: its
view checks the provider's basic-auth secret and parses the provider's payload into an email)
go to the same function as the SMTP server's: notifications.inbound.receive."""

from __future__ import annotations

from typing import Any

from anymail.signals import AnymailInboundEvent, inbound

from notifications import inbound as replies


def _received(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    message = event.message
    if message is None:
        return
    recipient = getattr(message, "envelope_recipient", None)
    replies.receive(message, [recipient] if recipient else None)


def connect() -> None:
    inbound.connect(_received, dispatch_uid="notifications.webhooks.inbound")
