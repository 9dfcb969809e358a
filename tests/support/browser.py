"""Browser tests' tools: Playwright driving the Debian chromium package (no downloaded browser),
a page per player closed after each test, and the steps people take on the site. A plugin of
tests/conftest.py, so that every test directory with a browser test shares the same launch."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from playwright.sync_api import FloatRect, Locator, Page, expect

# Playwright's sync API runs an event loop in this thread; Django's live server is fine with it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }


@pytest.fixture
def shots():
    ARTIFACTS.mkdir(exist_ok=True)

    def shoot(page, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    return shoot


@pytest.fixture
def open_page(browser):
    """A page in a fresh browser context (its own cookies: one player), closed after the test
    so that no page keeps polling the live server into the next test."""
    contexts = []

    def open_(**context_options):
        context = browser.new_context(**context_options)
        contexts.append(context)
        return context.new_page()

    yield open_
    for context in contexts:
        context.close()


# A promise given a time limit, for scripts a test runs in the page (``page.evaluate`` itself
# waits without one): what never comes fails the test, after 20 s, instead of holding the run.
WITHIN = """((promise, what) => Promise.race([promise, new Promise((_, fail) =>
    setTimeout(() => fail(new Error("no " + what + " within 20 s")), 20000))]))"""


# Run in the page before ``goto`` leaves it: htmx asks before it sends a request or acts on an
# answer, and is told no, so the page's own poll can neither start another request nor reload
# the page (HX-Refresh) while the test's navigation is under way.
_STAND_STILL = """() => {
    for (const name of ["htmx:beforeRequest", "htmx:beforeOnLoad"]) {
        window.addEventListener(name, (event) => event.preventDefault(), true);
    }
    // The game's stream too: htmx closes an element's EventSource as the element goes.
    for (const element of document.querySelectorAll("[sse-connect]")) {
        htmx.remove(element);
    }
}"""


def goto(page, url: str):
    """``page.goto`` from a page whose poll may reload it at that very moment.

    A game or waiting page reloads itself once the game moves; when the server is slow, the page
    being left polls again and again while the new one loads, and each reload interrupts the
    test's navigation ("interrupted by another navigation", or "net::ERR_ABORTED" when the
    reload wins). So the page is first told to stand still. Telling it can itself fail when the
    page is between documents (its own reload under way); then the navigation is tried again,
    and a later one always wins over an earlier one."""
    from playwright.sync_api import Error

    for attempt in range(3):
        with contextlib.suppress(Error):  # between two documents: see the docstring
            page.evaluate(_STAND_STILL)
        try:
            return page.goto(url)
        except Error as exc:
            raced = "interrupted by another navigation" in str(exc) or "net::ERR_ABORTED" in str(exc)
            if not raced or attempt == 2:
                raise
    return None


PASSWORD = "dragon-heart-42"
DEAL = 7


def box(locator: Locator) -> FloatRect:
    """Where a visible element is drawn (Playwright gives None for one that is not)."""
    drawn = locator.bounding_box()
    assert drawn is not None, f"{locator} is not drawn"
    return drawn


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()


def take_turn(page: Page, seen: set[str], shots=None) -> None:
    """Put down one card (always legal); prefer a play that asks a choice, once of each kind."""
    cards = page.locator('input[name="cards"]')
    hero_lying = int(page.locator('.space[data-space="hero"]').get_attribute("data-lying") or 0)
    types = [cards.nth(i).get_attribute("data-type") for i in range(cards.count())]
    pick: int | None
    if "hero" in types and hero_lying == 1 and "hero" not in seen:
        pick = types.index("hero")
    elif types.count("hero") >= 2 and hero_lying == 0 and "hero" not in seen:
        pick = types.index("hero")  # lay one hero down, to complete the space with a choice later
    elif "princess" in types and "princess" not in seen:
        pick = types.index("princess")
    else:
        pick = next((i for i, t in enumerate(types) if t not in ("princess", "hero")), 0) if types else None
    if pick is not None:
        page.locator("label.hand-card").nth(pick).click()
        kind = types[pick]
        needs = "princess" if kind == "princess" else "hero" if kind == "hero" and hero_lying == 1 else None
        if needs:
            choice = page.locator(f'fieldset.choice[data-for="{needs}"]')
            expect(choice).to_be_visible()
            if shots is not None and needs not in seen:
                shots(page, f"choice-{needs}")
            choice.locator("input").first.check()
            seen.add(needs)
    # The play is a form's POST answered by a redirect to the game: wait until that page is
    # there, so that the next step reads the game the play made.
    with page.expect_navigation():
        page.locator("#play-button").click()
    expect(page.locator(".error")).to_have_count(0)
