"""Browser tests' tools: Playwright driving the Debian chromium package (no downloaded browser),
a page per player closed after each test, and the steps people take on the site. A plugin of
tests/conftest.py, so that every test directory with a browser test shares the same launch."""

from __future__ import annotations

import os
import re
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


def goto(page, url: str):
    """``page.goto``, tried again when the page's own poll reloaded it at that very moment
    (a game or waiting page refreshes itself once the game moves: "navigation interrupted by
    another navigation", or, when the page's reload wins, "net::ERR_ABORTED" for ours). Both
    navigations lead to the same page, so once more is enough."""
    from playwright.sync_api import Error

    for attempt in range(3):
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


def shown_ids(html: str, ids: set[str]) -> set[str]:
    """Card ids standing as words in a page (not inside a random token such as the CSRF one)."""
    return {card for card in ids if re.search(rf"(?<![\w-]){card}(?![\w-])", html)}


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
    page.locator("#play-button").click()
    expect(page.locator(".error")).to_have_count(0)
