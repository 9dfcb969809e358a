"""A new player's address is confirmed by a signed link before any game email goes to it;
a bounce or a complaint reported by the provider stops emails to it."""

from __future__ import annotations

import re

from anymail.signals import AnymailTrackingEvent
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from accounts.models import EmailStatus
from games import challenges
from notifications import webhooks
from outbox.models import Notification

PASSWORD = "dragon-heart-42"


def _sign_up(name: str, capture) -> User:
    form = {"username": name, "email": f"{name}@example.com", "password1": PASSWORD, "password2": PASSWORD}
    with capture(execute=True):
        assert Client().post("/accounts/signup/", form).status_code == 302
    return User.objects.get(username=name)


def _link(user: User) -> str:
    email = next(m for m in mail.outbox if m.to == [user.email] and "Confirm" in m.subject)
    return "/" + re.search(r"https?://[^/]+/(accounts/confirm/\S+/)", email.body)[1]


def test_signing_up_sends_a_confirmation_link_and_no_game_email_before_it_is_used(
    alice, django_capture_on_commit_callbacks
):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    assert _link(dora)
    with django_capture_on_commit_callbacks(execute=True):
        challenges.game_create(creator=alice, opponent="dora")
    assert Notification.objects.get(user=dora, kind="challenge").skipped == "address not confirmed"
    assert not [m for m in mail.outbox if m.to == [dora.email] and "challenges you" in m.subject]


def test_opening_the_link_asks_and_only_the_button_confirms(db, django_capture_on_commit_callbacks):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    link = _link(dora)
    assert Client().get(link).status_code == 200
    assert EmailStatus.objects.get(user=dora).confirmed_at is None
    answer = Client().post(link)
    assert answer.status_code == 200
    assert "confirmed" in answer.content.decode()
    assert EmailStatus.objects.get(user=dora).confirmed_at is not None


def test_once_confirmed_game_emails_go_out(alice, django_capture_on_commit_callbacks):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    Client().post(_link(dora))
    with django_capture_on_commit_callbacks(execute=True):
        challenges.game_create(creator=alice, opponent="dora")
    assert [m for m in mail.outbox if m.to == [dora.email] and "challenges you" in m.subject]


def test_a_forged_link_confirms_nothing(db, django_capture_on_commit_callbacks):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    forged = _link(dora)[:-4] + "xyz/"
    assert Client().post(forged).status_code == 400
    assert EmailStatus.objects.get(user=dora).confirmed_at is None


def test_the_profile_says_the_address_is_unconfirmed_and_sends_a_new_link(
    db, django_capture_on_commit_callbacks
):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    browser = Client()
    browser.force_login(dora)
    assert "is not confirmed yet" in browser.get("/accounts/profile/").content.decode()
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert browser.post("/accounts/confirm/").status_code == 302
    assert _link(dora)


def test_a_bounce_stops_emails_and_shows_on_the_profile(alice, bob, django_capture_on_commit_callbacks):
    event = AnymailTrackingEvent(event_type="bounced", recipient=bob.email, description="mailbox full")
    webhooks._tracked(sender=None, event=event, esp_name="Postmark")
    with django_capture_on_commit_callbacks(execute=True):
        challenges.game_create(creator=alice, opponent="bob")
    assert Notification.objects.get(user=bob, kind="challenge").skipped == "address bounced"
    browser = Client()
    browser.force_login(bob)
    assert "came back (bounced mailbox full)" in browser.get("/accounts/profile/").content.decode()


def test_a_complaint_stops_emails_too(alice, bob):
    webhooks._tracked(
        sender=None, event=AnymailTrackingEvent(event_type="complained", recipient=bob.email), esp_name="x"
    )
    assert EmailStatus.objects.get(user=bob).bounced_at is not None


def test_a_delivery_report_changes_nothing(bob):
    webhooks._tracked(
        sender=None, event=AnymailTrackingEvent(event_type="delivered", recipient=bob.email), esp_name="x"
    )
    assert EmailStatus.objects.get(user=bob).bounced_at is None


def test_the_lobby_asks_a_new_player_to_confirm_and_stops_once_they_have(
    db, django_capture_on_commit_callbacks
):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    browser = Client()
    browser.force_login(dora)
    assert "to confirm your address" in browser.get("/").content.decode()
    Client().post(_link(dora))
    assert "to confirm your address" not in browser.get("/").content.decode()
