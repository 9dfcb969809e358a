"""Setting games up and checking what a fault may not have done: events lost or doubled, emails
lost or doubled."""

from __future__ import annotations

import random
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from django.utils import timezone

from games import challenges, event_log, services
from games.models import Game, GameEvent
from outbox.models import Notification
from outbox.services import CLAIM_TIMEOUT
from tests.support.celery_worker import celery_conf


def tasks_in_process() -> AbstractContextManager[None]:
    """Tasks run at once for the block, whatever the test's settings; after it, the app reads
    the settings again (celery_conf: a value put back by hand would stay pinned over them for
    the rest of the worker's run, as it did over a later test that turned eager mode off)."""
    return celery_conf(task_always_eager=True)


def started(alice: Any, bob: Any) -> Game:
    """A game between alice and bob, alice to move; its set-up emails already sent."""
    with tasks_in_process():
        game = challenges.game_create(creator=alice, opponent="bob", rules={"first_player": "a"})
        challenges.game_accept(game=game, user=bob)
    game.refresh_from_db()
    return game


def first_play(client: Any, game: Game) -> dict[str, Any]:
    view = client.get(f"/api/games/{game.pk}/").json()
    return {**view["legal_plays"][0], "expected_version": view["version"]}


def post_play(client: Any, game: Game, play: dict[str, Any], key: str | None = None) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"/api/games/{game.pk}/plays/", play, format="json", **headers)


def turn_rows(game: Game, user: Any) -> Any:
    return Notification.objects.filter(game=game, user=user, kind=Notification.Kind.YOUR_TURN)


def two_minutes_later(game: Game) -> None:
    """What the clock does to the outbox: unsent rows are overdue for the sweep, and a claim
    that was never finished has gone stale."""
    unsent = Notification.objects.filter(game=game, sent_at__isnull=True)
    unsent.update(created_at=timezone.now() - timedelta(minutes=5))
    stale = timezone.now() - CLAIM_TIMEOUT - timedelta(seconds=1)
    unsent.filter(claimed_at__isnull=False).update(claimed_at=stale)


def assert_log_whole(game: Game, plays: int) -> None:
    """No event lost or duplicated: sequence numbers 1..version, ``plays`` plays after the deal,
    and the stored log folds into the cached state."""
    game.refresh_from_db()
    rows = GameEvent.objects.filter(game=game).order_by("seq")
    assert list(rows.values_list("seq", flat=True)) == list(range(1, game.version + 1))
    assert rows.filter(kind="cards_played").count() == plays
    assert event_log.rebuild_state(game).to_snapshot() == event_log.load_state(game).to_snapshot()


def to_the_last_play(game: Game, users: dict[str, Any]) -> dict[str, Any]:
    """Play ``game`` on (random legal plays, seeded, through the services) until the seat to
    move has a play that ends it; returns that play as an API body, not yet sent."""
    from engine import IllegalMove, apply_events, decide, legal_plays

    rng = random.Random(1)
    for _ in range(500):
        game.refresh_from_db()
        state = event_log.load_state(game)
        assert not state.over
        assert state.to_move is not None
        for play in legal_plays(state):
            trial = state.copy()  # a snapshot's lists are the state's: never play on them
            try:  # a play that needs the server's random card is no use here
                apply_events(trial, decide(trial, play, None))
            except IllegalMove:
                continue
            if trial.over:
                return {"cards": list(play.cards), "choice": play.choice, "expected_version": game.version}
        chosen = rng.choice(legal_plays(state))
        services.game_play(
            game=game,
            user=users[state.to_move],
            cards=list(chosen.cards),
            choice=chosen.choice,
            expected_version=game.version,
        )
    raise AssertionError("no game-ending play within 500 plays")
