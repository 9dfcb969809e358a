from __future__ import annotations

import functools
from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.forms.renderers import BaseRenderer
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from notifications.models import Preferences

TIME_ZONES = [(zone, zone) for zone in sorted(available_timezones())]


class TimeZoneSelect(forms.Select):
    """Django's Select over the six hundred time zones, each answer drawn once and kept.

    Django draws every option through a template: that was most of the profile page's time.
    The answer depends only on the field's name, the chosen zone, the attributes and the
    renderer (the zones are not translated), so the same inputs get the same HTML from the
    cache; tests/notifications/test_preferences_form.py holds it to Django's own Select."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, choices=TIME_ZONES)

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: BaseRenderer | None = None
    ) -> SafeString:
        every = {**self.attrs, **(attrs or {})}
        chosen = None if value is None else str(value)
        # In their order: it is the order Django writes them in.
        return _time_zone_select(name, chosen, tuple(every.items()), renderer)


@functools.lru_cache(maxsize=256)
def _time_zone_select(
    name: str, value: str | None, attrs: tuple[tuple[str, Any], ...], renderer: BaseRenderer | None
) -> SafeString:
    return forms.Select(choices=TIME_ZONES).render(name, value, dict(attrs), renderer)


class PreferencesForm(forms.ModelForm[Preferences]):
    time_zone = forms.ChoiceField(label=_("Time zone"), choices=TIME_ZONES, widget=TimeZoneSelect)
    language = forms.ChoiceField(label=_("Language of the emails"), choices=settings.LANGUAGES)
    digest_hour = forms.TypedChoiceField(
        label=_("Hour of the daily digest"), choices=[(h, f"{h:02d}:00") for h in range(24)], coerce=int
    )

    class Meta:
        model = Preferences
        fields = ["email_mode", "digest_hour", "time_zone", "language"]
        labels = {"email_mode": _("Emails")}
