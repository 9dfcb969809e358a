"""The turn email through a real Celery worker on the real Redis."""

from __future__ import annotations

from django.core import mail

from accounts import services as account_services
from games import services
from notifications.models import Notification
from tests.celery_worker import wait_for


def test_a_challenge_accepted_sends_the_first_player_one_email_through_the_worker(
    transactional_db, celery_on_redis
):
    alice = account_services.user_create(
        username="alice", password="dragon-heart-42", email="alice@example.com"
    )
    bob = account_services.user_create(username="bob", password="dragon-heart-42", email="bob@example.com")
    game = services.game_create(creator=alice, opponent="bob", rules={"first_player": "b"})
    services.game_accept(game=game, user=bob)

    assert wait_for(lambda: Notification.objects.filter(game=game, sent_at__isnull=False).exists())
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]
