"""A game's history: one turn at a time on the board, the whole log beside it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from accounts.users import signed_in
from core.replicas import reads_may_lag, require_primary
from games import event_log, history_table
from games.models import Game


@login_required
@require_GET
@reads_may_lag
def game_history(request: HttpRequest, game_id: str) -> HttpResponse:
    """One turn of the game (``?turn=N``, 0 the deal; the last by default), its events in words
    and the board after it, as the viewer may see it then; the whole log beside it. A finished
    game's history may come from the replica; a running game's is always the primary's."""
    game = get_object_or_404(Game, pk=game_id)
    if game.status != Game.Status.FINISHED:
        require_primary()
    rows = event_log.read_events(game)
    if not rows:
        return redirect("game", game_id=game.pk)
    context = history_table.history_context(game, rows, signed_in(request), request.GET)
    return render(request, "games/history.html", context)
