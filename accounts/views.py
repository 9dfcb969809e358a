"""Accounts: signing up, and the API tokens of the profile page (the page itself is the
notifications app's, the top floor that sees games, preferences and tokens together)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services
from accounts.throttling import throttled_post
from accounts.users import signed_in


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


@require_http_methods(["GET", "POST"])
@throttled_post("signup", by_address=True)
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        services.confirmation_request(user=user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


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


@require_http_methods(["GET", "POST"])
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks (link scanners open links; they must not confirm anyone), POST confirms."""
    if request.method == "GET":
        return render(request, "registration/email_confirm.html", {"token": token})
    user = services.email_confirm(token=token)
    if user is None:
        return render(request, "registration/email_confirm.html", {"bad": True}, status=400)
    return render(request, "registration/email_confirm.html", {"confirmed": user.email})


@login_required
@require_POST
@throttled_post("tokens")
def email_confirmation_send(request: HttpRequest) -> HttpResponse:
    services.confirmation_request(user=signed_in(request))
    messages.success(request, _("A new link is on its way: open it from your inbox."))
    return redirect("profile")
