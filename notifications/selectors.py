"""Reads for the notifications app: what is waiting for a reader, what was sent to them."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from games.models import Game
from outbox.models import Notification


def waiting_games(user: User) -> QuerySet[Game]:
    yours = (Q(player_a=user) & Q(to_move="a")) | (Q(player_b=user) & Q(to_move="b"))
    return Game.objects.defer("state").filter(yours, status=Game.Status.ACTIVE).order_by("turn_started_at")


def sent_to(user: User, *, limit: int = 30) -> list[Notification]:
    """The reader's latest outbox rows, newest first: their send log on the profile page."""
    return list(Notification.objects.filter(user=user).order_by("-created_at")[:limit])
