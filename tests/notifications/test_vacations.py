"""Vacations stop a player's clocks, are recorded in each game's log, and are limited."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.errors import Conflict, InvalidRequest
from games import challenges, services, vacations
from games.models import Game, Vacation

NOW = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


def _bobs_turn(alice, bob, capture) -> Game:
    with capture(execute=True):
        game = challenges.game_create(
            creator=alice, opponent="bob", rules={"first_player": "b"}, days_per_turn=1
        )
        challenges.game_accept(game=game, user=bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=NOW, deadline=NOW + timedelta(days=1))
    return Game.objects.get(pk=game.pk)


def test_a_vacation_is_recorded_in_every_running_game(alice, bob, django_capture_on_commit_callbacks):
    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacations.vacation_start(user=bob, days=5, now=NOW)
    event = game.events.order_by("-seq").first()
    assert event is not None
    assert (event.kind, event.payload["seat"]) == ("vacation_started", "b")


def test_no_timeout_while_away_and_the_stopped_time_is_given_back(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacations.vacation_start(user=bob, days=5, now=NOW + timedelta(hours=6))
    assert services.time_out_overdue_games(now=NOW + timedelta(days=3)) == 0
    assert Game.objects.get(pk=game.pk).status == "active"

    vacations.end_vacations(NOW + timedelta(days=5, hours=6))
    back = Game.objects.get(pk=game.pk)
    # Six hours were used before leaving; eighteen remain after coming back.
    assert back.deadline == NOW + timedelta(days=5, hours=6) + timedelta(hours=18)
    assert back.events.order_by("-seq").values_list("kind", flat=True)[0] == "vacation_ended"
    assert services.time_out_overdue_games(now=NOW + timedelta(days=5, hours=23)) == 0
    assert services.time_out_overdue_games(now=NOW + timedelta(days=6, hours=1)) == 1


def test_at_most_twenty_one_vacation_days_a_year(alice):
    vacations.vacation_start(user=alice, days=14, now=NOW)
    vacations.end_vacations(NOW + timedelta(days=15))
    with pytest.raises(InvalidRequest) as refused:
        vacations.vacation_start(user=alice, days=8, now=NOW + timedelta(days=20))
    assert refused.value.code == "vacation_limit"
    vacations.vacation_start(user=alice, days=7, now=NOW + timedelta(days=20))


def test_the_opponent_sees_the_vacation_on_the_game_page(
    client, alice, bob, django_capture_on_commit_callbacks
):
    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacations.vacation_start(user=bob, days=3)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "bob is on vacation until" in page
    history = client.get(f"/games/{game.pk}/history/").content.decode()
    assert "bob is away until" in history


def _always_moving(monkeypatch):
    """Every append finds that a play got in first."""
    from games import event_log
    from games.errors import StaleVersion

    def moved(game, events, *, expected_version, **kwargs):
        raise StaleVersion(expected_version)

    monkeypatch.setattr(event_log, "append", moved)


def test_a_vacation_that_cannot_be_recorded_in_a_game_is_refused_and_changes_nothing(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    _always_moving(monkeypatch)
    with pytest.raises(Conflict) as refused:
        vacations.vacation_start(user=bob, days=5, now=NOW)
    assert refused.value.code == "busy"
    assert not Vacation.objects.filter(user=bob).exists()
    assert not game.events.filter(kind="vacation_started").exists()


def test_a_vacation_whose_end_cannot_be_recorded_stays_open_for_the_next_run(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacation = vacations.vacation_start(user=bob, days=5, now=NOW)
    _always_moving(monkeypatch)
    with pytest.raises(Conflict):
        vacations.end_vacations(NOW + timedelta(days=6))
    assert Vacation.objects.get(pk=vacation.pk).closed is False


# --- ending once: several beats, or a sweep overlapping the next --------------------------------

BACK = NOW + timedelta(days=5, hours=6)


def _ends_and_deadline(game: Game) -> tuple[int, object]:
    game.refresh_from_db()
    return game.events.filter(kind="vacation_ended").count(), game.deadline


def test_a_sweep_overlapping_the_next_ends_a_vacation_once(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacations.vacation_start(user=bob, days=5, now=NOW + timedelta(hours=6))
    close = vacations._close

    def overlapped(vacation: Vacation) -> bool:
        # The next tick's sweep runs after this one listed the vacation, before it closes it.
        monkeypatch.setattr(vacations, "_close", close)
        vacations.end_vacations(BACK)
        return close(vacation)

    monkeypatch.setattr(vacations, "_close", overlapped)
    vacations.end_vacations(BACK)

    # One end, and the eighteen hours left given back once.
    assert _ends_and_deadline(game) == (1, BACK + timedelta(hours=18))


@pytest.mark.postgresql
def test_two_beats_closing_the_same_vacation_at_once_end_it_once(
    transactional_db, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    import threading

    from django.db import connection

    game = _bobs_turn(alice, bob, django_capture_on_commit_callbacks)
    vacations.vacation_start(user=bob, days=5, now=NOW + timedelta(hours=6))
    close = vacations._close
    both_listed = threading.Barrier(2)
    closed: list[int] = []

    def after_both_listed(vacation: Vacation) -> bool:
        both_listed.wait(timeout=30)  # each beat has read the vacation as open
        return close(vacation)

    def beat() -> None:
        try:
            closed.append(vacations.end_vacations(BACK))
        finally:
            connection.close()

    monkeypatch.setattr(vacations, "_close", after_both_listed)
    beats = [threading.Thread(target=beat) for _ in range(2)]
    for thread in beats:
        thread.start()
    for thread in beats:
        thread.join(timeout=60)

    assert sorted(closed) == [0, 1]
    assert _ends_and_deadline(game) == (1, BACK + timedelta(hours=18))
