from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Game, GameEvent, Series


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ["id", "status", "player_a", "player_b", "bot", "version", "to_move", "created_at"]
    list_filter = ["status", "bot"]
    search_fields = ["id", "player_a__username", "player_b__username"]
    readonly_fields = [
        *("version", "to_move", "state", "first", "winner", "end_reason", "scores"),
        "deal_commitment",
    ]
    # The salt opens the commitment: it leaves the server through the record only, once the
    # game is over (Game.revealed_deal).
    exclude = ["deal_salt"]
    raw_id_fields = ["player_a", "player_b", "created_by", "series", "rematch_of"]


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin[GameEvent]):
    """Read-only: the log is append-only, here as everywhere."""

    list_display = ["game", "seq", "kind", "v", "actor", "created_at"]
    list_filter = ["kind"]
    search_fields = ["game__id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Series)
class SeriesAdmin(admin.ModelAdmin[Series]):
    list_display = ["id", "kind", "target", "player_a", "player_b", "bot", "over", "winner"]
