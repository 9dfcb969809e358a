"""Push notifications, end to end against a push service of the tests' own: each turn told once,
by push or by email as its reader chose, never while they sit at the table, never with a card
they may not see; a subscription the push service no longer knows (404, 410) is forgotten.
Time is moved by rewriting stored timestamps, never slept."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone, translation

from accounts import presence
from games import challenges, services
from games.models import Game
from notifications import channels, tasks
from notifications import services as delivery
from notifications.models import Preferences, PushSubscription
from notifications.push import make_vapid_keys
from outbox.models import Notification
from tests.notifications.push_service import Browser, PushService
from tests.support.api_plays import hidden_ids, ordinary_play, shown_ids

pytestmark = pytest.mark.django_db


def _started(alice, bob, capture) -> Game:
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _players(game: Game, alice, bob):
    game.refresh_from_db()
    return (alice, bob) if game.to_move == "a" else (bob, alice)


def _subscribed(api, user, service: PushService, name: str | None = None) -> Browser:
    browser = Browser(service.endpoint(name or user.username))
    response = api[user.username].post("/api/push/subscriptions/", browser.subscription(), format="json")
    assert response.status_code == 201, response.content
    return browser


def _play(game: Game, user, capture) -> None:
    game.refresh_from_db()
    with capture(execute=True):
        services.game_play(game=game, user=user, **ordinary_play(game.pk))


def _pushes(service: PushService, browser: Browser, vapid: dict[str, str]) -> list[dict[str, Any]]:
    return [browser.read(push, vapid["VAPID_PUBLIC_KEY"]) for push in service.to(browser)]


def _turn_emails_to(user) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email] and "turn" in m.subject.lower()]


def _choose(user, kind: str, channel: str) -> None:
    channels.set_channels(user, {kind: channel})


def _hold_over(user) -> None:
    """The reader's hold has passed: every held row of theirs is due, and a push sent is as old
    as the hold; then the sweep queues what is due (as beat does)."""
    earlier = timezone.now() - timedelta(hours=1)
    rows = Notification.objects.filter(user=user)
    rows.filter(sent_at__isnull=False).update(sent_at=earlier)
    rows.filter(held_until__isnull=False).update(held_until=earlier, created_at=earlier)
    tasks.sweep_outbox()


def _first_play(api, alice, bob, service, capture) -> tuple[Game, Any, Any, Browser]:
    """A started game, the waiting player subscribed, and the first play made."""
    game = _started(alice, bob, capture)
    mover, waiting = _players(game, alice, bob)
    browser = _subscribed(api, waiting, service)
    mail.outbox.clear()
    _play(game, mover, capture)
    return game, mover, waiting, browser


def test_a_play_pushes_once_to_the_waiting_player_naming_the_opponent_and_no_hidden_card(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game, mover, waiting, browser = _first_play(
        api, alice, bob, push_service, django_capture_on_commit_callbacks
    )
    (payload,) = _pushes(push_service, browser, vapid)
    assert set(payload) == {"kind", "game_id", "title", "body", "url"}
    assert payload["kind"] == "turn"
    assert payload["game_id"] == game.pk
    assert payload["url"] == f"/games/{game.pk}/"
    assert mover.username in payload["title"]
    assert mover.username in payload["body"]  # what they played, in words
    seat = Game.objects.get(pk=game.pk).seat_of(waiting)
    assert shown_ids(json.dumps(payload), hidden_ids(game.pk, seat)) == set()
    # push_then_email, the default: the email waits for the hold.
    assert _turn_emails_to(waiting) == []
    assert push_service.to(browser)[0].headers["urgency"] == "high"


def test_push_then_email_sends_the_email_after_the_hold_if_the_turn_is_still_open(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    _, _, waiting, browser = _first_play(api, alice, bob, push_service, django_capture_on_commit_callbacks)
    _hold_over(waiting)
    assert len(_turn_emails_to(waiting)) == 1
    _hold_over(waiting)
    assert len(_turn_emails_to(waiting)) == 1
    assert len(push_service.to(browser)) == 1


def test_push_then_email_sends_no_email_once_the_turn_is_played(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game, _, waiting, browser = _first_play(api, alice, bob, push_service, django_capture_on_commit_callbacks)
    _play(game, waiting, django_capture_on_commit_callbacks)
    _hold_over(waiting)
    assert _turn_emails_to(waiting) == []
    assert len(push_service.to(browser)) == 1


def test_push_only_never_emails(api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    _choose(waiting, "turn", "push")
    browser = _subscribed(api, waiting, push_service)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    _hold_over(waiting)
    _hold_over(waiting)
    assert len(_pushes(push_service, browser, vapid)) == 1
    assert _turn_emails_to(waiting) == []
    email_row = Notification.objects.filter(user=waiting, kind="your_turn", channel="email").latest("pk")
    assert email_row.skipped == "sent by push"


def test_both_sends_a_push_and_an_email_at_once(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    _choose(waiting, "turn", "both")
    browser = _subscribed(api, waiting, push_service)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    assert len(push_service.to(browser)) == 1
    assert len(_turn_emails_to(waiting)) == 1
    _hold_over(waiting)
    assert len(push_service.to(browser)) == 1
    assert len(_turn_emails_to(waiting)) == 1


def test_email_only_sends_no_push(api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    _choose(waiting, "turn", "email")
    browser = _subscribed(api, waiting, push_service)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    _hold_over(waiting)
    assert push_service.to(browser) == []
    assert len(_turn_emails_to(waiting)) == 1


@pytest.mark.parametrize("channel", ["push", "push_then_email", "both", "email"])
def test_a_player_without_a_subscription_gets_the_email_at_once_whatever_the_channel(
    api, alice, bob, push_service, vapid, channel, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    _choose(waiting, "turn", channel)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    assert len(_turn_emails_to(waiting)) == 1
    assert push_service.received == []


def test_without_vapid_keys_push_is_off_and_the_email_goes(
    api, alice, bob, push_service, settings, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    _subscribed(api, waiting, push_service)
    settings.VAPID_PRIVATE_KEY = ""
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    assert len(_turn_emails_to(waiting)) == 1
    assert push_service.received == []


def _watching(client, user, game: Game) -> None:
    client.force_login(user)
    game.refresh_from_db()
    assert client.get(f"/games/{game.pk}/poll/?version={game.version}").status_code in (200, 204)


def test_nothing_is_pushed_while_the_player_is_at_the_table_and_once_when_they_leave(
    client, api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    browser = _subscribed(api, waiting, push_service)
    _watching(client, waiting, game)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    tasks.sweep_outbox()
    assert push_service.received == []
    assert _turn_emails_to(waiting) == []
    # They leave: their last request was an hour ago.
    cache_gone = timezone.now() - timedelta(hours=1)
    presence.forget()
    presence.mark_present(waiting.pk, cache_gone)
    _hold_over(waiting)
    assert len(_pushes(push_service, browser, vapid)) == 1
    assert _turn_emails_to(waiting) == []  # the email waits its hold after the push
    _hold_over(waiting)
    _hold_over(waiting)
    assert len(push_service.to(browser)) == 1
    assert len(_turn_emails_to(waiting)) == 1


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_no_longer_knows_is_forgotten_and_the_email_goes(
    api, alice, bob, push_service, vapid, status, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    browser = _subscribed(api, waiting, push_service)
    push_service.answers["/push/" + waiting.username] = status
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    assert len(push_service.to(browser)) == 1
    assert not PushSubscription.objects.filter(endpoint=browser.endpoint).exists()
    _hold_over(waiting)
    assert len(_turn_emails_to(waiting)) == 1
    push_row = Notification.objects.get(user=waiting, channel="push")
    assert push_row.skipped == "no push subscription"


def test_a_push_service_failure_is_retried_and_the_push_sent_once(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    browser = _subscribed(api, waiting, push_service)
    push_service.answers["/push/" + waiting.username] = 503
    _play(game, mover, django_capture_on_commit_callbacks)
    push_row = Notification.objects.get(user=waiting, channel="push")
    assert push_row.sent_at is None
    assert push_row.skipped == ""
    assert push_row.claimed_at is None
    push_service.answers.clear()
    assert delivery.deliver(push_row.pk) is True
    assert delivery.deliver(push_row.pk) is False
    assert PushSubscription.objects.filter(endpoint=browser.endpoint).exists()
    # Eager retries tried it several times; the service took it once.
    assert [r.path for r in push_service.received].count("/push/" + waiting.username) >= 2
    assert Notification.objects.get(pk=push_row.pk).sent_at is not None


def test_every_turn_is_told_exactly_once_by_push_or_by_email_as_each_player_chose(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    _choose(alice, "turn", "push")
    _choose(bob, "turn", "email")
    browsers = {alice.pk: _subscribed(api, alice, push_service), bob.pk: _subscribed(api, bob, push_service)}
    mail.outbox.clear()
    turns: dict[int, list[int]] = {alice.pk: [], bob.pk: []}
    for _ in range(8):
        mover, waiting = _players(game, alice, bob)
        _play(game, mover, django_capture_on_commit_callbacks)
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = game.seat_of(waiting)
        turns[waiting.pk].append(game.version)
        hidden = hidden_ids(game.pk, seat)
        for browser in browsers.values():
            for push in service_pushes(push_service, browser, vapid):
                assert shown_ids(json.dumps(push), hidden) == set()
        _hold_over(alice)
        _hold_over(bob)
    assert len(push_service.to(browsers[alice.pk])) == len(turns[alice.pk]) > 0
    assert len(_turn_emails_to(alice)) == 0
    assert push_service.to(browsers[bob.pk]) == []
    assert len(_turn_emails_to(bob)) == len(turns[bob.pk]) > 0


def service_pushes(service: PushService, browser: Browser, vapid: dict[str, str]) -> list[dict[str, Any]]:
    return _pushes(service, browser, vapid)


def test_the_push_is_in_the_readers_language(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    Preferences.objects.update_or_create(user=waiting, defaults={"language": "de"})
    browser = _subscribed(api, waiting, push_service)
    _play(game, mover, django_capture_on_commit_callbacks)
    (payload,) = _pushes(push_service, browser, vapid)
    with translation.override("de"):
        expected = translation.gettext("Your turn against %(opponent)s — voyages %(n)s/3")
    assert expected.split("%")[0].strip() in payload["title"]
    assert "Your turn" not in payload["title"]


def test_a_challenge_and_a_game_over_are_pushed(
    api, alice, bob, push_service, vapid, django_capture_on_commit_callbacks
):
    browser = _subscribed(api, bob, push_service)
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
    (challenge,) = _pushes(push_service, browser, vapid)
    assert challenge["kind"] == "challenge"
    assert alice.username in challenge["title"]
    with django_capture_on_commit_callbacks(execute=True):
        challenges.game_accept(game=game, user=bob)
    game.refresh_from_db()
    push_service.received.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=game, user=alice)
    over = [p for p in _pushes(push_service, browser, vapid) if p["kind"] == "game_over"]
    assert [p["url"] for p in over] == [f"/games/{game.pk}/"]


def test_an_endpoint_whose_name_resolves_inside_is_never_posted_to_and_forgotten(
    api, alice, bob, push_service, vapid, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """A public-looking name that points at this machine (or a private network) is refused
    when the push would go: the worker never posts inside."""
    import socket

    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _players(game, alice, bob)
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = False
    subscription = Browser("https://push.example.com/send/x").subscription()
    assert (
        api[waiting.username].post("/api/push/subscriptions/", subscription, format="json").status_code == 201
    )
    resolved = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 443))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: resolved)
    mail.outbox.clear()
    _play(game, mover, django_capture_on_commit_callbacks)
    assert push_service.received == []
    assert not PushSubscription.objects.exists()
    assert len(_turn_emails_to(waiting)) == 1  # no push could go: the email goes at once


def test_the_game_page_offers_push_to_its_players_only_when_the_site_has_keys(
    client, alice, bob, charlie, settings
):
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    client.force_login(alice)
    assert "data-push-key" not in client.get(f"/games/{game.pk}/").content.decode()
    keys = make_vapid_keys()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = (
        keys["VAPID_PRIVATE_KEY"],
        keys["VAPID_PUBLIC_KEY"],
    )
    settings.VAPID_SUBJECT = "mailto:ops@example.com"
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-push-key="{keys["VAPID_PUBLIC_KEY"]}"' in page
    assert "/static/js/push.js" in page
    client.force_login(charlie)  # a spectator has no turn to be told of
    assert "data-push-key" not in client.get(f"/games/{game.pk}/").content.decode()
