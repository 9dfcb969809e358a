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
