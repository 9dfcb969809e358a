"""Server-rendered pages. This is the thin first cut the invite flow needs (sign up, accept,
see the game); the full lobby, board and history pages build on it."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from games import event_log, presenters, services
from games.errors import GameError
from games.models import Game


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    email = forms.EmailField(required=False, help_text="For turn notifications; never shown to anyone.")

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
    games: list[dict[str, object]] = []
    if request.user.is_authenticated:
        rows = (
            Game.objects.defer("state", "options")
            .filter(Q(player_a=request.user) | Q(player_b=request.user))
            .order_by("-created_at")[:50]
        )
        games = [presenters.game_summary(g, request.user) for g in rows]
    return render(request, "home.html", {"games": games})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("player_a"), invite_token=token)
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


@login_required
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    state = event_log.load_state(game) if game.version else None
    return render(
        request, "games/game.html", {"game": game, "view": presenters.game_view(game, state, request.user)}
    )
