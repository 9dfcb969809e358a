"""Under the Content-Security-Policy, in headless Chromium: two players sign up, challenge,
play a turn (the waiting player's page follows by htmx polling), step through the history,
switch language and resign, and the API docs render; not one CSP violation or script error."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from games import services
from games.models import Game
from tests.support.browser import DEAL, goto, sign_up, take_turn

pytestmark = pytest.mark.django_db(transaction=True)

# Chromium reports a violation on the console itself; the listener makes sure of it (a
# Playwright init script is not subject to the page's policy).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`));
"""


class Console:
    """Every error a page of the context logs, and every uncaught script error."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.contexts: list[BrowserContext] = []

    def watch(self, context: BrowserContext) -> Page:
        self.contexts.append(context)
        context.add_init_script(REPORT_VIOLATIONS)
        page = context.new_page()
        page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda exc: self.errors.append(f"script error: {exc}"))
        return page

    def violations(self) -> list[str]:
        return [e for e in self.errors if "Content Security Policy" in e or "CSP violation" in e]


@pytest.fixture
def console() -> Iterator[Console]:
    watched = Console()
    yield watched
    # Closed pages stop polling: no request may reach the (session-long) live server after
    # the test, when its database is being emptied or dropped.
    for context in watched.contexts:
        context.close()


def test_a_turn_is_played_without_any_csp_violation(live_server, browser, console, monkeypatch):
    monkeypatch.setattr(services, "_table_rng", random.Random(DEAL))
    base = live_server.url
    alice, bob = console.watch(browser.new_context()), console.watch(browser.new_context())
    sign_up(alice, base, "alice")
    sign_up(bob, base, "bob")
    alice.get_by_label("Username").fill("bob")
    alice.get_by_role("button", name="Create the game").click()
    game_url = alice.url
    bob.goto(base + "/")
    bob.get_by_role("button", name="Accept").first.click()
    expect(bob).to_have_url(game_url)
    game = Game.objects.get(pk=re.search(r"/games/([^/]+)/", game_url).group(1))  # type: ignore[union-attr]
    mover, waiter = (alice, bob) if game.to_move == "a" else (bob, alice)
    goto(mover, game_url)
    goto(waiter, game_url)
    seen_version = waiter.locator(".game").get_attribute("data-version")

    take_turn(mover, set())

    # htmx polls, sees the new version and reloads the waiting player's page.
    expect(waiter.locator(".game")).not_to_have_attribute("data-version", seen_version or "", timeout=15_000)
    _step_through_history(mover, game_url)
    _switch_language(waiter)
    _resign(waiter)
    assert console.violations() == []
    assert console.errors == []


def _step_through_history(page: Page, game_url: str) -> None:
    page.goto(game_url + "history/?turn=0")
    page.keyboard.press("ArrowRight")  # static/js/history.js
    expect(page).to_have_url(re.compile(r"turn=1$"))
    page.locator("#step-slider").fill("0")  # the slider submits itself (static/js/site.js)
    expect(page).to_have_url(re.compile(r"turn=0$"))


def _switch_language(page: Page) -> None:
    page.get_by_label("Language").select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.get_by_label("Sprache").select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")


def _resign(page: Page) -> None:
    page.locator("details.resign > summary").click()  # the question, asked on the page
    page.locator(".resign-confirm a.keep").click()  # closed again by static/js/site.js
    page.locator("details.resign > summary").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.locator(".result")).to_be_visible()


def test_the_api_docs_render_without_any_csp_violation(live_server, browser, console):
    page = console.watch(browser.new_context())

    page.goto(live_server.url + "/api/docs/")

    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Dragonheart by mail API")
    expect(page.locator(".opblock").first).to_be_visible()
    assert console.violations() == []


def test_an_inline_script_would_be_reported(live_server, browser, console):
    """The watch above can fail: a script put inline into a page is refused and reported."""
    page = console.watch(browser.new_context())
    page.goto(live_server.url + "/accounts/login/")

    with page.expect_console_message(lambda message: "CSP violation" in message.text):
        page.evaluate("document.body.append(Object.assign(document.createElement('script'), {text: 'x=1'}))")

    assert any("script-src" in violation for violation in console.violations())
