"""Each reader's email preferences (their language first set at sign-up), and the signed link
that turns every email off."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing

from notifications.models import Preferences

UNSUBSCRIBE_SALT = "notifications.unsubscribe"


def preferences_of(user: User) -> Preferences:
    prefs, _ = Preferences.objects.get_or_create(user=user)
    return prefs


def language_at_sign_up(sender: Any, *, user: User, language: str, **kwargs: Any) -> None:
    """accounts' ``signed_up``: a new player's emails, the confirmation first, speak the
    language of the page (or API request) they signed up in, until they choose another."""
    code = language.split("-")[0].lower()
    if code in dict(settings.LANGUAGES):
        Preferences.objects.get_or_create(user=user, defaults={"language": code})


def unsubscribe_token(user: User) -> str:
    return signing.dumps(user.pk, salt=UNSUBSCRIBE_SALT)


def unsubscribe(token: str) -> bool:
    """Turn every email off for the user the signed token names; False if it is not ours."""
    try:
        user_id = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return False
    updated = Preferences.objects.filter(user_id=user_id).update(email_mode=Preferences.Mode.NONE)
    if not updated:
        Preferences.objects.get_or_create(user_id=user_id, defaults={"email_mode": Preferences.Mode.NONE})
    return True
