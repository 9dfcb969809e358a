"""A push through a real Celery worker on the real Redis: written by the email row's delivery,
sent once by the worker, decrypted by the browser; a redelivery pushes nothing more."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from accounts import services as account_services
from games import challenges
from notifications import channels, push
from outbox import services as outbox
from outbox.models import Notification
from tests.notifications.push_service import Browser
from tests.notifications.test_relay import relay_on, running_relay  # noqa: F401 (fixtures)
from tests.support.celery_worker import wait_for


def _bob_pushed_for(push_service: Any, kind: str) -> tuple[Any, Any, Browser]:
    """alice and bob, real-worker players with addresses; bob's browser subscribed, and ``kind``
    sent to him by push only."""
    alice, bob = (
        account_services.user_create(
            email_confirmed=True, username=name, password="dragon-heart-42", email=f"{name}@example.com"
        )
        for name in ("alice", "bob")
    )
    browser = Browser(push_service.endpoint("bob"))
    push.subscribe(bob, push.parse_subscription(browser.subscription()))
    channels.set_channels(bob, {kind: "push"})
    return alice, bob, browser


def test_the_first_turn_is_pushed_once_through_the_worker(
    transactional_db, celery_on_redis, push_service, vapid
):
    alice, bob, browser = _bob_pushed_for(push_service, "turn")

    game = challenges.game_create(creator=alice, opponent="bob", rules={"first_player": "b"})
    challenges.game_accept(game=game, user=bob)

    pushed = Notification.objects.filter(game=game, user=bob, kind="your_turn", channel="push")
    assert wait_for(lambda: pushed.filter(sent_at__isnull=False).exists())
    payloads = [browser.read(p, vapid["VAPID_PUBLIC_KEY"]) for p in push_service.to(browser)]
    # The challenge first (bob chose nothing for it: push, then email), then the turn.
    assert [p["kind"] for p in payloads] == ["challenge", "turn"]
    assert payloads[1]["url"] == f"/games/{game.pk}/"
    emailed = Notification.objects.filter(game=game, user=bob, kind="your_turn", channel="email")
    assert wait_for(lambda: emailed.filter(skipped="sent by push").exists())
    assert [m for m in mail.outbox if m.to == ["bob@example.com"] and "turn" in m.subject.lower()] == []

    # Both rows delivered again (a redelivery): nothing more goes. The worker takes tasks one
    # by one, in order: once a marker queued after them is sent, they have run.
    for row in (pushed.get(), emailed.get()):
        outbox.queue_delivery(row.pk)
    marker = Notification.objects.create(user=alice, game=game, kind="accepted", key="marker")
    outbox.queue_delivery(marker.pk)
    assert wait_for(lambda: Notification.objects.filter(pk=marker.pk, sent_at__isnull=False).exists())
    assert len(push_service.to(browser)) == 2


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True, databases=["default", "direct"])
@pytest.mark.usefixtures("running_relay")
def test_with_the_relay_the_push_row_written_by_the_worker_is_relayed_and_sent_once(
    transactional_db, celery_on_redis, push_service, vapid
):
    alice, bob, browser = _bob_pushed_for(push_service, "challenge")

    challenges.game_create(creator=alice, opponent="bob")

    pushed = Notification.objects.filter(user=bob, kind="challenge", channel="push")
    assert wait_for(lambda: pushed.filter(sent_at__isnull=False).exists())
    emailed = Notification.objects.filter(user=bob, kind="challenge", channel="email")
    assert wait_for(lambda: emailed.filter(skipped="sent by push").exists())
    assert [browser.read(p, vapid["VAPID_PUBLIC_KEY"])["kind"] for p in push_service.to(browser)] == [
        "challenge"
    ]
    assert [m for m in mail.outbox if m.to == ["bob@example.com"]] == []
