"""Reads for pages: the lobby's lists, each one query whatever the number of games."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from games.models import Game


def _light() -> QuerySet[Game]:
    # Lists never need the snapshot or the options.
    return Game.objects.defer("state", "options")


def lobby(user: Any) -> dict[str, list[Game]]:
    mine = Q(player_a=user) | Q(player_b=user)
    active = list(_light().filter(mine, status=Game.Status.ACTIVE).order_by("turn_started_at"))
    your_turn = [g for g in active if g.seat_of(user) == g.to_move]
    challenges = list(
        _light().filter(mine, status__in=[Game.Status.CHALLENGE, Game.Status.OPEN]).order_by("-created_at")
    )
    return {
        "your_turn": your_turn,  # longest waiting first
        "their_turn": [g for g in active if g not in your_turn],
        "received": [g for g in challenges if g.player_b_id == user.pk],
        "sent": [g for g in challenges if g.created_by_id == user.pk],
        "open": list(
            _light()
            .filter(status=Game.Status.OPEN, private=False)
            .exclude(created_by=user)
            .order_by("-created_at")[:30]
        ),
        "finished": list(_light().filter(mine, status=Game.Status.FINISHED).order_by("-finished_at")[:20]),
    }
