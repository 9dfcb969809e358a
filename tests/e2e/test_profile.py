"""The profile in headless Chromium, on a phone and a desktop: every control a 44 px target
with its label above; the time zone found by a search or by region, or offered from the
device's own zone in one tap, and saved; the page working without JavaScript too; no CSP
violation on the way."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from notifications.models import Preferences
from tests.e2e.test_table import DESKTOP, PHONE, _signed_in, _user
from tests.support.browser import box

pytestmark = pytest.mark.django_db(transaction=True)
CONTROLS = ", ".join(f".profile {tag}:visible" for tag in ("input", "select", "button", "summary"))


def _profile(open_page: Any, live_server: Any, user: Any, **context: Any) -> tuple[Page, list[str]]:
    page = _signed_in(open_page, live_server, user, **context)
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(f"{live_server.url}/accounts/profile/")
    return page, problems


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_every_control_is_a_full_target_with_its_label_above(
    live_server: Any, open_page: Any, shots: Any, viewport: ViewportSize
) -> None:
    page, problems = _profile(open_page, live_server, _user("alice"), viewport=viewport)
    page.get_by_text("Change your address").click()
    controls = page.locator(CONTROLS)
    assert controls.count() > 10
    for index in range(controls.count()):
        control = controls.nth(index)
        # A radio button or a checkbox is tapped anywhere on its row: the label around it.
        if control.get_attribute("type") in ("radio", "checkbox"):
            control = control.locator("xpath=ancestor::label[1]")
        assert box(control)["height"] >= 44, control.evaluate("e => e.outerHTML.slice(0, 80)")
    city = page.get_by_label("City", exact=True)
    assert box(page.locator("label[for=id_time_zone]"))["y"] < box(city)["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert problems == []  # no CSP violation: the search is a static file
    shots(page, f"profile-{viewport['width']}")


def test_a_search_finds_a_city_in_any_region_and_save_keeps_it(live_server: Any, open_page: Any) -> None:
    alice = _user("alice")
    page, _ = _profile(open_page, live_server, alice, viewport=PHONE, timezone_id="UTC")
    page.get_by_label("Find your city").fill("tokyo")
    expect(page.get_by_label("City", exact=True)).to_have_value("Asia/Tokyo")
    expect(page.locator("#id_time_zone option")).to_have_count(1)
    page.get_by_label("Find your city").fill("xyzzy")
    expect(page.get_by_text("No city by that name")).to_be_visible()
    expect(page.get_by_label("City", exact=True)).to_have_value("Asia/Tokyo")  # never an empty list
    page.get_by_label("Region").select_option(label="Europe")
    expect(page.get_by_label("Find your city")).to_have_value("")
    page.get_by_label("City", exact=True).select_option("Europe/Vienna")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your preferences are saved.")).to_be_visible()
    assert Preferences.objects.get(user=alice).time_zone == "Europe/Vienna"
    expect(page.get_by_text("Yours: Vienna")).to_be_visible()


def test_the_devices_zone_is_offered_in_one_tap_when_it_differs(live_server: Any, open_page: Any) -> None:
    alice = _user("alice")
    page, _ = _profile(open_page, live_server, alice, viewport=PHONE, timezone_id="America/New_York")
    offer = page.get_by_role("button", name="Use this device's time zone: New York")
    offer.click()
    expect(page.get_by_label("City", exact=True)).to_have_value("America/New_York")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your preferences are saved.")).to_be_visible()
    assert Preferences.objects.get(user=alice).time_zone == "America/New_York"
    expect(page.get_by_role("button", name="Use this device's time zone: New York")).to_be_hidden()


def test_without_javascript_the_grouped_select_saves_a_zone(live_server: Any, open_page: Any) -> None:
    alice = _user("alice")
    page, _ = _profile(open_page, live_server, alice, viewport=PHONE, java_script_enabled=False)
    expect(page.get_by_label("Find your city")).to_be_hidden()
    page.get_by_label("City", exact=True).select_option("America/Argentina/Buenos_Aires")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Yours: Buenos Aires (Argentina)")).to_be_visible()
    assert Preferences.objects.get(user=alice).time_zone == "America/Argentina/Buenos_Aires"
