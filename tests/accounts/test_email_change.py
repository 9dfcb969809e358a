"""A player adds or changes their email address on the profile, with their password; the new
address gets a confirmation link, and no game email goes to it before the link is opened."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from accounts import services as account_services
from accounts.models import EmailStatus

PASSWORD = "dragon-heart-42"


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _change(user: User, capture, email: str, password: str = PASSWORD):
    with capture(execute=True):
        return _browser(user).post("/accounts/email/", {"email": email, "password": password}, follow=True)


def _links_to(address: str) -> list[str]:
    to_address = [str(m.body) for m in mail.outbox if m.to == [address]]
    return [body for body in to_address if re.search(r"/accounts/confirm/\S+/", body)]


def test_it_changes_the_address_and_sends_a_link_to_the_new_one(alice, django_capture_on_commit_callbacks):
    page = _change(alice, django_capture_on_commit_callbacks, "alice@example.org")
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"
    assert len(_links_to("alice@example.org")) == 1
    assert "A link is on its way to alice@example.org" in page.content.decode()


def test_the_new_address_gets_no_game_email_before_it_is_confirmed(alice, django_capture_on_commit_callbacks):
    _change(alice, django_capture_on_commit_callbacks, "alice@example.org")
    alice.refresh_from_db()
    assert not account_services.may_email(alice)
    assert EmailStatus.objects.get(user=alice).confirmed_at is None


def test_a_wrong_password_changes_nothing(alice, django_capture_on_commit_callbacks):
    page = _change(alice, django_capture_on_commit_callbacks, "thief@example.org", password="guess")
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert _links_to("thief@example.org") == []
    assert "That is not your password." in page.content.decode()


def test_an_address_that_is_no_address_is_refused(alice, django_capture_on_commit_callbacks):
    page = _change(alice, django_capture_on_commit_callbacks, "not an address")
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert "valid email address" in page.content.decode()


def test_the_same_address_again_sends_nothing(alice, django_capture_on_commit_callbacks):
    mail.outbox.clear()
    page = _change(alice, django_capture_on_commit_callbacks, "ALICE@example.com")
    assert mail.outbox == []
    assert EmailStatus.objects.get(user=alice).confirmed_at is not None
    assert "That is the address you have already." in page.content.decode()


def test_a_player_without_an_address_is_offered_to_add_one(db, django_capture_on_commit_callbacks):
    dora = account_services.user_create(username="dora", password=PASSWORD)
    page = _browser(dora).get("/accounts/profile/").content.decode()
    assert "Add an address" in page
    assert 'action="/accounts/email/"' in page
    _change(dora, django_capture_on_commit_callbacks, "dora@example.com")
    dora.refresh_from_db()
    assert dora.email == "dora@example.com"
    assert len(_links_to("dora@example.com")) == 1
