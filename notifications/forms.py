from __future__ import annotations

from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from notifications.models import Preferences


class PreferencesForm(forms.ModelForm[Preferences]):
    time_zone = forms.ChoiceField(
        label=_("Time zone"), choices=[(z, z) for z in sorted(available_timezones())]
    )
    language = forms.ChoiceField(label=_("Language of the emails"), choices=settings.LANGUAGES)
    digest_hour = forms.TypedChoiceField(
        label=_("Hour of the daily digest"), choices=[(h, f"{h:02d}:00") for h in range(24)], coerce=int
    )

    class Meta:
        model = Preferences
        fields = ["email_mode", "digest_hour", "time_zone", "language"]
        labels = {"email_mode": _("Emails")}
