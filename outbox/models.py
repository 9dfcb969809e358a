"""The outbox: one row per email or push to one player, written in the transaction of what
caused it (a push row is written by the delivery of its email row: notifications.services).

It sits below the games app so that a play can say "tell this player" without knowing how an
email is made; the notifications app, above games, delivers the rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Notification(models.Model):
    """One email to one player, written in the transaction of what caused it.

    The unique key makes a second notification of the same fact impossible; a worker claims
    a row with a conditional UPDATE before sending, so two workers never both send it.
    """

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", _("your turn")
        REMINDER = "reminder", _("reminder")
        CHALLENGE = "challenge", _("challenge received")
        ACCEPTED = "accepted", _("challenge accepted")
        GAME_OVER = "game_over", _("game over")
        DIGEST = "digest", _("daily digest")
        CONFIRM_EMAIL = "confirm_email", _("address confirmation")

    class Channel(models.TextChoices):
        EMAIL = "email", _("email")
        PUSH = "push", _("push notification")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Each fact is one row per channel: the email row is written with the fact, the push row
    # (same user, kind and key) by the email row's delivery, so each is claimed and sent once.
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.EMAIL)
    key = models.CharField(max_length=64, help_text="What makes this fact unique, e.g. the game version.")
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    skipped = models.CharField(max_length=100, blank=True, help_text="Why no email went out, if none did.")
    attempts = models.PositiveSmallIntegerField(default=0)
    subject = models.CharField(max_length=200, blank=True)
    held_until = models.DateTimeField(
        null=True, blank=True, help_text="A turn email waits for its reader to leave the site until then."
    )
    last_error = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "key", "channel"], name="notification_once")
        ]
        indexes = [models.Index(fields=["sent_at", "created_at"], name="notification_pending")]
        # The table keeps the name it had when the notifications app owned the model (moved
        # by a state-only migration), and its NOTIFY trigger (notifications/migrations/0002).
        db_table = "notifications_notification"

    def __str__(self) -> str:
        return f"{self.kind} {self.key} → {self.user_id} ({self.channel})"


class AccountEvent(models.Model):
    """One event of an account's live stream (``challenge``, ``your_turn``, ``game_over``…),
    written in the transaction of what caused it, like an email's row, and read by the
    account's open streams (the games floor serves them: games/streams.py).

    ``seq`` numbers an account's events 1, 2, 3… and is the stream's event id. The database
    gives it (a trigger counting on AccountStreamHead, migration 0005), inside the writing
    transaction: a second transaction writing for the same account waits on the head's row
    until the first commits, so the ids of one account become visible in their order and a
    stream that has sent id N can never later find an N - 1 it skipped."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.BigIntegerField(default=0, help_text="Given by the database on insert.")
    kind = models.CharField(max_length=24)
    # No foreign key: a stream's history outlives nothing it names, and a play writes no join.
    game_id = models.CharField(max_length=16, blank=True)
    # The event's data, encoded once as the API encodes its answers: a stream sends these
    # bytes as they are, and ``your_turn``'s view is the body GET returned then, byte for byte.
    data = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="account_event_once")]
        indexes = [models.Index(fields=["created_at"], name="account_event_age")]

    def __str__(self) -> str:
        return f"{self.user_id}#{self.seq} {self.kind}"


class AccountStreamHead(models.Model):
    """An account's newest event id: kept when old events are pruned, so ids never restart."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    last_seq = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.last_seq}"
