from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.scopes import all_scopes


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A personal API token. Only its SHA-256 digest is stored: the key is shown once, at
    creation, and a database leak gives nobody a working token."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8, help_text="The first characters, to tell tokens apart.")
    # A list, in accounts.scopes.SCOPES' order: what the token may do (accounts.permissions).
    scopes = models.JSONField(default=all_scopes, help_text="Of read, play and challenge.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def new_key(cls) -> str:
        return secrets.token_urlsafe(30)


class EmailStatus(models.Model):
    """Whether the site may email a player: their address confirmed by a signed link, and not
    bounced nor complained about (the provider's tracking webhook). No game email goes to an
    address that is not confirmed, or that bounced."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="email_status"
    )
    address = models.EmailField(help_text="The address this status is about; a new address starts over.")
    confirmed_at = models.DateTimeField(null=True, blank=True)
    bounced_at = models.DateTimeField(null=True, blank=True)
    bounce_reason = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.address}: {'confirmed' if self.confirmed_at else 'unconfirmed'}"

    def may_receive(self, address: str) -> bool:
        return (
            self.address.lower() == address.lower()
            and self.confirmed_at is not None
            and self.bounced_at is None
        )


class BotAccount(models.Model):
    """An account that a program plays (issue 27): it plays only through the API, is rated
    apart from people, and gets no game emails (it has the account stream). The switch is
    irreversible: a row is never deleted by the site. See accounts.bots."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="bot_account"
    )
    became_bot_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"bot account {self.user_id}"
