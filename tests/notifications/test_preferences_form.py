"""The profile's time-zone select, kept once drawn (notifications.forms.TimeZoneSelect), draws
what Django's own Select draws for the same inputs, the chosen zone and an error included."""

from __future__ import annotations

import pytest
from django import forms
from django.forms.renderers import get_default_renderer

from notifications.forms import TIME_ZONES, PreferencesForm, TimeZoneSelect


@pytest.mark.parametrize(
    "value", [None, "", "UTC", "Europe/Kyiv", "America/Argentina/Buenos_Aires", "Nowhere/At_All"]
)
@pytest.mark.parametrize("attrs", [None, {"id": "id_time_zone", "required": True}, {"aria-invalid": "true"}])
def test_the_kept_select_draws_what_djangos_select_draws(value, attrs):
    renderer = get_default_renderer()
    kept = TimeZoneSelect().render("time_zone", value, attrs, renderer)
    again = TimeZoneSelect().render("time_zone", value, attrs, renderer)
    django = forms.Select(choices=TIME_ZONES).render("time_zone", value, attrs, renderer)
    assert kept == again == django
    assert kept.count("<option") == len(TIME_ZONES)
    assert kept.count(" selected") == (1 if value in dict(TIME_ZONES) else 0)


def test_the_form_marks_the_players_zone_and_an_unknown_one_as_an_error():
    form = PreferencesForm(
        data={"email_mode": "each", "digest_hour": "7", "time_zone": "Nowhere", "language": "en"}
    )
    assert not form.is_valid()
    assert "time_zone" in form.errors
    drawn = str(form["time_zone"])
    assert 'aria-invalid="true"' in drawn
    assert drawn == forms.Select(choices=TIME_ZONES).render(
        "time_zone",
        "Nowhere",
        {**form["time_zone"].build_widget_attrs({}), "id": "id_time_zone"},
        form.renderer,
    )
    chosen = str(PreferencesForm(initial={"time_zone": "Asia/Tokyo"})["time_zone"])
    assert '<option value="Asia/Tokyo" selected>' in chosen
