"""A play from an email's link (games/play_links.py), without signing in: the link's page
shows the play on the board with a Confirm button, and Confirm plays it once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.throttling import throttled_post
from core.errors import NotFound, ServiceError
from engine.state import State
from games import event_log, history, play_links, selectors, services, table
from games.bot_guard import refuse_bot
from games.errors import StaleVersion
from games.models import Game


@require_http_methods(["GET", "POST"])
@throttled_post("plays", by_address=True)
def play_link(request: HttpRequest, token: str) -> HttpResponse:
    """A play from an email's link, without signing in: GET shows it on the board with a
    Confirm button (mail scanners open links; they must not play), POST plays it once."""
    try:
        link = play_links.read_link(token)
        play_links.check_viewer(link, request.user)
        game, user = _link_game(link)
        refuse_bot(user)
    except ServiceError as exc:
        return _link_page(request, {"error": exc.detail}, status=403 if exc.kind == "forbidden" else 400)
    if request.method == "POST":
        return _play_from_link(request, link, game, user)
    if game.version != link.version or game.status != Game.Status.ACTIVE:
        return _link_page(request, {"game": game, "error": _link_over()}, status=409)
    state = event_log.load_state(game)
    try:
        cards, choice = link.play(state)
    except ServiceError as exc:
        return _link_page(request, {"game": game, "error": exc.detail}, status=400)
    context = table.table_context(game, user)
    context.update(link_user=user, play=play_links.play_label(cards, choice, state.values), chosen=cards)
    return _link_page(request, context)


def _link_game(link: play_links.PlayLink) -> tuple[Game, User]:
    game = selectors.game_by_id(link.game_id)
    user = User.objects.filter(pk=link.user_id, is_active=True).first()
    if game is None or user is None or game.seat_of(user) is None:
        raise NotFound("not_found", _("This game is not there any more."))
    return game, user


def _play_from_link(request: HttpRequest, link: play_links.PlayLink, game: Game, user: User) -> HttpResponse:
    state = event_log.load_state(game)
    try:
        # The position the link was written for, even after the game moved on: a second
        # Confirm is the same play, which services.game_play answers from its key.
        cards, choice = link.play(state if game.version == link.version else _position_at(game, link.version))
        services.game_play(
            game=game,
            user=user,
            cards=cards,
            choice=choice,
            expected_version=link.version,
            idempotency_key=link.idempotency_key,
        )
    except StaleVersion:
        return _link_page(request, {"game": game, "error": _link_over()}, status=409)
    except ServiceError as exc:
        return _link_page(request, {"game": game, "error": exc.detail}, status=400)
    context = table.table_context(game, user)
    context.update(link_user=user, played=play_links.play_label(cards, choice, state.values))
    return _link_page(request, context)


def _position_at(game: Game, version: int) -> State:
    log = event_log.read_log(game)
    if not 1 <= version <= len(log):
        raise NotFound("not_found", _("This game is not there any more."))
    return history.state_at(log, version)


def _link_over() -> str:
    return _("This turn is over: a play has been made since the email was sent. Nothing was played.")


def _link_page(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, "games/play_link.html", context, status=status)
