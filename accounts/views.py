"""The player's own profile page: their games, their record and their API tokens."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import services
from accounts.models import ApiToken
from accounts.throttling import throttled_post
from games import vacations
from games.errors import GameError
from games.models import Game
from notifications.forms import PreferencesForm
from notifications.models import Notification
from notifications.services import preferences_of


def _win_loss_record(user: object) -> dict[str, int]:
    """Wins, losses and draws over finished games, in one query."""
    as_a = Q(player_a=user)
    as_b = Q(player_b=user)
    finished = Game.objects.filter(as_a | as_b, status=Game.Status.FINISHED)
    return finished.aggregate(
        played=Count("pk"),
        wins=Count("pk", filter=(as_a & Q(winner="a")) | (as_b & Q(winner="b"))),
        losses=Count("pk", filter=(as_a & Q(winner="b")) | (as_b & Q(winner="a"))),
        draws=Count("pk", filter=Q(winner="")),
    )


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = PreferencesForm(request.POST or None, instance=preferences_of(user))
    if request.method == "POST" and form.is_valid():
        prefs = form.save()
        messages.success(request, _("Your preferences are saved."))
        response = redirect("profile")
        # The profile's language is the site's too, from now on, in this browser.
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, prefs.language, max_age=365 * 24 * 3600)
        return response
    games = (
        Game.objects.defer("state", "options")
        .filter(Q(player_a=user) | Q(player_b=user))
        .order_by("-created_at")[:100]
    )
    return render(
        request,
        "accounts/profile.html",
        {
            "record": _win_loss_record(user),
            "away": vacations.current(user),
            "preferences": form,
            "games": games,
            "tokens": ApiToken.objects.filter(user=user),  # type: ignore[misc]
            "sent": Notification.objects.filter(user=user).order_by("-created_at")[:30],  # type: ignore[misc]
            "new_key": request.session.pop("new_token_key", None),
        },
    )


@login_required
@require_POST
def vacation_start(request: HttpRequest) -> HttpResponse:
    try:
        days = int(request.POST.get("days", ""))
        vacations.vacation_start(user=request.user, days=days)
        messages.success(request, _("Enjoy your vacation: your clocks stop until you are back."))
    except ValueError:
        messages.error(request, _("Give the number of days."))
    except GameError as exc:
        messages.error(request, exc.detail)
    return redirect("profile")


@login_required
@require_POST
@throttled_post("tokens")
def token_create(request: HttpRequest) -> HttpResponse:
    name = (request.POST.get("name") or "").strip()[:100] or _("API token")
    _token, key = services.token_create(user=request.user, name=name)  # type: ignore[arg-type]
    # Shown once, on the next page, then forgotten: only its digest is stored.
    request.session["new_token_key"] = key
    return redirect("profile")


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if services.token_revoke(user=request.user, token_id=token_id):  # type: ignore[arg-type]
        messages.success(request, _("The token is revoked."))
    return redirect("profile")
