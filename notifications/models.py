"""Preferences: how and when each player hears from the site, and the browsers that take their
push notifications (the outbox is outbox.models)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Channel(models.TextChoices):
    """How one kind of notice reaches a player (notifications.services: delivery)."""

    PUSH_THEN_EMAIL = "push_then_email", _("Push, then email")
    PUSH = "push", _("Push only")
    EMAIL = "email", _("Email only")
    BOTH = "both", _("Push and email")


def channel_field() -> models.CharField[str, str]:
    return models.CharField(max_length=16, choices=Channel.choices, default=Channel.PUSH_THEN_EMAIL)


class Preferences(models.Model):
    class Mode(models.TextChoices):
        EVERY_TURN = "every_turn", _("an email at every turn")
        DIGEST = "digest", _("a daily digest of the games waiting for me")
        NONE = "none", _("no email")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="preferences"
    )
    email_mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.EVERY_TURN)
    digest_hour = models.PositiveSmallIntegerField(default=8, help_text="Local hour of the daily digest.")
    time_zone = models.CharField(max_length=64, default="UTC")
    language = models.CharField(max_length=8, default="en")
    # How each kind of notice goes (the API's names: notifications.channels.KINDS).
    turn_channel = channel_field()
    challenge_channel = channel_field()
    game_over_channel = channel_field()
    reminder_channel = channel_field()

    def __str__(self) -> str:
        return f"{self.user_id}: {self.email_mode}"


class PushSubscription(models.Model):
    """One browser's PushSubscription: where its pushes go and the keys that encrypt them
    (RFC 8291). An endpoint is one browser profile's: it belongs to whoever subscribed it last."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=2000, unique=True)
    p256dh = models.CharField(max_length=100, help_text="The browser's P-256 public key, base64url.")
    auth = models.CharField(max_length=40, help_text="The 16-byte authentication secret, base64url.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.endpoint[:60]}"


class InboundMail(models.Model):
    """One reply received, by its Message-ID: a reply delivered twice is handled once. Its
    outcome is written in the transaction of its play (notifications.inbound)."""

    message_id = models.CharField(max_length=255, unique=True)
    sender = models.CharField(max_length=254)
    received_at = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=32, help_text='"received" until it is handled.')
    detail = models.TextField(blank=True)
    claimed_at = models.DateTimeField(
        null=True, blank=True, help_text="When a server took it to handle (the database's clock)."
    )

    def __str__(self) -> str:
        return f"{self.message_id} ({self.outcome})"
