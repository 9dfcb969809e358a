"""The SMTP server stops answering in the middle of a send. The worker gives up after
EMAIL_TIMEOUT, well before its claim on the outbox row could go stale and be taken over (which
would send the email twice), releases the row and retries: the email goes out once."""

from __future__ import annotations

from django.conf import settings

from outbox.services import CLAIM_TIMEOUT
from tests.faults.helpers import started, turn_rows
from tests.support.api_plays import play_first_legal
from tests.support.celery_worker import wait_for


def test_a_send_never_outlives_its_claim():
    assert CLAIM_TIMEOUT.total_seconds() > settings.EMAIL_TIMEOUT * 3


def test_a_worker_waiting_on_a_stalled_smtp_server_gives_up_and_its_retry_sends_once(
    workers, own_redis, sink, api, alice, bob
):
    own_redis.start()
    sink.hold_first("data")  # answers nothing to the first message, for ever
    workers.start(EMAIL_TIMEOUT="1")
    game = started(alice, bob)

    assert play_first_legal(api["alice"], game.pk).status_code == 201

    assert wait_for(lambda: turn_rows(game, bob).filter(sent_at__isnull=False).exists(), 60)
    assert sink.dropped == 1
    assert [m["To"] for m in sink.accepted] == [bob.email]
    row = turn_rows(game, bob).get()
    assert row.attempts == 2
    assert row.last_error  # the timeout, kept on the row
