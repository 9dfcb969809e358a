"""The end screen's live part: the computer's review, which a worker writes after the game has
ended (games/reviews.py). The finished game's page asks this fragment every few seconds until
the review is in (templates/games/_review_summary.html); what the rest of the end screen says
is games/end.py's, drawn with the page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.presence import records_presence
from games import history, reviews, selectors
from games.models import Game


@records_presence
@login_required
@require_GET
def game_review(request: HttpRequest, game_id: str) -> HttpResponse:
    """The review's section once written; until then 204 (htmx leaves the page as it is and
    asks again), after one indexed read: the game's status and its review's key, joined. Only
    reads: the review is the worker's, queued at the end whoever is watching. A review with
    nothing to say (no turn offered a choice) answers empty, and the section goes."""
    row = Game.objects.filter(pk=game_id).values_list("status", "review").first()
    if row is None:
        return HttpResponse(status=404)
    status, review_key = row
    if status != Game.Status.FINISHED or review_key is None:
        return HttpResponse(status=204)
    game = selectors.game_by_id(game_id)
    assert game is not None  # a game is never deleted (its events protect it)
    summary = reviews.end_summary(game, history.names_of(game))
    if summary is None:
        return HttpResponse("")
    return render(request, "games/_review_summary.html", {"game": game, "review": summary})
