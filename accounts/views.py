"""Accounts: signing up, and the API tokens and the email address of the profile page (the
page itself is the notifications app's, the top floor that sees games, preferences and tokens
together)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services
from accounts.scopes import all_scopes, scopes_parse
from accounts.throttling import throttled_post
from accounts.users import signed_in
from core.errors import InvalidRequest


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    email = forms.EmailField(
        label=gettext_lazy("Email (optional)"),
        required=False,
        help_text=gettext_lazy("We tell you when it is your turn. Never shown to anyone."),
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Django's own help is a list of every validator's rule and the model's character set;
        # here the rules are said once, in words, and the validators still judge.
        self.fields["username"].help_text = gettext_lazy(
            "The name other players see. Letters, digits and . @ + - _"
        )
        self.fields["password1"].help_text = gettext_lazy(
            "At least 8 characters, not only digits, not a common password and not like your name."
        )
        self.fields["password2"].label = gettext_lazy("The password again")
        self.fields["password2"].help_text = ""
        self.fields["username"].widget.attrs.update(autofocus=True, autocapitalize="none")
        self.fields["email"].widget.attrs.update(autocomplete="email")


class EmailChangeForm(forms.Form):
    """A new address for the player, with their password: a borrowed session must not be
    enough to take the account's password resets to another inbox."""

    email = forms.EmailField(label=gettext_lazy("Email address"), max_length=254)
    password = forms.CharField(label=gettext_lazy("Your password"), strip=False, widget=forms.PasswordInput)

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(gettext_lazy("That is not your password."), code="password_incorrect")
        return password


def _next_url(request: HttpRequest, *, default: str | None = None) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home") if default is None else default


# The home page's two ways in, carried through the form: the lobby of a player without games
# welcomes them with a game against the computer one tap away; a friend's challenge is its
# new-game form with a friend chosen.
SIGNUP_NEXT_STEPS = {"computer": "", "friend": "?against=user#new-game"}


@require_http_methods(["GET", "POST"])
@throttled_post("signup", by_address=True)
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    then = request.POST.get("then") or request.GET.get("then") or ""
    then = then if then in SIGNUP_NEXT_STEPS else ""
    if request.method == "POST" and form.is_valid():
        user = form.save()
        services.signed_up(user=user, confirm=bool(user.email))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_after_signup(request, then))
    context = {"form": form, "next": _next_url(request, default=""), "then": then}
    return render(request, "registration/signup.html", context)


def _after_signup(request: HttpRequest, then: str) -> str:
    """Where the invitation link or page that sent the player here was, else the lobby."""
    return _next_url(request, default=reverse("home") + SIGNUP_NEXT_STEPS.get(then, ""))


@login_required
@require_POST
@throttled_post("tokens")
def token_create(request: HttpRequest) -> HttpResponse:
    name = (request.POST.get("name") or "").strip()[:100] or _("API token")
    scopes = _scopes_ticked(request)
    if scopes is None:
        messages.error(request, _("Tick at least one of the things the token may do."))
        return redirect("profile")
    _token, key = services.token_create(user=signed_in(request), name=name, scopes=scopes)
    # Shown once, on the next page, then forgotten: only its digest is stored.
    request.session["new_token_key"] = key
    return redirect("profile")


def _scopes_ticked(request: HttpRequest) -> list[str] | None:
    """The scopes ticked on the profile's form; None if it offered them and none (or one it
    does not offer) came. A post without the form's boxes gets all of them, as the API does."""
    if "scopes_offered" not in request.POST:
        return all_scopes()
    try:
        return scopes_parse(request.POST.getlist("scopes"))
    except InvalidRequest:
        return None


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
    messages.success(
        request,
        _("Your address %(address)s is confirmed: we email you when it is your turn.")
        % {"address": user.email},
    )
    return redirect("home")


@login_required
@require_POST
@throttled_post("tokens")
def email_confirmation_send(request: HttpRequest) -> HttpResponse:
    services.confirmation_request(user=signed_in(request))
    messages.success(request, _("A new link is on its way: open it from your inbox."))
    return redirect("profile")


@login_required
@require_POST
@throttled_post("tokens")
def email_change(request: HttpRequest) -> HttpResponse:
    """The profile's address form: a new address, confirmed by a link sent to it."""
    user = signed_in(request)
    form = EmailChangeForm(user, request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(str(error) for error in errors))
    elif services.email_change(user=user, email=form.cleaned_data["email"]):
        sent = _("A link is on its way to %(address)s: open it to get your emails there.")
        messages.success(request, sent % {"address": user.email})
    else:
        messages.info(request, _("That is the address you have already."))
    return redirect("profile")
