"""The lobby (the home page): the player's games and challenges, the new-game form, the poll
that keeps the lists fresh; and the page of an invitation link."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services as account_services
from accounts.presence import records_presence
from accounts.users import signed_in
from core.errors import ServiceError
from games import challenges, lobby, selectors, showcase
from games.bot_guard import people_only
from games.forms import CreateGameForm
from games.models import Game

FIRST_BOT = "medium"
# A refusal of game_create that is about one field of the new-game form, shown beside it.
CREATE_ERROR_FIELDS = {
    "unknown_opponent": "username",
    "self_challenge": "username",
    "unknown_bot": "bot",
    "invalid_clock": "days_per_turn",
    "invalid_series": "target",
    "invalid_rating_range": "rating_min",
    "bot_not_rated": "rated",
    "rated_apart": "rated",
}


@records_presence
@people_only
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "games/front.html", {"showcase": showcase.board()})
    if request.method == "GET" and "lobby" in request.GET:
        return _lobby_poll(request)
    form = CreateGameForm(request.POST or None, initial=_chosen_opponent(request))
    if request.method == "POST" and form.is_valid():
        try:
            game = challenges.game_create(creator=request.user, **form.service_arguments())
            return redirect("game", game_id=game.pk)
        except ServiceError as exc:
            form.add_error(CREATE_ERROR_FIELDS.get(exc.code), exc.detail)
    user = signed_in(request)
    context = {
        "form": form,
        **lobby.lobby_context(user),
        "unconfirmed": bool(request.user.email) and not account_services.may_email(user),
    }
    return render(request, "home.html", context)


def _chosen_opponent(request: HttpRequest) -> dict[str, str]:
    """The opponent a link asked for (the welcome's "Challenge a friend": ``?against=user``)."""
    against = request.GET.get("against", "")
    return {"against": against} if against in dict(CreateGameForm.OPPONENTS) else {}


@login_required
@require_POST
@people_only
def play_computer(request: HttpRequest) -> HttpResponse:
    """A game against the computer in one tap, with what a newcomer needs: the official rules,
    the bot that looks a move ahead, no clock, and the first turn theirs."""
    game = challenges.game_create(
        creator=signed_in(request),
        opponent=f"bot:{FIRST_BOT}",
        rules={"preset": "official", "first_player": "a"},
    )
    return redirect("game", game_id=game.pk)


def _lobby_poll(request: HttpRequest) -> HttpResponse:
    """The lobby asks every few seconds with the fingerprint of what it shows: one query and
    no content while nothing changed; else the lists afresh, which htmx swaps in place (the
    new-game form, and whatever the player is typing in it, stays as it is)."""
    version = selectors.lobby_version(signed_in(request))
    if version == request.GET["lobby"]:
        return HttpResponse(status=204)
    context = lobby.lobby_context(signed_in(request), version=version)
    return render(request, "games/_lobby_live.html", context)


@require_http_methods(["GET", "POST"])
@people_only
def invite(request: HttpRequest, token: str) -> HttpResponse:
    game = get_object_or_404(Game, invite_token=token)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('signup')}?next={request.path}")
    error = None
    if request.method == "POST":
        try:
            challenges.game_accept(game=game, user=request.user)
            return redirect("game", game_id=game.pk)
        except ServiceError as exc:
            error = exc.detail
    return render(request, "games/invite.html", {"game": game, "error": error})
