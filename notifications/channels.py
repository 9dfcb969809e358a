"""How each kind of notice reaches a player: by push, by email, both, or a push first and the
email only if the turn is still open after EMAIL_HOLD_SECONDS (the default). The API names the
kinds ``turn``, ``challenge``, ``game_over`` and ``reminder``; a challenge accepted goes as a
challenge does. Delivery reads them (notifications.services)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from notifications.models import Channel, Preferences

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

KINDS: dict[str, _StrPromise] = {
    "turn": _("Your turn"),
    "challenge": _("A challenge"),
    "game_over": _("A game over"),
    "reminder": _("A reminder before your time runs out"),
}
CHANNELS = tuple(Channel.values)


def field_of(kind: str) -> str:
    return f"{kind}_channel"


def channels_of(user: User) -> dict[str, str]:
    """The reader's channel for each kind, read without writing (a GET may not write)."""
    prefs = Preferences.objects.filter(user=user).first() or Preferences(user=user)
    return {kind: getattr(prefs, field_of(kind)) for kind in KINDS}


def channel_of(user_id: int, kind: str) -> str:
    """The channel of one kind (an API name) for the reader, the default if they chose none."""
    chosen = Preferences.objects.filter(user_id=user_id).values_list(field_of(kind), flat=True).first()
    return chosen or Channel.PUSH_THEN_EMAIL


def set_channels(user: User, choices: dict[str, str]) -> dict[str, str]:
    """Keep the reader's choices (kinds and channels already checked); all their channels."""
    prefs, _created = Preferences.objects.get_or_create(user=user)
    for kind, channel in choices.items():
        setattr(prefs, field_of(kind), channel)
    prefs.save(update_fields=[field_of(kind) for kind in choices])
    return {kind: getattr(prefs, field_of(kind)) for kind in KINDS}
