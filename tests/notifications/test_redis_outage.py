"""Redis stops: plays go on, and their emails go out once it is back. A Redis of the test's
own (on a spare port), broker and cache at once as in production, is stopped and started; the
machine's Redis is never touched. Token authentication never needs it, and the throttle lets
the play through uncounted."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from dragonheart_site.celery import app
from games import challenges
from notifications import tasks
from outbox.models import Notification
from tests.support.api_plays import play_first_legal
from tests.support.cache_settings import production_caches
from tests.support.celery_worker import _forget_broker_connections, wait_for
from tests.support.redis_server import OwnRedis


@pytest.fixture
def cache_on_own_redis(own_redis: OwnRedis) -> Iterator[None]:
    with override_settings(CACHES=production_caches(own_redis.url(1))):
        yield


def test_with_redis_stopped_a_play_succeeds_and_its_email_goes_out_when_redis_is_back(
    transactional_db, own_redis, cache_on_own_redis, api, alice, bob
):
    own_redis.start()
    own_redis.stop()
    game = challenges.game_create(creator=alice, opponent="bob", rules={"first_player": "a"})
    challenges.game_accept(game=game, user=bob)  # the turn email of alice cannot be queued
    mail.outbox.clear()

    began = time.monotonic()
    assert play_first_legal(api["alice"], game.pk).status_code == 201
    assert time.monotonic() - began < 5  # the play did not hang on the broker
    assert mail.outbox == []
    waiting = Notification.objects.filter(kind="your_turn", sent_at__isnull=True, skipped="")
    assert waiting.count() == 2  # alice's first turn and now bob's

    own_redis.start()
    _forget_broker_connections()
    Notification.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        assert tasks.sweep_outbox() >= 2
        assert wait_for(lambda: not waiting.exclude(skipped="turn already played").exists())
    turn_mails = [m for m in mail.outbox if "Your turn" in m.subject]
    assert [m.to for m in turn_mails] == [[bob.email]]  # alice's turn is over: skipped, not sent
    assert Notification.objects.get(kind="your_turn", user=alice).skipped == "turn already played"
