"""Redis, broker and cache at once as in production, restarts (empty: queued messages are lost)
while a worker process runs. Plays made before, during and after answer with 201 or a clear
error, never a 500; no event is lost or doubled; every turn email goes out exactly once, the
lost ones by the outbox sweep."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from django.test import override_settings

from notifications import tasks
from outbox.models import Notification
from tests.faults.helpers import (
    assert_log_whole,
    first_play,
    post_play,
    started,
    turn_rows,
    two_minutes_later,
)
from tests.support.cache_settings import production_caches
from tests.support.celery_worker import wait_for
from tests.support.redis_server import OwnRedis


@pytest.fixture
def cache_on_own_redis(own_redis: OwnRedis) -> Iterator[None]:
    with override_settings(CACHES=production_caches(own_redis.url(1))):
        yield


def test_plays_around_a_redis_restart_answer_and_each_turn_email_goes_out_once(
    workers, own_redis, cache_on_own_redis, sink, api, alice, bob
):
    own_redis.start()
    workers.start()
    games = {when: started(alice, bob) for when in ("before", "during", "after")}
    plays = {when: first_play(api["alice"], game) for when, game in games.items()}  # as last seen

    answers = {"before": post_play(api["alice"], games["before"], plays["before"])}
    assert wait_for(lambda: len(sink.to(bob.email)) == 1, 60)
    own_redis.stop()
    answers["during"] = post_play(api["alice"], games["during"], plays["during"])
    own_redis.start()
    answers["after"] = post_play(api["alice"], games["after"], plays["after"])

    # With the cache down, authentication goes on (it never reads the cache: tokens are looked
    # up in the database) and the throttle, which cannot count, lets the play through: a Redis
    # outage does not stop the games.
    assert [answers[when].status_code for when in ("before", "during", "after")] == [201, 201, 201]
    for game in games.values():
        two_minutes_later(game)  # the sweep finds what the restart lost, if anything
    tasks.sweep_outbox()
    assert wait_for(lambda: not Notification.objects.filter(sent_at__isnull=True, skipped="").exists(), 60)
    for when, game in games.items():
        played = answers[when].status_code == 201
        assert_log_whole(game, plays=int(played))
        emails = [
            m for m in sink.to(bob.email) if f"/games/{game.pk}/" in m.get_body(("plain",)).get_content()
        ]
        assert len(emails) == turn_rows(game, bob).count() == int(played), when


def test_a_turn_email_queued_when_redis_restarts_is_lost_there_and_sent_once_by_the_sweep(
    workers, own_redis, cache_on_own_redis, sink, api, alice, bob
):
    game = started(alice, bob)
    own_redis.start()
    queue = redis.Redis.from_url(own_redis.url())
    assert post_play(api["alice"], game, first_play(api["alice"], game)).status_code == 201
    assert queue.llen("celery") == 1  # no worker yet: the task waits in Redis
    own_redis.stop()
    own_redis.start()
    assert queue.llen("celery") == 0  # and is gone

    workers.start()
    two_minutes_later(game)
    assert tasks.sweep_outbox() == 1
    assert wait_for(lambda: turn_rows(game, bob).filter(sent_at__isnull=False).exists(), 60)
    assert [m["To"] for m in sink.accepted] == [bob.email]
