"""The site as an installable app, as Chromium sees it: installable with no error, its service
worker in control of the pages, and the offline page, in the page's language, when the network
is gone."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.support.browser import WITHIN

pytestmark = pytest.mark.django_db(transaction=True)

# Waits until the page's service worker is active and controls the page: the first visit's
# page is taken over by clients.claim(), within a few seconds. Run by Playwright's evaluate,
# which the Content-Security-Policy allows, unlike wait_for_function's string.
_CONTROLLED = (
    """async () => {
    const registration = await WITHIN(navigator.serviceWorker.ready, "an active service worker");
    if (!navigator.serviceWorker.controller) {
        await WITHIN(new Promise((done) =>
            navigator.serviceWorker.addEventListener("controllerchange", done, { once: true })),
            "the service worker in control").catch(() => null);
    }
    return { scope: registration.scope, controlled: navigator.serviceWorker.controller !== null };
}""".replace("WITHIN", WITHIN)
    .replace("20000", "5000")
    .replace("20 s", "5 s")
)


@pytest.fixture
def installing_browser(playwright, browser_type_launch_args, tmp_path):
    """A browser with a profile of its own: Chromium reports nothing installable in the
    incognito-like contexts that ``open_page`` makes ("in-incognito")."""
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), **browser_type_launch_args, locale="en-US"
    )
    yield context
    context.close()


def _controlled(page: Page, base: str) -> None:
    worker = page.evaluate(_CONTROLLED)
    if not worker["controlled"]:
        # A page that began to load while the worker was activating can be left to the
        # network; the next one is the worker's, as the player's next page is.
        page.reload()
        worker = page.evaluate(_CONTROLLED)
    assert worker == {"scope": f"{base}/", "controlled": True}


def test_chromium_finds_the_site_installable(live_server, installing_browser: BrowserContext):
    page = installing_browser.new_page()
    page.goto(f"{live_server.url}/how-to-play/")
    _controlled(page, live_server.url)

    devtools = installing_browser.new_cdp_session(page)
    assert devtools.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    manifest = devtools.send("Page.getAppManifest")
    assert manifest["errors"] == []
    assert manifest["url"].startswith(f"{live_server.url}/manifest.webmanifest")
    parsed = json.loads(manifest["data"])
    assert parsed["name"] == "Dragonheart by mail"
    assert {icon["purpose"] for icon in parsed["icons"]} >= {"any", "maskable"}


def test_offline_a_page_shows_the_offline_page_in_the_browsers_language(live_server, open_page, shots):
    page = open_page(locale="de-DE", viewport={"width": 390, "height": 844})
    page.goto(f"{live_server.url}/how-to-play/")
    _controlled(page, live_server.url)

    page.context.set_offline(True)
    page.goto(f"{live_server.url}/players/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page).to_have_title(f"{_offline_heading(page)} · Drachenherz per Post")
    expect(page.get_by_role("link", name="Erneut versuchen")).to_be_visible()
    shots(page, "offline-german-phone")


def test_offline_the_page_speaks_the_language_the_player_chose(live_server, open_page):
    page = open_page(locale="en-US")
    page.goto(f"{live_server.url}/how-to-play/")
    _controlled(page, live_server.url)
    page.get_by_label("Language").select_option("fr")  # the switcher: a cookie, not the browser
    expect(page.locator("html")).to_have_attribute("lang", "fr")

    page.context.set_offline(True)
    page.goto(f"{live_server.url}/players/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("h1")).to_have_text(_offline_heading(page))
    page.context.set_offline(False)
    page.get_by_role("link", name="Réessayer").click()  # "Try again": the page asked for
    expect(page).to_have_url(f"{live_server.url}/players/")
    expect(page.locator("h1")).not_to_have_text(_offline_heading(page))


def test_a_signed_in_players_offline_page_names_nobody(live_server, open_page):
    from tests.support.browser import sign_up

    page = open_page(locale="en-US")
    sign_up(page, live_server.url, "alice")
    _controlled(page, live_server.url)

    page.context.set_offline(True)
    page.goto(f"{live_server.url}/players/")
    expect(page.locator("h1")).to_have_text("You are offline")
    assert "alice" not in page.content()


def _offline_heading(page: Page) -> str:
    """The offline page's heading in the page's language, as the server says it (the catalogue
    may not have translated it yet)."""
    from django.utils import translation
    from django.utils.translation import gettext

    language = page.locator("html").get_attribute("lang") or "en"
    with translation.override(language):
        return gettext("You are offline")
