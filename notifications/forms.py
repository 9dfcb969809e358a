"""The profile's preferences: what emails a player gets, in which language, in which time zone."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.forms.renderers import BaseRenderer
from django.forms.utils import flatatt
from django.utils.functional import Promise
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from notifications import channels, time_zones
from notifications.models import Channel, Preferences

# What each way of hearing from the site means, in words (shown under its choice).
MODE_HELP: dict[str, Promise] = {
    Preferences.Mode.EVERY_TURN: _(
        "When your opponent has played, unless you are at the table then: the email waits until you leave."
    ),
    Preferences.Mode.DIGEST: _(
        "One email a day, at the hour you choose below, listing the games waiting for you."
    ),
    Preferences.Mode.NONE: _("Nothing about your games: you look in on the site yourself."),
}


class TimeZoneSelect(forms.Select):
    """The zones grouped by region, each option a city's name, drawn without a template.

    Django draws every option through a template, which cost most of the page's time over
    hundreds of options; this draws the same select (tests/notifications/test_preferences_form.py
    holds it to Django's Select over the same choices) in a string join, so nothing needs to be
    cached. The group labels follow the language of the request."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: BaseRenderer | None = None
    ) -> SafeString:
        chosen = "" if value is None else str(value)
        every = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        groups = "".join(_group(label, zones, chosen) for label, zones in time_zones.grouped(chosen))
        return mark_safe(f"<select{flatatt(every)}>{groups}</select>")  # every part escaped


def _group(label: str, zones: list[tuple[str, str]], chosen: str) -> str:
    # f-strings and escape(), not format_html: a tenth of the time over 420 options.
    options = "".join(
        f'<option value="{escape(zone)}"{" selected" if zone == chosen else ""}>{escape(city)}</option>'
        for zone, city in zones
    )
    return f'<optgroup label="{escape(label)}">{options}</optgroup>' if label else options


def _known_zone(value: str) -> None:
    # Any zone Python knows, not only the listed ones: a browser may name an alias.
    if value not in time_zones.known():
        raise ValidationError(_("Choose a time zone from the list."), code="invalid_choice")


CHANNEL_FIELDS = [channels.field_of(kind) for kind in channels.KINDS]


class PreferencesForm(forms.ModelForm[Preferences]):
    email_mode = forms.ChoiceField(
        label=_("Emails about your games"), choices=Preferences.Mode.choices, widget=forms.RadioSelect
    )
    digest_hour = forms.TypedChoiceField(
        label=_("Hour of the daily digest"),
        choices=[(h, f"{h:02d}:00") for h in range(24)],
        coerce=int,
        help_text=_("In your time zone; used only if you chose the daily digest."),
    )
    language = forms.ChoiceField(
        label=_("Language"),
        choices=settings.LANGUAGES,
        help_text=_("Of the site and of the emails we send you."),
    )
    time_zone = forms.CharField(
        label=_("City"),
        widget=TimeZoneSelect,
        validators=[_known_zone],
        help_text=_("The times on the site and in your emails, and your digest's hour, are in this zone."),
    )

    class Meta:
        model = Preferences
        fields = ["email_mode", "digest_hour", "time_zone", "language", *CHANNEL_FIELDS]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind, label in channels.KINDS.items():
            # Not required: a form posted without them (an older page) keeps what was chosen.
            self.fields[channels.field_of(kind)] = forms.ChoiceField(
                label=label, choices=Channel.choices, required=False
            )
        for name, field in self.fields.items():
            if field.help_text:  # the template's _profile_field.html gives the help this id
                field.widget.attrs["aria-describedby"] = f"{name}-hint"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in CHANNEL_FIELDS:
            if not cleaned.get(name):
                cleaned[name] = getattr(self.instance, name)
        return cleaned

    def channel_fields(self) -> list[forms.BoundField]:
        """Each kind's channel, for the template's "How we tell you"."""
        return [self[name] for name in CHANNEL_FIELDS]

    def modes(self) -> list[tuple[Any, Promise]]:
        """Each email-mode radio with what it means, for the template to draw as a row."""
        return [(radio, MODE_HELP[radio.data["value"]]) for radio in self["email_mode"]]
