"""A personal API token exists only in the answer that creates it: no column of any row of any
table holds it (the session that carries it to the profile page lets go of it once shown), and
no page of the admin shows it. Authenticating with it writes nothing about its user (no
password hash) into the cache."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from accounts.authentication import forget_locally
from accounts.models import ApiToken, token_digest
from tests.support.cache_settings import production_caches
from tests.support.redis_server import OwnRedis
from tests.support.world import PASSWORD


def database_text() -> str:
    """Every value of every row of every table, as text; sessions decoded too."""
    parts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            parts += [str(value) for row in cursor.fetchall() for value in row]
    parts += [str(SessionStore().decode(s.session_data)) for s in Session.objects.all()]
    return "\n".join(parts)


def test_a_token_made_through_the_api_is_stored_as_its_digest_only(world):
    response = world.api(None).post(
        "/api/tokens/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    key = response.json()["token"]

    text = database_text()

    assert key not in text
    assert token_digest(key) in text  # what is stored instead: the scan does read the table
    assert key[:8] in text  # and the prefix shown to tell tokens apart


def test_a_token_made_on_the_profile_page_is_shown_once_then_kept_nowhere(world):
    browser = world.browser("alice")
    browser.post("/accounts/tokens/", {"name": "my bot"})
    key = browser.session["new_token_key"]
    assert key in database_text()  # waiting in the session for the next page, to be shown

    shown = browser.get("/accounts/profile/").content.decode()

    assert key in shown
    assert key not in database_text()
    assert key not in browser.get("/accounts/profile/").content.decode()
    assert ApiToken.objects.filter(digest=token_digest(key)).exists()


def _admin_pages(obj_by_model: dict[Any, list[Any]]) -> list[str]:
    urls = [reverse("admin:index")]
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        urls.append(reverse("admin:{}_{}_changelist".format(*info)))
        urls += [
            # Quoted as the admin quotes its own links: a game id such as "OxMwT9qIe_22" would
            # otherwise be read back as 'OxMwT9qIe"' (the admin's "_22" is an escaped quote).
            reverse("admin:{}_{}_change".format(*info), args=[quote(o.pk)])
            for o in obj_by_model.get(model, [])
        ]
    return urls


def test_no_admin_page_shows_a_token(world):
    keys = list(world.keys.values())
    staff = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    browser = world.browser(None)
    browser.force_login(staff)
    objects = {model: list(model._default_manager.all()[:20]) for model in admin.site._registry}

    pages = {url: browser.get(url) for url in _admin_pages(objects)}

    assert {url: r.status_code for url, r in pages.items() if r.status_code != 200} == {}
    assert any(world.active.pk in response.content.decode() for response in pages.values())
    for url, response in pages.items():
        assert not [key for key in keys if key in response.content.decode()], url


@pytest.fixture
def redis_cache() -> Iterator[redis.Redis]:
    """Production's cache on a Redis of the test's own, whose every key can be read."""
    own = OwnRedis()
    own.start()
    client = redis.Redis.from_url(own.url(1))
    try:
        with override_settings(CACHES=production_caches(own.url(1))):
            yield client
    finally:
        client.close()
        own.stop()


def test_authenticating_by_token_writes_no_user_into_the_cache(world, redis_cache):
    alice = world.api("alice")
    assert alice.get("/api/games/").status_code == 200
    forget_locally()  # as another process would, or this one a second later
    played = alice.post(f"/api/games/{world.active.pk}/plays/", world.legal_play(), format="json")
    assert played.status_code == 201

    held = {key: redis_cache.get(key) for key in redis_cache.keys("*")}

    assert held  # the scan does read the cache: the play was counted by its throttle
    assert all(value is not None and value.isdigit() for value in held.values()), held  # counters only
    password_hash = User.objects.get(username="alice").password.encode()
    assert not [key for key, value in held.items() if password_hash in key + (value or b"")]
