"""The API under schemathesis: its schema, served by the app itself, and a small world of
games seen by alice, who calls with a real personal token."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from rest_framework.throttling import ScopedRateThrottle
from schemathesis.config import SchemathesisConfig

from accounts import services as account_services
from engine import legal_plays
from games import challenges, event_log, services
from tests.support.tables import start

PASSWORD = "dragon-heart-42"


def push_subscription(name: str) -> dict[str, Any]:
    """A browser's PushSubscription JSON, its key a real P-256 point, at a public https endpoint
    (nothing is ever posted to it: these tests send no push)."""
    import base64
    import hashlib

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    def b64url(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    secret = int.from_bytes(hashlib.sha256(name.encode()).digest(), "big") % (2**255)
    point = ec.derive_private_key(secret, ec.SECP256R1()).public_key()
    raw = point.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {
        "endpoint": f"https://push.example.com/send/{name}",
        "keys": {"p256dh": b64url(raw), "auth": b64url(hashlib.md5(name.encode()).digest())},
    }


# Loaded once, at collection (pytest-django has set Django up by then; the schema view reads
# no database). schemathesis.pytest.from_fixture would load it per test, but on pytest 9 it
# fails (it sets Node._nodeid, which pytest 9 no longer has).
SCHEMA = schemathesis.openapi.from_wsgi(
    "/api/schema/?format=json",
    WSGIHandler(),
    # DRF refuses NUL characters in every string field, a rule the schema does not spell out.
    config=SchemathesisConfig.from_dict({"generation": {"allow-x00": False}}),
    # The live streams are no request and answer: an in-process call would wait for their end
    # (an account's never comes). tests/api/test_streams.py reads them over HTTP, as clients do.
).exclude(path_regex=r"/stream/$")


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Django's raw WSGI handler closes "old" connections when a request starts and ends, which
    inside a test's transaction closes that connection (on PostgreSQL; SQLite hides it).
    Django's own test client disconnects the same receiver."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def unthrottled(monkeypatch):
    """Rates no fuzzing run reaches (a 429 would hide everything behind it)."""
    for scope in ("signup", "tokens", "plays"):
        monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "1000000/minute")


@pytest.fixture
def world(db, unthrottled) -> dict[str, Any]:
    """alice, with a token, seated in a running game where she is to move; and a game of each
    other kind she may name: finished, a challenge to her, her open challenge, one she watches."""
    alice, bob, carol = (
        account_services.user_create(email_confirmed=True, username=name, password=PASSWORD)
        for name in ("alice", "bob", "carol")
    )
    token, key = account_services.token_create(user=alice, name="fuzzing")
    bob_token, _ = account_services.token_create(user=bob, name="not alice's")
    running = start(alice, bob, rules={"first_player": "a"})
    finished = start(alice, carol)
    services.game_resign(game=finished, user=alice)
    games = {
        "running": running.pk,
        "finished": finished.pk,
        "challenge": challenges.game_create(creator=bob, opponent="alice").pk,
        "open": challenges.game_create(creator=alice, opponent=None).pk,
        "watched": start(bob, carol).pk,
    }
    plays = [
        {"cards": list(play.cards), "choice": play.choice, "expected_version": running.version}
        for play in legal_plays(event_log.load_state(running))
    ]
    return {
        "headers": {"Authorization": f"Token {key}"},
        "games": games,
        "tokens": {"alice": token.pk, "bob": bob_token.pk},
        "legal_plays": plays,
    }


def call(
    world: dict[str, Any], label: str, *, anonymous: bool = False, keep: bool = False, **case: Any
) -> Any:
    """One request to the operation ``label`` ("POST /api/tokens/"), as alice unless
    ``anonymous``, checked by every schemathesis check; its writes are rolled back unless
    ``keep``."""
    operation = SCHEMA.find_operation_by_label(label)
    assert operation is not None, f"the schema has no operation {label}"
    with transaction.atomic():
        response = operation.Case(**case).call_and_validate(headers={} if anonymous else world["headers"])
        transaction.set_rollback(not keep)
    return response
