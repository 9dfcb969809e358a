"""The profile page, where a player sees their games, record, tokens and emails, sets their
preferences and starts a vacation; and the one-click unsubscribe. The profile lives on this,
the top app's floor, because it shows what every floor below holds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import ApiToken, EmailStatus
from accounts.users import signed_in
from core.errors import ServiceError
from games import selectors as games
from games import vacations
from notifications import preferences, selectors, time_zones
from notifications.forms import PreferencesForm
from notifications.models import Preferences, PushSubscription


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    form = PreferencesForm(request.POST or None, instance=_preferences(user))
    if request.method == "POST" and form.is_valid():
        prefs = form.save()
        messages.success(request, _("Your preferences are saved."))
        response = redirect("profile")
        # The profile's language is the site's too, from now on, in this browser.
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, prefs.language, max_age=365 * 24 * 3600)
        return response
    return render(request, "accounts/profile.html", _profile_context(request, user, form))


def _preferences(user: User) -> Preferences:
    # Not preferences_of: a GET must not write, and an unsaved row shows the defaults.
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name if name in time_zones.known() else time_zones.UTC)


def _profile_context(request: HttpRequest, user: User, form: PreferencesForm) -> dict[str, Any]:
    prefs = form.instance
    zone = _zone(prefs.time_zone)
    now = timezone.now()
    status = EmailStatus.objects.filter(user=user).first()
    may_email = status is not None and status.may_receive(user.email)
    bounced = status is not None and status.bounced_at is not None
    stop = selectors.stops(user, mode=prefs.email_mode, may_email=may_email, bounced=bounced)
    today = now.astimezone(zone).date()
    return {
        "record": games.win_loss_record(user),
        "away": vacations.current(user),
        "preferences": form,
        "games": games.games_of(user),
        "tokens": ApiToken.objects.filter(user=user),
        "log": selectors.email_log(user, now=now, zone=zone, stopped=stop),
        "new_key": request.session.pop("new_token_key", None),
        "email_status": status,
        "zone": zone,
        "zone_city": time_zones.city_name(prefs.time_zone),
        "now": now,
        "today": today,
        "yesterday": today - timedelta(days=1),
        "push_devices": PushSubscription.objects.filter(user=user).count(),
        "email_hold_minutes": max(1, round(settings.EMAIL_HOLD_SECONDS / 60)),
    }


@login_required
@require_POST
def vacation_start(request: HttpRequest) -> HttpResponse:
    """The profile's vacation form: the player's clocks stop for the days given."""
    try:
        days = int(request.POST.get("days", ""))
        vacations.vacation_start(user=signed_in(request), days=days)
        messages.success(request, _("Enjoy your vacation: your clocks stop until you are back."))
    except ValueError:
        messages.error(request, _("Give the number of days."))
    except ServiceError as exc:
        messages.error(request, exc.detail)
    return redirect("profile")


@csrf_exempt  # RFC 8058 one-click: mail clients POST without a session or a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link scanners must not unsubscribe anyone); POST does it."""
    if request.method == "GET":
        return render(request, "notifications/unsubscribe.html", {"token": token, "done": False})
    if not preferences.unsubscribe(token):
        return render(request, "notifications/unsubscribe.html", {"bad": True}, status=400)
    return render(request, "notifications/unsubscribe.html", {"done": True})
