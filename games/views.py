"""Server-rendered pages: lobby, game, history, and the forms that act on games. Each view
validates a form and calls one service; what a viewer sees comes from presenters, built on
engine.visibility like the API."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.throttling import throttled_post
from engine.cards import CAPACITY, TYPES
from games import event_log, history, presenters, selectors, services
from games.errors import GameError
from games.forms import CreateGameForm, PlayForm
from games.models import Game, Series, Vacation


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    email = forms.EmailField(
        required=False, help_text=gettext_lazy("For turn notifications; never shown to anyone.")
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = get_user_model()
        fields = ("username", "email")


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home")


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "welcome.html")
    form = CreateGameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            game = services.game_create(creator=request.user, **form.service_arguments())
            return redirect("game", game_id=game.pk)
        except GameError as exc:
            form.add_error(None, exc.detail)
    return render(request, "home.html", {"form": form, "lists": selectors.lobby(request.user)})


@require_http_methods(["GET", "POST"])
@throttled_post("signup", by_address=True)
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    game = get_object_or_404(Game, invite_token=token)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('signup')}?next={request.path}")
    error = None
    if request.method == "POST":
        try:
            services.game_accept(game=game, user=request.user)
            return redirect("game", game_id=game.pk)
        except GameError as exc:
            error = exc.detail
    return render(request, "games/invite.html", {"game": game, "error": error})


# Board layout, as on the printed board: each space beside the ones it takes from.
BOARD_ORDER = (
    "chest",
    "fire_dragon",
    "huntress",
    "stone_dragon",
    "princess",
    "troll",
    "dwarf",
    "ship",
    "hero",
)


def _spaces(board: dict[str, list[dict[str, Any]]] | None) -> list[dict[str, Any]]:
    spaces = []
    for kind in BOARD_ORDER:
        cards = board[kind] if board else []
        capacity = CAPACITY.get(kind)
        spaces.append(
            {
                "kind": kind,
                "cards": cards,
                "capacity": capacity,
                "free": capacity - len(cards) if capacity else None,
                "slots": [i < len(cards) for i in range(capacity or 0)],
            }
        )
    return spaces


def _breakdown(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Final points per card type and the dragon's bonus, for the end screen."""
    captured = view["revealed"]["captured"]
    rows = []
    for kind in TYPES:
        if kind == "ship":
            continue
        points = [sum(c["value"] for c in captured[seat] if c["type"] == kind) for seat in ("a", "b")]
        rows.append({"label": capfirst(history.type_name(kind, 2)), "points": points})
    rows.append(
        {"label": _("Great Dragon"), "points": [3 if view["dragon"] == seat else 0 for seat in ("a", "b")]}
    )
    return rows


def _game_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    state = event_log.load_state(game) if game.version else None
    view = presenters.game_view(game, state, request.user)
    return {
        "game": game,
        "view": view,
        "spaces": _spaces(view["board"]),
        "breakdown": _breakdown(view) if view["result"] and view["revealed"] else [],
        "series": Series.objects.filter(pk=game.series_id).first() if game.series_id else None,
        "me": view["your_seat"],
        "opponent": {"a": "b", "b": "a"}.get(view["your_seat"] or ""),
        "reason": history.end_reason(game.end_reason) if game.end_reason else "",
        "away": [
            {"name": game.player_name("a" if v.user_id == game.player_a_id else "b"), "until": v.ends_at}
            for v in Vacation.objects.filter(
                user_id__in=[game.player_a_id, game.player_b_id],
                starts_at__lte=timezone.now(),
                ends_at__gt=timezone.now(),
            )
        ],
    }


def _game_or_404(game_id: str) -> Game:
    game = selectors.game_by_id(game_id)
    if game is None:
        raise Http404
    return game


@login_required
@require_GET
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    return render(request, "games/game.html", _game_context(request, game))


@login_required
@require_GET
def game_poll(request: HttpRequest, game_id: str) -> HttpResponse:
    """htmx polls this every few seconds: one indexed read of the version; 204 while nothing
    changed, else ask the page to reload."""
    version = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    if version is None:
        return HttpResponse(status=404)
    if str(version) == request.GET.get("version"):
        return HttpResponse(status=204)
    response = HttpResponse(status=200)
    response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
@throttled_post("plays")
def game_play(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    cards = request.POST.getlist("cards")[:6]
    form = PlayForm(request.POST)
    if form.is_valid():
        try:
            services.game_play(
                game=game,
                user=request.user,
                cards=cards,
                choice=form.cleaned_data["choice"] or None,
                expected_version=form.cleaned_data["expected_version"],
            )
            return redirect("game", game_id=game.pk)
        except GameError as exc:
            error = exc.detail
            game.refresh_from_db()
    else:
        error = _("The play could not be read; reload the page and try again.")
    context = _game_context(request, game)
    context["play_error"] = error
    return render(request, "games/game.html", context, status=400)


def _act(service: Any, done: str) -> Any:
    @login_required
    @require_POST
    def view(request: HttpRequest, game_id: str) -> HttpResponse:
        game = get_object_or_404(Game, pk=game_id)
        try:
            result = service(game=game, user=request.user)
        except GameError as exc:
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
game_accept = _act(services.game_accept, "accepted")
game_decline = _act(services.game_decline, "declined")
game_cancel = _act(services.game_cancel, "cancelled")
game_resign = _act(services.game_resign, "resigned")
game_rematch = _act(services.game_rematch, "rematch")


@login_required
@require_GET
def game_history(request: HttpRequest, game_id: str) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    rows = event_log.read_events(game)
    if not rows:
        return redirect("game", game_id=game.pk)
    log = [row.as_engine_event() for row in rows]
    seat = game.seat_of(request.user)
    revealed = game.status == Game.Status.FINISHED
    last = len(log)
    default = history.first_unseen_step(log, seat) if request.GET.get("since") else last
    try:
        step = min(max(int(request.GET.get("step", default)), 1), last)
    except ValueError:
        step = last
    state = history.state_at(log, step)
    names = history.names_of(game)
    shown = [presenters.event_view(row, game, request.user) for row in rows]
    lines = [{"step": i + 1, "text": history.describe(e, names, state.values)} for i, e in enumerate(shown)]
    view = presenters.state_view(game, state, request.user, revealed=revealed)
    return render(
        request,
        "games/history.html",
        {
            "game": game,
            "view": view,
            "spaces": _spaces(view["board"]),
            "step": step,
            "last": last,
            "lines": lines,
            "current": lines[step - 1],
            "me": seat,
            "opponent": {"a": "b", "b": "a"}.get(seat or ""),
        },
    )
