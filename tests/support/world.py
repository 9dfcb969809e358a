"""The cast and the games every security test acts on, built through the real services; and
what "nothing was written" means: every row of every table the site writes, unchanged."""

from __future__ import annotations

import functools
import random
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts import services as account_services
from engine import legal_plays
from games import challenges, event_log, play_links, services
from games.models import Game
from notifications.preferences import preferences_of, unsubscribe_token
from tests.support.tables import start

PASSWORD = "dragon-heart-42"
CAST = ("alice", "bob", "charlie")
# Django's own apps whose rows a request writes by design and that hold no player's data: a
# session is written on signing in, and read by every page after.
NOT_DATA = {"sessions"}
# The apps whose tables hold data: every installed app with models, but those above (the cache
# is no table). Built from the installed apps, so that a new app is watched from its first day.
DATA_APPS = {app.label for app in apps.get_app_configs() if any(app.get_models())} - NOT_DATA


@dataclass
class World:
    """alice (seat a, to move) plays bob; charlie watches. alice has also challenged bob (no
    answer yet), lost a game to bob by resigning, and posted a private open challenge."""

    users: dict[str, Any]
    keys: dict[str, str]  # each user's API token
    token_ids: dict[str, int]
    active: Game
    challenge: Game
    finished: Game
    invite: Game

    def legal_play(self) -> dict[str, Any]:
        """alice's first legal play in the active game, as an API body."""
        game = Game.objects.get(pk=self.active.pk)
        first = legal_plays(event_log.load_state(game))[0]
        return {"cards": list(first.cards), "choice": first.choice, "expected_version": game.version}

    def legal_form(self) -> dict[str, Any]:
        """The same play as the game page's form posts it ("" for no choice)."""
        play = self.legal_play()
        return {**play, "choice": play["choice"] or ""}

    def api(self, name: str | None) -> APIClient:
        """A client authenticated as programs are, by the user's own token; None: nobody."""
        client = APIClient()
        if name is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {self.keys[name]}")
        return client

    def browser(self, name: str | None, **options: Any) -> Client:
        client = Client(**options)
        if name is not None:
            client.force_login(self.users[name])
        return client

    def places(self) -> dict[str, Any]:
        """What a URL template may name."""
        return {
            "active": self.active.pk,
            "challenge": self.challenge.pk,
            "finished": self.finished.pk,
            "invite": self.invite.invite_token,
            "alice_token": self.token_ids["alice"],
            "alice_unsubscribe": unsubscribe_token(self.users["alice"]),
            "alice_confirm": account_services.confirmation_token(self.users["alice"]),
            "alice_play_link": play_links.link_token(
                user=self.users["alice"], game=self.active, version=self.active.version, index=0
            ),
        }


def build_world() -> World:
    users = {
        name: account_services.user_create(
            email_confirmed=True, username=name, password=PASSWORD, email=f"{name}@example.com"
        )
        for name in CAST
    }
    alice, bob = users["alice"], users["bob"]
    for user in users.values():
        preferences_of(user)  # made on the first visit of the profile, which is not a write to test
    tokens = {name: account_services.token_create(user=user, name="tests") for name, user in users.items()}
    finished = start(alice, bob, rules={"first_player": "a"})
    services.game_resign(game=finished, user=alice)
    return World(
        users=users,
        keys={name: key for name, (_, key) in tokens.items()},
        token_ids={name: token.pk for name, (token, _) in tokens.items()},
        active=start(alice, bob, rules={"first_player": "a"}),
        challenge=challenges.game_create(creator=alice, opponent="bob"),
        finished=Game.objects.get(pk=finished.pk),
        invite=challenges.game_create(creator=alice, opponent=None, private=True),
    )


def changed_tables(before: dict[str, list[str]]) -> set[str]:
    after = snapshot()
    return {table for table in after if after[table] != before.get(table)}


def snapshot() -> dict[str, list[str]]:
    """Every row of every data table, as text: equal snapshots mean nothing was written.

    One plain SELECT a table, written once a run: the ORM compiling a query for each of some
    twenty models, twice a test, was most of what the request tests around it cost. The rows
    are the database's own values; before and after are read alike, which is all a comparison
    needs (tests/security/test_get_never_writes.py checks that it sees the writes the ORM sees)."""
    with connection.cursor() as cursor:
        found = {}
        for label, sql in _data_selects():
            cursor.execute(sql)
            found[label] = [repr(row) for row in cursor.fetchall()]
        return found


@functools.cache
def _data_selects() -> list[tuple[str, str]]:
    quote = connection.ops.quote_name
    return [
        (
            model._meta.label,
            f"SELECT * FROM {quote(model._meta.db_table)} ORDER BY {quote(model._meta.pk.column)}",
        )
        for model in apps.get_models()
        if model._meta.app_label in DATA_APPS
    ]


def routes(patterns: list[Any] | None = None, namespace: str = "") -> dict[str, Any]:
    """Every URL pattern of the project: its name (with its namespace; the pattern itself when
    it has none) and its view."""
    found: dict[str, Any] = {}
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found |= routes(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            found[f"{namespace}{pattern.name or pattern.pattern}"] = pattern.callback
    return found


@contextmanager
def world_kept(name: str) -> Iterator[World]:
    """One world for tests that each leave it as they found it: built once, inside a transaction
    of its own, which each test's own transaction (pytest-django's) nests in as a savepoint and
    rolls back to; the whole is rolled back after the last test. Its deal is seeded by ``name``
    as every test's is (tests/conftest.py), and its passwords hashed as every test's are, since
    it is made before any test's fixtures run."""
    quick_hashing = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with pytest.MonkeyPatch.context() as patch, quick_hashing, transaction.atomic():
        patch.setattr(services, "_table_rng", random.Random(zlib.crc32(name.encode())))
        yield build_world()
        transaction.set_rollback(True)
