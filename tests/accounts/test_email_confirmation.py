"""A new player's address is confirmed by a signed link before any game email goes to it;
a bounce or a complaint reported by the provider stops emails to it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from anymail.signals import AnymailTrackingEvent
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMessage
from django.db import transaction
from django.test import Client
from django.utils import timezone

from accounts import services as account_services
from accounts.models import EmailStatus
from games import challenges
from notifications import webhooks
from notifications.models import Preferences
from outbox.models import Notification

PASSWORD = "dragon-heart-42"


def _sign_up(name: str, capture) -> User:
    form = {"username": name, "email": f"{name}@example.com", "password1": PASSWORD, "password2": PASSWORD}
    with capture(execute=True):
        assert Client().post("/accounts/signup/", form).status_code == 302
    return User.objects.get(username=name)


def _link(user: User) -> str:
    email = next(m for m in mail.outbox if m.to == [user.email] and "Confirm" in m.subject)
    link = re.search(r"https?://[^/]+/(accounts/confirm/\S+/)", str(email.body))
    assert link is not None
    return "/" + link[1]


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
    answer = Client().post(link, follow=True)
    assert answer.redirect_chain == [("/", 302)]  # to the player's games, saying it is done
    assert "is confirmed" in answer.content.decode()
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


# --- through the outbox, like every other email ----------------------------------------------------


def _confirmations(user: User) -> list[EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email] and "Confirm" in m.subject]


def test_the_link_is_an_outbox_row_written_with_the_request_and_sent_once(
    db, django_capture_on_commit_callbacks
):
    from notifications import tasks

    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    note = Notification.objects.get(user=dora, kind=Notification.Kind.CONFIRM_EMAIL)
    assert note.sent_at is not None
    [email] = _confirmations(dora)
    assert email.extra_headers["Message-ID"].startswith(f"<notification-{note.pk}@")
    Notification.objects.filter(pk=note.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert tasks.sweep_outbox() == 0  # sent: never again
    assert len(_confirmations(dora)) == 1


def test_a_link_asked_for_while_the_broker_is_down_goes_out_with_the_sweep(
    db, django_capture_on_commit_callbacks, settings
):
    from notifications import tasks

    delivery = settings.OUTBOX_DELIVERY_TASK
    settings.OUTBOX_DELIVERY_TASK = "no.such.task"  # nothing can be queued
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    assert _confirmations(dora) == []
    settings.OUTBOX_DELIVERY_TASK = delivery  # the broker is back
    Notification.objects.filter(user=dora).update(created_at=timezone.now() - timedelta(minutes=5))
    assert tasks.sweep_outbox() == 1
    assert tasks.sweep_outbox() == 0
    assert len(_confirmations(dora)) == 1
    assert _link(dora)


def test_a_request_rolled_back_writes_no_email(db, django_capture_on_commit_callbacks):
    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    mail.outbox.clear()

    def asks_then_fails() -> None:
        with transaction.atomic():
            account_services.confirmation_request(user=dora)
            raise RuntimeError("what asked for it failed")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        asks_then_fails()
    assert Notification.objects.filter(user=dora, kind=Notification.Kind.CONFIRM_EMAIL).count() == 1
    assert _confirmations(dora) == []


def test_a_link_for_an_address_confirmed_meanwhile_is_not_sent(db, django_capture_on_commit_callbacks):
    from notifications import services as notifications

    dora = _sign_up("dora", django_capture_on_commit_callbacks)
    Client().post(_link(dora))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=False):
        account_services.confirmation_request(user=dora)
    note = Notification.objects.filter(user=dora, kind=Notification.Kind.CONFIRM_EMAIL).latest("pk")
    assert notifications.deliver(note.pk) is False
    assert Notification.objects.get(pk=note.pk).skipped == "address confirmed already"
    assert mail.outbox == []


def test_a_player_who_signs_up_in_german_gets_the_confirmation_in_german(
    db, django_capture_on_commit_callbacks
):
    body = {"username": "greta", "email": "greta@example.com", "password1": PASSWORD, "password2": PASSWORD}
    with django_capture_on_commit_callbacks(execute=True):
        answer = Client().post("/accounts/signup/", body, HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 302
    assert Preferences.objects.get(user__username="greta").language == "de"
    assert [message.subject for message in mail.outbox] == [
        "Bestätige deine Adresse für Drachenherz per Post"
    ]


def test_a_player_who_signs_up_through_the_api_in_french_gets_french_emails(db):
    answer = Client().post(
        "/api/users/",
        {"username": "remi", "password": PASSWORD, "email": "remi@example.com"},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert answer.status_code == 201
    assert Preferences.objects.get(user__username="remi").language == "fr"
