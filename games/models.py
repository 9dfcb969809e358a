"""A game is its append-only event log (``GameEvent``); ``Game`` holds what lists and pages
need plus a cached engine state, written in the same transaction as the events and rebuildable
from the log (``manage.py rebuild_game_cache``)."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.cards import Seat
from engine.events import Event, upcast


def new_public_id() -> str:
    # 12 url-safe characters: 72 random bits, not guessable, short enough for a link.
    return secrets.token_urlsafe(9)


class Series(models.Model):
    MATCH, SUMOF = "match", "sumof"

    id = models.CharField(primary_key=True, max_length=16, default=new_public_id, editable=False)
    kind = models.CharField(
        max_length=8, choices=[(MATCH, _("first to X wins")), (SUMOF, _("most points over X"))]
    )
    target = models.PositiveSmallIntegerField()
    player_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    bot = models.CharField(max_length=16, blank=True)
    options = models.JSONField()
    over = models.BooleanField(default=False)
    winner = models.CharField(max_length=1, blank=True)
    standings = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return f"{self.kind} {self.target} ({self.id})"


DAYS_PER_TURN = (1, 2, 3, 5, 7, 14)
MIN_RATING, MAX_RATING = 100, 3500  # the bounds a challenge's rating range may name

# The bots' levels as pages name them: "Computer (medium)", never the API's "bot:medium".
BOT_LEVELS = {
    "random": _("random"),
    "greedy": _("greedy"),
    "medium": _("medium"),
    "strong": _("strong"),
}


def shown_name(name: str | None) -> str | None:
    """What a page shows for a player name of ``Game.player_name``: a username as it is, a
    bot as "Computer (medium)" in the page's language. Usernames cannot hold a colon (Django's
    validator), so the ``bot:`` prefix is unambiguous. The API keeps ``bot:NAME``."""
    if name is None or not name.startswith("bot:"):
        return name
    level = name.removeprefix("bot:")
    return gettext("Computer (%(level)s)") % {"level": BOT_LEVELS.get(level, level)}


class GameQuerySet(models.QuerySet["Game"]):
    def of_player(self, user: User) -> GameQuerySet:
        """The games ``user`` plays in, in either seat ("the games of this player")."""
        return self.filter(models.Q(player_a=user) | models.Q(player_b=user))


class Game(models.Model):
    class Status(models.TextChoices):
        CHALLENGE = "challenge", _("waiting for the challenged player")
        OPEN = "open", _("open challenge")
        ACTIVE = "active", _("being played")
        FINISHED = "finished", _("finished")
        DECLINED = "declined", _("declined")
        CANCELLED = "cancelled", _("cancelled")

    id = models.CharField(primary_key=True, max_length=16, default=new_public_id, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    player_a = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_a", null=True, blank=True
    )
    player_b = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_b", null=True, blank=True
    )
    # Names are copied here (usernames never change) so that opening a game reads one row.
    player_a_name = models.CharField(max_length=150, blank=True)
    player_b_name = models.CharField(max_length=150, blank=True)
    # Whether each seat's player is a bot account (accounts.bots), copied with the name when the
    # seat is filled: an account becomes a bot only before it ever played and never stops being
    # one, so the copy cannot go stale. The site's own bot (``bot``) is not counted here:
    # ``seat_is_bot`` answers for both.
    player_a_is_bot = models.BooleanField(default=False)
    player_b_is_bot = models.BooleanField(default=False)
    bot = models.CharField(max_length=16, blank=True, help_text="The bot in seat b, if any.")
    private = models.BooleanField(default=False, help_text="An open challenge reachable only by its link.")
    invite_token = models.CharField(max_length=32, unique=True, null=True, blank=True)
    options = models.JSONField(help_text="The engine options as resolved at creation.")
    series = models.ForeignKey(Series, on_delete=models.PROTECT, null=True, blank=True, related_name="games")
    number = models.PositiveSmallIntegerField(default=1, help_text="Game number within its series.")
    rematch_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    # Cached from the log (same transaction as the events that change them).
    version = models.PositiveIntegerField(default=0, help_text="Sequence number of the last event.")
    first = models.CharField(max_length=1, blank=True, help_text="The seat that began.")
    to_move = models.CharField(max_length=1, blank=True)
    state = models.JSONField(null=True, blank=True, help_text="Engine snapshot; holds hidden cards.")
    winner = models.CharField(max_length=1, blank=True)
    end_reason = models.CharField(max_length=16, blank=True)
    scores = models.JSONField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    days_per_turn = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Days a player has for each turn; empty for a casual game."
    )
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the player to move runs out of time."
    )
    rated = models.BooleanField(default=False, help_text="Whether its end changes the players' ratings.")
    rating_min = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="An open challenge only a player rated this or more may accept."
    )
    rating_max = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="An open challenge only a player rated this or less may accept."
    )
    # The deal anyone can verify (engine.deal), made at the start. The commitment is public
    # from the first turn; the salt opens it and must stay secret until the game is over
    # (only `deal` below hands it out). Both are empty in games started before deals were
    # committed: no claim is made about those.
    deal_commitment = models.CharField(
        max_length=64, blank=True, default="", help_text="SHA-256 commitment to both shuffled decks."
    )
    deal_salt = models.CharField(
        max_length=64, blank=True, default="", help_text="Hex salt of the commitment; secret until the end."
    )

    objects = GameQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["status", "-created_at"], name="game_status_created"),
            models.Index(fields=["player_a", "status"], name="game_player_a_status"),
            models.Index(fields=["player_b", "status"], name="game_player_b_status"),
        ]

    def __str__(self) -> str:
        return self.id

    def seat_of(self, user: User) -> Seat | None:
        """The seat ``user`` holds in this game, or None (a spectator)."""
        user_id = getattr(user, "pk", None)
        if user_id is None:
            return None
        if self.player_a_id == user_id:
            return "a"
        if self.player_b_id == user_id:
            return "b"
        return None

    def player(self, seat: str) -> Any:
        return self.player_a if seat == "a" else self.player_b

    def player_name(self, seat: str) -> str | None:
        """The name shown for a seat: a username, ``bot:NAME``, or None for an open seat."""
        if seat == "b" and self.bot:
            return f"bot:{self.bot}"
        return (self.player_a_name if seat == "a" else self.player_b_name) or None

    def shown_player_name(self, seat: str) -> str | None:
        """``player_name`` as pages show it (a bot as "Computer (medium)"): see shown_name."""
        return shown_name(self.player_name(seat))

    @property
    def name_a(self) -> str | None:
        return self.player_name("a")

    @property
    def name_b(self) -> str | None:
        return self.player_name("b")

    def is_bot_seat(self, seat: str) -> bool:
        return seat == "b" and bool(self.bot)

    def seat_is_bot(self, seat: str) -> bool:
        """Whether a bot plays ``seat``: the site's own bot or a bot account (the API's
        ``is_bot``, the pages' BOT badge). False for an open seat."""
        return self.is_bot_seat(seat) or (self.player_a_is_bot if seat == "a" else self.player_b_is_bot)

    def public_deal(self) -> dict[str, str | None] | None:
        """The deal as anyone may see it now: the commitment, and the salt once the game is
        over (None before); None for a game with no commitment."""
        if not self.deal_commitment:
            return None
        return {"commitment": self.deal_commitment, "salt": None, **(self.revealed_deal() or {})}

    def accepts_rating(self, rating: int) -> bool:
        """Whether a player rated ``rating`` may accept this open challenge (its rating range)."""
        low, high = self.rating_min, self.rating_max
        return (low is None or rating >= low) and (high is None or rating <= high)

    def outcome_of(self, seat: str) -> str:
        """For ``seat`` in a finished game: "won", "lost" or "draw"; "" while it is not over."""
        if self.status != self.Status.FINISHED:
            return ""
        if not self.winner:
            return "draw"
        return "won" if self.winner == seat else "lost"

    def revealed_deal(self) -> dict[str, str] | None:
        """The commitment and its salt, for the record and the check: only once the game is
        over, and only in a game that has one. The one reader of ``deal_salt``."""
        if not self.deal_commitment or self.status != self.Status.FINISHED:
            return None
        return {"salt": self.deal_salt, "commitment": self.deal_commitment}


class GameEvent(models.Model):
    """One engine event. Append-only: nothing in the code updates or deletes a row, the admin
    shows them read-only, and on PostgreSQL a trigger refuses UPDATE and DELETE."""

    # No index of its own (nor PostgreSQL's second one for LIKE): the unique (game, seq) key
    # serves every lookup by game, and each event written skips two index insertions.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    v = models.PositiveSmallIntegerField(help_text="Schema version of the payload.")
    payload = models.JSONField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="game_event_seq_unique")]
        ordering = ["game", "seq"]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.kind}"

    def as_engine_event(self) -> Event:
        """The engine event this row stores, upcast to the current schema: every reader of a
        log goes through here, so none sees an old version (engine.events.upcast)."""
        return upcast({"kind": self.kind, "v": self.v, **self.payload})


class IdempotentPlay(models.Model):
    """A play sent with an ``Idempotency-Key``, stored in the play's transaction: a retry of
    the same request is answered from here (with the game as it now is) and never plays twice."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the play, to refuse a reused key.")
    version = models.PositiveIntegerField(help_text="The game's version right after the play.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotent_play_unique")]


class Vacation(models.Model):
    """A declared absence: the clocks of the player's turns stop from ``starts_at`` to
    ``ends_at`` (at most 21 days a calendar year). Each of their games records its start and
    end as events, so both players can see why a turn did not time out."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    days = models.PositiveSmallIntegerField()
    closed = models.BooleanField(default=False, help_text="Its end is recorded in the games.")

    class Meta:
        indexes = [models.Index(fields=["closed", "ends_at"], name="vacation_open_end")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.starts_at:%Y-%m-%d} – {self.ends_at:%Y-%m-%d}"


class GameReview(models.Model):
    """The computer's review of a finished game (engine/review.py), a projection of its log:
    ``manage.py review_game ID`` rebuilds it with its ``TurnReview`` rows. Its absence means
    the review has not run yet."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="review")
    # Per seat: {"turns", "average_loss", "inaccuracies", "mistakes", "blunders"}.
    summary = models.JSONField()
    iterations = models.PositiveIntegerField(help_text="Determinizations per turn.")
    cpu_seconds = models.FloatField(help_text="Worker CPU the review took.")
    reviewed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"review of {self.game_id}"


class ReviewClaim(models.Model):
    """A worker computing a finished game's review (games.reviews.review_claim): a duplicate
    delivery of its task, or a sweep that queued it again, finds the claim and computes
    nothing. A claim older than reviews.CLAIM_TIMEOUT (by the database's clock) belongs to a
    worker that died mid-review, and may be taken again."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    claimed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"review of {self.game_id} claimed at {self.claimed_at}"


class TurnReview(models.Model):
    """One turn of a finished game as the review judged it from the seat's view then."""

    class Mark(models.TextChoices):
        NONE = "", _("no mark")
        INACCURACY = "inaccuracy", _("inaccuracy")
        MISTAKE = "mistake", _("mistake")
        BLUNDER = "blunder", _("blunder")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="turn_reviews")
    number = models.PositiveSmallIntegerField(help_text="The turn, counted from 1 as the history page does.")
    seat = models.CharField(max_length=1)
    played_cards = models.JSONField()
    played_choice = models.CharField(max_length=16, blank=True)
    best_cards = models.JSONField()
    best_choice = models.CharField(max_length=16, blank=True)
    # Null for a turn with a single legal play, which is not searched.
    best_chance = models.FloatField(null=True, blank=True)
    played_chance = models.FloatField(null=True, blank=True)
    choices = models.PositiveSmallIntegerField(help_text="How many legal plays the turn offered.")
    loss = models.FloatField(help_text="Points of winning chance lost (0 to 100).")
    mark = models.CharField(max_length=10, choices=Mark.choices, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="turn_review_unique")]
        ordering = ["game", "number"]

    def __str__(self) -> str:
        return f"{self.game_id} turn {self.number}: {self.mark or '-'}"


# Notes and messages: the limits the API documents (docs/service.md) and the pages enforce.
# 4,000 characters of notes fit the API's 16 KiB body (core.middleware) as UTF-8 of any script.
NOTE_MAX_CHARS = 4_000
MESSAGE_MAX_CHARS = 280


class GameNote(models.Model):
    """A player's private notes on a game: read and written only by that player
    (games/notes.py), never shown to the opponent, a spectator or in any export."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(blank=True, max_length=NOTE_MAX_CHARS)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="game_note_unique")]

    def __str__(self) -> str:
        return f"notes of {self.user_id} on {self.game_id}"


class PlayMessage(models.Model):
    """A short word sent with a play, for the two players only (games/play_messages.py):
    written by the play's own statement (services._play), so a refused play leaves none."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    turn = models.PositiveIntegerField(help_text="The game's turn the play completed (history's number).")
    version = models.PositiveIntegerField(help_text="The game's version after the play.")
    seat = models.CharField(max_length=1)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=MESSAGE_MAX_CHARS)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "turn"], name="play_message_unique")]

    def __str__(self) -> str:
        return f"{self.game_id} turn {self.turn}: message from {self.seat}"


class Mute(models.Model):
    """``user`` reads no message from ``muted``, earlier ones included (read-time filter).
    In games, not players: the games floor reads it to hide messages, and players sits above."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "muted"], name="mute_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"
