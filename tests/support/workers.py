"""Parallel test processes (pytest-xdist) share nothing they could trip each other over.

pytest-django already gives each worker a test database of its own (its name ends in the
worker's id). This plugin does the same for the machine's Redis, whose databases a test may
flush: worker N of a run whose REDIS_URL names database D (on the embedded default, whose
cache is in local memory, TEST_REDIS_URL's, else 2) uses databases D + 2N (the cache) and
D + 2N + 1 (the broker, which the real-worker tests of tests/support/celery_worker.py flush and
use too), so seven workers fit in Redis' sixteen databases from 2: scripts/test runs four in
pass 1 from database 2 and three in pass 2, side by side, from database 10. The environment is
rewritten as well as the settings: the tests' own subprocesses (workers, relays) inherit it."""

from __future__ import annotations

import os
import urllib.parse

import pytest

# The run's own Redis, as scripts/test gives it, read before this plugin moves it per worker;
# without one (the SQLite pass, whose cache is in local memory) the real-worker tests' broker
# counts from TEST_REDIS_URL's database (2 of the machine's Redis unless told).
RUN_REDIS_URL = os.environ.get("REDIS_URL")
BASE = RUN_REDIS_URL or os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379/2"


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
# pytest-django's fixtures that reach the database (live_server through transactional_db, a
# world built once a module through django_db_setup; django_db_blocker is in every test's
# closure, through pytest-django's own autouse fixtures).
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "django_db_setup",
}
ON_THEIR_OWN = ("postgresql", "processes", "faults")
# What these prove does not depend on the database that holds the rows: pages, pictures and
# responses drawn from a game's events (every step of a history, the hidden cards of every
# page), who may open what, forms and headers. They read through the ORM alone, with no lock,
# no concurrent transaction and no query counted, so pass 1 (SQLite) proves them for every
# database and pass 2 leaves them out (marked database_neutral).
DATABASE_NEUTRAL = (
    "tests/games/test_art.py",
    "tests/games/test_front_door.py",
    "tests/games/test_hidden_cards.py",
    "tests/games/test_hidden_cards_guide.py",
    "tests/games/test_history_turns.py",
    "tests/games/test_how_to_play_page.py",
    "tests/games/test_last_turn.py",
    "tests/games/test_lobby_pages.py",
    "tests/games/test_play_words.py",
    "tests/security/test_authorization_matrix.py",
    "tests/security/test_csrf.py",
    "tests/security/test_headers.py",
)


def _needs(item: pytest.Item, fixture_names: set[str]) -> bool:
    """Whether the test asks for one of these fixtures, directly or through another (a
    parametrized argument of the same name, such as test_csrf's ``page``, is no fixture)."""
    callspec = getattr(item, "callspec", None)
    arguments = set(callspec.params) if callspec is not None else set()
    return bool(fixture_names & (set(getattr(item, "fixturenames", ())) - arguments))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by what it needs, so that scripts/test can choose:

    * ``browser``: Chromium (``--quick`` leaves it out);
    * ``faults``: servers and processes of its own, started and broken on purpose (``--quick``
      leaves it out);
    * ``no_database``: neither the database nor a process of its own. Pass 2 (PostgreSQL and
      Redis) leaves these out, with the browser tests: it would run the same code over again;
    * ``database_neutral``: reaches the database, but proves nothing that depends on which one
      (DATABASE_NEUTRAL); pass 2 leaves these out too.

    and put the slow ones first."""
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if _needs(item, {"browser"}):
            item.add_marker("browser")
        if where.startswith(("tests/faults/", "tests/cluster/")):
            item.add_marker("faults")
        if where in DATABASE_NEUTRAL:
            item.add_marker("database_neutral")
        reaches = item.get_closest_marker("django_db") or _needs(item, DATABASE_FIXTURES)
        if not reaches and not any(item.get_closest_marker(name) for name in ON_THEIR_OWN):
            item.add_marker("no_database")
    items.sort(key=lambda item: not item.path.relative_to(root).as_posix().startswith(SLOW_FIRST))
