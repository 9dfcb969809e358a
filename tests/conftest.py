from __future__ import annotations

import base64
import os
import random
import time
import zlib
from typing import Any

import pytest
from django.db import connection
from hypothesis import settings as hypothesis_settings

# Property tests draw the same examples on every run, as every other test is seeded: a failure
# comes back on the next run, and no run passes or fails on chance. HYPOTHESIS_PROFILE=explore
# draws new examples, for looking for bugs by hand. No deadline: a test never fails on time
# (an example that took 0.4 s on a loaded machine failed one that way).
hypothesis_settings.register_profile("seeded", derandomize=True, database=None, deadline=None)
hypothesis_settings.register_profile("explore", deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases; behind PgBouncer (scripts/test's second pass names its
    console in PGBOUNCER_ADMIN_URL), the pooler's idle server connections to a test database
    are closed before pytest-django drops it, which PostgreSQL refuses while they are open."""
    yield
    admin_url = os.environ.get("PGBOUNCER_ADMIN_URL")
    if admin_url:
        import psycopg

        name = connection.settings_dict["NAME"]
        with django_db_blocker.unblock():
            connection.close()
        with psycopg.connect(admin_url, autocommit=True, prepare_threshold=None) as console:
            console.execute(f'KILL "{name}"')
            console.execute(f'RESUME "{name}"')


@pytest.fixture(autouse=True)
def _postgresql_when_marked(request: pytest.FixtureRequest) -> None:
    """Tests marked ``postgresql`` are about PostgreSQL itself (its trigger, a dropped
    connection). On another database they fail rather than pass unseen: the SQLite pass of
    scripts/test deselects them with ``-m "not postgresql"``, the PostgreSQL pass runs them."""
    if request.node.get_closest_marker("postgresql") and connection.vendor != "postgresql":
        pytest.fail(
            "this test needs PostgreSQL: run it with DATABASE_URL=postgres://… "
            "(scripts/test, second pass), or deselect it with -m 'not postgresql'",
            pytrace=False,
        )


def _in_engine_tests(request: pytest.FixtureRequest) -> bool:
    return bool(request.node.path.is_relative_to(os.path.join(os.path.dirname(__file__), "engine")))


@pytest.fixture(autouse=True)
def _seeded_table(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal, card put back and bot move of a test comes from a generator seeded by the
    test's own name, never the site's unpredictable one: about one deal in a hundred ends
    within 40 plays, and a test that played 40 failed on such a deal once a run in twenty.
    A test that needs particular hands stacks the deck over this (tests/support/tables.py)."""
    if _in_engine_tests(request):
        return  # the engine's tests take their generators as arguments and load no Django
    from games import services

    monkeypatch.setattr(services, "_table_rng", random.Random(zlib.crc32(request.node.nodeid.encode())))


@pytest.fixture(autouse=True)
def _default_language():
    """A request in another language leaves that language active in the thread (the locale
    middleware activates it and nothing deactivates it): the next test would read German."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_stream_left_open(request: pytest.FixtureRequest):
    """A test with a server of its own ends the streams it served (games/streams.py) and lets
    the streams' listener give its connection back: a server thread would otherwise wait on
    a closed client until its next heartbeat, holding a connection to a test database that is
    about to be flushed or dropped."""
    yield
    if "live_server" in request.fixturenames:
        from core.live import hub

        hub.end_streams()


@pytest.fixture(autouse=True)
def _streams_poll_quickly(settings):
    """On SQLite the streams' listener polls (core/live.py): a test's streams hear of a play
    within 20 ms instead of the site's quarter of a second, which a test waits for at every
    turn it plays."""
    settings.STREAM_POLL_SECONDS = 0.02


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    """Throttle counters and presence live in the cache, and tokens' users for a second in
    this process (accounts.authentication), as do the bots' stream marks it wrote
    (accounts.bots); no test should inherit another's."""
    from django.core.cache import cache

    from accounts import bots, presence
    from accounts.authentication import forget_locally

    cache.clear()
    forget_locally()
    presence.forget()
    bots.forget()
    yield
    cache.clear()
    forget_locally()
    presence.forget()
    bots.forget()


@pytest.fixture(autouse=True)
def _one_throttle_window(monkeypatch):
    """The API's throttles count in fixed one-minute windows: a test whose requests straddled
    a minute's end would see its count start again. Each test runs inside one window (a test
    may move this clock itself, as tests/core/test_throttling.py does)."""
    from core.throttling import WindowScopedRateThrottle

    pinned = time.time()
    monkeypatch.setattr(WindowScopedRateThrottle, "timer", staticmethod(lambda: pinned))


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2 costs half a second a password here; tests check who gets in, not the hash.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# A white pixel, a PNG as the email's board picture is one (see _board_picture_where_looked_at).
BLANK_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"
)


@pytest.fixture(autouse=True)
def _board_picture_where_looked_at(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every turn email carries the board drawn as a PNG (resvg: the most costly step of a
    test that plays a few turns), and only the tests marked ``board_picture`` look at it. The
    others get a white pixel in its place: the email keeps its parts, its cid and its size
    class, and what the picture shows is tested where it is looked at."""
    if request.node.get_closest_marker("board_picture") or _in_engine_tests(request):
        return
    from notifications import board_picture

    monkeypatch.setattr(board_picture, "board_png", lambda view, names: BLANK_PNG)


@pytest.fixture(autouse=True)
def _tasks_at_once(settings):
    """Unit tests run each task at once in their own thread (Celery's eager mode, countdowns
    ignored), where they can see its effect on the next line; a test about the worker turns
    it off and starts one (core.embedded_worker, tests/support/celery_worker.py). The site itself has
    it off (settings.py)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture(autouse=True)
def _quick_reviews(settings):
    # A finished game's review runs in-process when tasks are eager (on commit, so in every
    # test whose game ends outside a test transaction: the pages in Chromium, the workers).
    # Production's budget costs seconds a game; the review's own tests say when they want more.
    settings.REVIEW_ITERATIONS = 2


# workers first: the others import it, and a plugin imported before pytest registers it cannot
# have its asserts rewritten.
pytest_plugins = [
    "tests.support.workers",
    "tests.support.browser",
    "tests.support.celery_worker",
    "tests.support.redis_server",
]


# --- The cast: alice, bob and charlie, confirmed players with the same password, created
# through the accounts service as the sign-up does; `api` holds a token client for each and an
# anonymous one. Every test directory shares them.


@pytest.fixture
def make_user(db):
    from accounts import services as account_services

    def make(username: str) -> Any:
        return account_services.user_create(
            email_confirmed=True,
            username=username,
            password="dragon-heart-42",
            email=f"{username}@example.com",
        )

    return make


@pytest.fixture
def make_bot_account(make_user):
    """A bot account (accounts.bots): an account turned bot before it played."""
    from accounts import bots

    def make(username: str) -> Any:
        user = make_user(username)
        bots.make_bot(user)
        return user

    return make


@pytest.fixture
def robo(make_bot_account):
    return make_bot_account("robo")


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def charlie(make_user):
    return make_user("charlie")


@pytest.fixture
def api(alice, bob, charlie):
    from rest_framework.test import APIClient

    from tests.support.clients import client_for

    return {
        "alice": client_for(alice),
        "bob": client_for(bob),
        "charlie": client_for(charlie),
        "anon": APIClient(),
    }
