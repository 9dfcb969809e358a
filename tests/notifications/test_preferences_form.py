"""The profile's preferences: the time zone chosen by region and city (notifications.time_zones),
drawn without a template (notifications.forms.TimeZoneSelect) as Django's own Select draws the
same choices; any zone Python knows is accepted, a saved one off the list is kept."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django import forms
from django.forms.renderers import get_default_renderer

from notifications import time_zones
from notifications.forms import PreferencesForm, TimeZoneSelect

VALID = {"email_mode": "every_turn", "digest_hour": "7", "language": "en"}


class Options(HTMLParser):
    """The select's attributes, and each option as (group, value, label, selected)."""

    def __init__(self, drawn: str) -> None:
        super().__init__()
        self.attrs: dict[str, str | None] = {}
        self.options: list[tuple[str, str, str, bool]] = []
        self._group = ""
        self._option: list[Any] = []
        self.feed(drawn)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "select":
            self.attrs = a
        elif tag == "optgroup":
            self._group = a["label"] or ""
        elif tag == "option":
            self._option = [self._group, a["value"], "", "selected" in a]

    def handle_data(self, data: str) -> None:
        if self._option:
            self._option[2] += data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "optgroup":
            self._group = ""
        elif tag == "option":
            self.options.append(tuple(self._option))
            self._option = []


ZONES = [None, "", "UTC", "Europe/Kyiv", "America/Argentina/Buenos_Aires", "US/Eastern", "Nowhere/At_All"]


@pytest.mark.parametrize("value", ZONES)
@pytest.mark.parametrize("attrs", [None, {"id": "id_time_zone", "required": True}, {"aria-invalid": "true"}])
def test_the_select_draws_what_djangos_select_draws_for_the_same_choices(value, attrs):
    renderer = get_default_renderer()
    ours = Options(TimeZoneSelect().render("time_zone", value, attrs, renderer))
    django = forms.Select(choices=time_zones.grouped(value)).render("time_zone", value, attrs, renderer)
    theirs = Options(django)
    assert ours.options == theirs.options
    assert ours.attrs == theirs.attrs
    assert sum(selected for *_, selected in ours.options) == (1 if value in time_zones.known() else 0)


def test_cities_are_named_as_people_name_them():
    assert time_zones.city_name("America/New_York") == "New York"
    assert time_zones.city_name("America/Argentina/Buenos_Aires") == "Buenos Aires (Argentina)"
    assert time_zones.city_name("UTC") == "UTC"


def test_the_list_has_the_places_not_the_aliases():
    listed = set(time_zones.listed())
    assert {"Europe/Berlin", "Asia/Kolkata", "America/New_York", "Europe/Oslo"} <= listed
    assert not {"Asia/Calcutta", "US/Eastern", "EST5EDT", "Etc/GMT+5"} & listed
    assert 350 < len(listed) < len(time_zones.known())


def test_cities_are_grouped_by_region_with_utc_first():
    groups = dict(time_zones.grouped())
    assert groups[""] == [("UTC", "UTC")]
    assert ("Europe/Berlin", "Berlin") in groups["Europe"]
    assert ("America/New_York", "New York") in groups["Americas"]
    assert [city for _, city in groups["Europe"]] == sorted(city for _, city in groups["Europe"])


def test_a_saved_zone_off_the_list_is_offered_as_it_is():
    drawn = str(PreferencesForm(initial={"time_zone": "US/Eastern"})["time_zone"])
    assert '<optgroup label="Other"><option value="US/Eastern" selected>US/Eastern</option>' in drawn


def test_the_form_takes_a_zone_a_browser_names_by_its_alias():
    form = PreferencesForm(data={**VALID, "time_zone": "Asia/Calcutta"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_zone"] == "Asia/Calcutta"


def test_the_form_refuses_an_unknown_zone_and_marks_it():
    form = PreferencesForm(data={**VALID, "time_zone": "Nowhere"})
    assert not form.is_valid()
    assert form.errors["time_zone"] == ["Choose a time zone from the list."]
    assert 'aria-invalid="true"' in str(form["time_zone"])


def test_each_email_mode_comes_with_what_it_means():
    modes = PreferencesForm().modes()
    assert [radio.data["value"] for radio, _ in modes] == ["every_turn", "digest", "none"]
    assert all(str(help_text) for _, help_text in modes)
