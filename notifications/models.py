"""Email preferences: how and when each player hears from the site (the outbox is outbox.models)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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

    def __str__(self) -> str:
        return f"{self.user_id}: {self.email_mode}"


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
