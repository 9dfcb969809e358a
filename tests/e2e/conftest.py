"""Browser tests: Playwright driving the Debian chromium package (no downloaded browser)."""

from __future__ import annotations

import os
from pathlib import Path

# Playwright's sync API runs an event loop in this thread; Django's live server is fine with it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # type: ignore[no-untyped-def]
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }


@pytest.fixture
def shots():  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(exist_ok=True)

    def shoot(page, name: str) -> None:  # type: ignore[no-untyped-def]
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    return shoot


@pytest.fixture
def open_page(browser):  # type: ignore[no-untyped-def]
    """A page in a fresh browser context (its own cookies: one player), closed after the test
    so that no page keeps polling the live server into the next test."""
    contexts = []

    def open_(**context_options):  # type: ignore[no-untyped-def]
        context = browser.new_context(**context_options)
        contexts.append(context)
        return context.new_page()

    yield open_
    for context in contexts:
        context.close()


def goto(page, url: str):  # type: ignore[no-untyped-def]
    """``page.goto``, tried again when the page's own poll reloaded it at that very moment
    (a game or waiting page refreshes itself once the game moves: "navigation interrupted by
    another navigation"). Both navigations lead to the same page, so once more is enough."""
    from playwright.sync_api import Error

    for attempt in range(3):
        try:
            return page.goto(url)
        except Error as exc:
            if "interrupted by another navigation" not in str(exc) or attempt == 2:
                raise
    return None
