"""Parallel test processes (pytest-xdist) share nothing they could trip each other over.

pytest-django already gives each worker a test database of its own (its name ends in the
worker's id). This plugin does the same for the machine's Redis, whose databases a test may
flush: worker N of a run whose REDIS_URL names database D (2 on the embedded default, whose
cache is in local memory) uses databases D + 2N (the cache) and D + 2N + 1 (the broker, which
the real-worker tests of tests/support/celery_worker.py flush and use too), so seven workers
fit in Redis' sixteen databases from 2 (scripts/test runs at most seven). The environment is
rewritten as well as the settings: the tests' own subprocesses (workers, relays) inherit it."""

from __future__ import annotations

import os
import urllib.parse

import pytest

# The run's own Redis, as scripts/test gives it, read before this plugin moves it per worker;
# without one (the SQLite pass, whose cache is in local memory) the real-worker tests' broker
# counts from database 2 of the machine's Redis.
RUN_REDIS_URL = os.environ.get("REDIS_URL")
BASE = RUN_REDIS_URL or "redis://127.0.0.1:6379/2"


def worker_number() -> int:
    """0 for the first xdist worker (or a run without xdist), 1 for the next, and so on."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))


def with_database(url: str, number: int) -> str:
    if number > 15:
        raise pytest.UsageError(f"Redis has no database {number}: run fewer xdist workers")
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path=f"/{number}"))


def database_of(url: str) -> int:
    return int(urllib.parse.urlsplit(url).path.lstrip("/") or 0)


def cache_url() -> str:
    return with_database(BASE, database_of(BASE) + 2 * worker_number())


def broker_url() -> str:
    return with_database(BASE, database_of(BASE) + 2 * worker_number() + 1)


def real_worker_broker_url() -> str:
    """The broker of the tests that start a real Celery worker in their own process."""
    return broker_url()


def pytest_configure(config: pytest.Config) -> None:
    if RUN_REDIS_URL is None or worker_number() == 0:
        return
    from django.conf import settings

    os.environ.update(REDIS_URL=cache_url(), REDIS_BROKER_URL=broker_url())
    settings.CACHES["default"]["LOCATION"] = cache_url()
    settings.CELERY_BROKER_URL = broker_url()


# The tests that take longest go first, so that parallel workers finish together instead of
# one starting a whole game in the browser as the others run out of work. scripts/test
# schedules with --dist worksteal: xdist's default hands each worker a run of consecutive
# tests at the start, which put every slow one in the first worker's run.
SLOW_FIRST = (
    "tests/e2e/",
    "tests/faults/",
    "tests/cluster/",
    "tests/security/test_csp_in_the_browser.py",
    "tests/core/test_one_command_site.py",
)
BROWSER_FIXTURES = {"page", "browser", "context", "open_page"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by what it needs (``browser``: Chromium; ``faults``: servers and
    processes of its own, started and broken on purpose), so that ``scripts/test --quick``
    leaves both out, and put the slow ones first."""
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("browser")
        if where.startswith(("tests/faults/", "tests/cluster/")):
            item.add_marker("faults")
    items.sort(key=lambda item: not item.path.relative_to(root).as_posix().startswith(SLOW_FIRST))
