"""No work waits behind a review: the computer's reviews go to a Celery queue of their own,
"reviews", taken by workers of their own, so a bot's move and an email queued after two long
reviews are done by the default queue's worker while both reviews still run. Each review is
held as long as the test wants (tests.faults.slow_review), then reviews its game as usual."""

from __future__ import annotations

from dragonheart_site.celery import app
from games import challenges, services
from games.models import Game, GameReview
from outbox.models import Notification
from tests.faults.held_task import DONE, RELEASE, STARTED, lines
from tests.faults.helpers import tasks_in_process
from tests.support.celery_worker import wait_for
from tests.support.tables import start


def test_a_bot_move_and_an_email_are_done_while_two_reviews_run(
    workers, own_redis, sink, settings, alice, bob, charlie, tmp_path
):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a game's end queues its review (no page poll)
    own_redis.start()
    reviews = ("-Q", "reviews", "--pool=threads", "--concurrency=2", "-I", "tests.faults.slow_review")
    workers.start(*reviews, REVIEW_HOLD=str(tmp_path))
    workers.start("-Q", "celery", "--pool=solo")
    with tasks_in_process():  # their set-up emails, not the subject here
        finished = [start(alice, bob), start(charlie, bob)]
    for game in finished:
        services.game_resign(game=game, user=bob)  # its review is queued as the end commits
    assert wait_for(lambda: lines(tmp_path, STARTED) == 2, 60)

    bot_game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})
    challenge = challenges.game_create(creator=bob, opponent="charlie")
    email = Notification.objects.filter(game=challenge, kind="challenge", sent_at__isnull=False)
    assert wait_for(lambda: Game.objects.get(pk=bot_game.pk).to_move == "a", 60)
    assert wait_for(email.exists, 60)
    assert charlie.email in [message["To"] for message in sink.accepted]
    assert (lines(tmp_path, STARTED), lines(tmp_path, DONE)) == (2, 0)  # both reviews still run

    (tmp_path / RELEASE).touch()
    assert wait_for(lambda: lines(tmp_path, DONE) == 2, 60)
    assert GameReview.objects.filter(game__in=finished).count() == 2


def test_only_reviews_go_to_the_reviews_queue_the_sweeps_ones_too():
    def queue(task: str) -> str:
        return str(app.amqp.router.route({}, task)["queue"].name)

    assert queue("games.tasks.review_game") == "reviews"  # queued by the game's end and the sweep
    others = [
        "games.tasks.play_bot_turn",
        "games.tasks.sweep_reviews",
        "notifications.tasks.send_notification",
    ]
    assert {queue(task) for task in others} == {"celery"}
