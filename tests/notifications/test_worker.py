"""The turn email through a real Celery worker on the real Redis."""

from __future__ import annotations

from django.core import mail

from accounts import services as account_services
from engine.cards import CARD_TYPE
from games import challenges, services
from outbox import services as outbox
from outbox.models import Notification
from tests.support.celery_worker import wait_for
from tests.support.tables import snapshot


def test_a_challenge_accepted_sends_the_first_player_one_email_through_the_worker(
    transactional_db, celery_on_redis
):
    alice = account_services.user_create(
        email_confirmed=True, username="alice", password="dragon-heart-42", email="alice@example.com"
    )
    bob = account_services.user_create(
        email_confirmed=True, username="bob", password="dragon-heart-42", email="bob@example.com"
    )
    game = challenges.game_create(creator=alice, opponent="bob", rules={"first_player": "b"})
    challenges.game_accept(game=game, user=bob)

    turn = Notification.objects.filter(game=game, kind="your_turn", sent_at__isnull=False)
    assert wait_for(lambda: turn.exists())
    assert [m.to for m in mail.outbox if "Your turn" in m.subject] == [["bob@example.com"]]

    game.refresh_from_db()
    card = snapshot(game)["hands"]["b"][0]
    choice = "chests" if CARD_TYPE[card] == "princess" else None
    services.game_play(game=game, user=bob, cards=[card], choice=choice, expected_version=game.version)
    assert wait_for(lambda: turn.count() == 2)
    turn_mails = [m for m in mail.outbox if "Your turn" in m.subject]
    assert [m.to for m in turn_mails] == [["bob@example.com"], ["alice@example.com"]]
    assert turn_mails[1].subject == "Your turn against bob — voyages 0/3"
    assert f"/games/{game.pk}/" in turn_mails[1].body

    # The same task delivered again (a redelivery) sends nothing more. The worker takes tasks
    # one by one, in order: once a marker queued after it is sent, the redelivery has run.
    last = turn.order_by("pk").last()
    assert last is not None
    outbox.queue_delivery(last.pk)
    marker = Notification.objects.create(user=alice, game=game, kind="accepted", key="marker")
    outbox.queue_delivery(marker.pk)
    assert wait_for(lambda: Notification.objects.filter(pk=marker.pk, sent_at__isnull=False).exists())
    assert len([m for m in mail.outbox if "Your turn" in m.subject]) == 2
