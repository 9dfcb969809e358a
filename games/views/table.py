"""A game's page (the table): the page, the polls that keep it fresh (the game's, and the
waiting page's while a challenge waits), the play form, and the buttons that act on a game
(accept, decline, cancel, resign, rematch), the player's private notes and muting the
opponent's messages. What the table shows is games/table.py's."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRefresh

from accounts.presence import records_presence
from accounts.throttling import throttled_post
from accounts.users import signed_in
from core.errors import ServiceError
from engine.cards import other
from games import challenges, notes, play_messages, selectors, services, table
from games.bot_guard import people_only
from games.errors import StaleVersion
from games.forms import NotesForm, PlayForm
from games.models import Game


@records_presence
@login_required
@require_GET
def game_waiting(request: HttpRequest, game_id: str) -> HttpResponse:
    """The waiting page polls this while its challenge waits: one indexed read; 204 while the
    status holds, else the page reloads (into the game once accepted, or the news that the
    challenge was declined or cancelled)."""
    status = Game.objects.filter(pk=game_id).values_list("status", flat=True).first()
    if status is None:
        return HttpResponse(status=404)
    if status == request.GET.get("status"):
        return HttpResponse(status=204)
    return HttpResponseClientRefresh()


def _game_or_404(game_id: str) -> Game:
    game = selectors.game_by_id(game_id)
    if game is None:
        raise Http404
    return game


@records_presence
@login_required
@require_GET
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """The table; at a game's end its review as far as a worker has written it (the end
    screen's section asks again until it is there). Reading it never writes."""
    game = _game_or_404(game_id)
    return render(request, "games/game.html", table.table_context(game, signed_in(request)))


@records_presence
@login_required
@require_GET
def game_poll(request: HttpRequest, game_id: str) -> HttpResponse:
    """htmx polls this every few seconds: one indexed read; 204 while nothing changed, else ask
    the page to reload. It only reads: the bot's reply is played by a worker once its
    BOT_MOVE_DELAY_SECONDS have passed (services._queue_bot_turn), page open or not, and the
    poll brings it to the page as its own step after the player's play."""
    version = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    if version is None:
        return HttpResponse(status=404)
    if str(version) == request.GET.get("version"):
        return HttpResponse(status=204)
    return HttpResponseClientRefresh()


@records_presence
@login_required
@require_POST
@throttled_post("plays")
@people_only
def game_play(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    cards = request.POST.getlist("cards")[:6]
    form = PlayForm(request.POST)
    stale = False
    if form.is_valid():
        try:
            services.game_play(
                game=game,
                user=signed_in(request),
                cards=cards,
                choice=form.cleaned_data["choice"] or None,
                expected_version=form.cleaned_data["expected_version"],
                idempotency_key=form.cleaned_data["idempotency_key"] or None,
                message=form.cleaned_data["message"] or None,
            )
            return redirect("game", game_id=game.pk)
        except StaleVersion:
            # Sent from a page that was behind (another tab, the API, the bot): nothing is
            # played; the page shows the position as it now is and says so.
            stale = True
            error = _("The game moved on: here is the position now. Nothing was played; choose again.")
            game.refresh_from_db()
        except ServiceError as exc:
            error = exc.detail
            game.refresh_from_db()
    else:
        error = _("The play could not be read; reload the page and try again.")
    context = table.table_context(game, signed_in(request))
    context["play_error"] = error
    context["stale"] = stale
    context["message_draft"] = request.POST.get("message", "")  # not lost with a refused play
    return render(request, "games/game.html", context, status=409 if stale else 400)


@login_required
@require_POST
def game_notes(request: HttpRequest, game_id: str) -> HttpResponse:
    """Save the player's private notes (the game page's and the history's form); back to where
    they were written. Anyone not seated in the game gets 404, as from the API."""
    game, user = _game_or_404(game_id), signed_in(request)
    if game.seat_of(user) is None:
        raise Http404
    form = NotesForm(request.POST)
    try:
        if not form.is_valid():
            raise ServiceError("note_too_long", _("Your notes are too long: nothing was saved."))
        notes.note_save(game=game, user=user, text=form.cleaned_data["text"])
        said, saved = _("Your notes are saved."), True
    except ServiceError as exc:
        said, saved = exc.detail, False
    if request.headers.get("HX-Request") == "true":
        # Saved in place as they are typed: the form's status line says so (htmx swaps a 200 only).
        return HttpResponse(escape(said))
    (messages.success if saved else messages.error)(request, said)
    if request.POST.get("next") == "history":
        return redirect(reverse("game-history", args=[game.pk]) + "#notes")
    return redirect(reverse("game", args=[game.pk]) + "#notes")


@login_required
@require_POST
def game_mute(request: HttpRequest, game_id: str) -> HttpResponse:
    """Mute (``mute=1``) or unmute this game's opponent's messages, everywhere and earlier ones
    included; the same as ``POST``/``DELETE /api/players/{name}/mute/``."""
    game, user = _game_or_404(game_id), signed_in(request)
    seat = game.seat_of(user)
    name = game.player_name(other(seat)) if seat is not None else None
    if name is None or game.bot:
        raise Http404
    muted = request.POST.get("mute") == "1"
    play_messages.mute_set(user=user, name=name, muted=muted)
    done = _("%(name)s's messages are muted.") if muted else _("%(name)s's messages are shown again.")
    messages.success(request, done % {"name": name})
    return redirect(reverse("game", args=[game.pk]) + "#news")


def _act(service: Any, done: str) -> Any:
    @login_required
    @require_POST
    @people_only
    def view(request: HttpRequest, game_id: str) -> HttpResponse:
        game = get_object_or_404(Game, pk=game_id)
        try:
            result = service(game=game, user=request.user)
        except ServiceError as exc:
            messages.error(request, exc.detail)
            return redirect("game", game_id=game.pk)
        messages.success(request, DONE_MESSAGES[done])
        target = result.pk if isinstance(result, Game) else game.pk
        return redirect("game", game_id=target) if done != "declined" else redirect("home")

    return view


DONE_MESSAGES = {
    "accepted": gettext_lazy("The challenge is accepted."),
    "declined": gettext_lazy("The challenge is declined."),
    "cancelled": gettext_lazy("The challenge is cancelled."),
    "resigned": gettext_lazy("You resigned the game."),
    "rematch": gettext_lazy("A rematch is on."),
}
game_accept = _act(challenges.game_accept, "accepted")
game_decline = _act(challenges.game_decline, "declined")
game_cancel = _act(challenges.game_cancel, "cancelled")
game_resign = _act(services.game_resign, "resigned")
game_rematch = _act(challenges.game_rematch, "rematch")
