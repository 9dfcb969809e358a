"""Replies through the mail provider's inbound webhook (anymail, Postmark's payload): the same
service as the SMTP server's, behind the provider's secret, and room for a whole email."""

from __future__ import annotations

import base64
import importlib
import json
from typing import Any

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import clear_url_caches

from games import challenges
from games.models import Game, GameEvent
from notifications.models import InboundMail

DOMAIN = "in.dragonheart.test"
SECRET = "postmark:s3cret-webhook"
URL = "/inbound/postmark/inbound/"


def _reload_urls() -> None:
    import dragonheart_site.urls

    importlib.reload(dragonheart_site.urls)
    clear_url_caches()


@pytest.fixture
def webhook():
    with override_settings(ANYMAIL={"WEBHOOK_SECRET": SECRET}, INBOUND_EMAIL_DOMAIN=DOMAIN):
        _reload_urls()
        yield
    _reload_urls()


def _turn_email(alice, bob, capture):
    mail.outbox.clear()
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    mover = alice if game.to_move == "a" else bob
    return game, mover, next(m for m in mail.outbox if m.to == [mover.email] and m.reply_to)


def _payload(email, text: str, *, message_id: str = "<hook1@mail.test>", padding: int = 0) -> dict[str, Any]:
    """Postmark's inbound JSON, as its documentation's example has it."""
    return {
        "FromFull": {"Email": email.to[0], "Name": ""},
        "ToFull": [{"Email": email.reply_to[0], "Name": ""}],
        "OriginalRecipient": email.reply_to[0],
        "Subject": "Re: " + email.subject,
        "MessageID": "b7bc2f4a-e38e-4336-af7d-e6c392c2f817",
        "Headers": [{"Name": "Message-ID", "Value": message_id}],
        "TextBody": f"{text}\n\nOn Tue, Dec 1, 2026, Dragonheart wrote:\n> {email.subject}\n"
        + "> x\n" * padding,
        "HtmlBody": "",
        "Attachments": [],
    }


def _post(payload: dict[str, Any], secret: str = SECRET):
    auth = base64.b64encode(secret.encode()).decode()
    return Client().post(
        URL, json.dumps(payload), content_type="application/json", HTTP_AUTHORIZATION=f"Basic {auth}"
    )


def test_a_reply_through_the_webhook_plays_once(webhook, alice, bob, django_capture_on_commit_callbacks):
    game, mover, email = _turn_email(alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert _post(_payload(email, "1")).status_code == 200
        assert _post(_payload(email, "1")).status_code == 200  # the provider retries
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1
    assert InboundMail.objects.get().outcome == "played"
    assert any("You played" in m.body for m in mail.outbox if m.to == [mover.email])


def test_the_webhook_refuses_a_caller_without_the_secret(
    webhook, alice, bob, django_capture_on_commit_callbacks
):
    game, _mover, email = _turn_email(alice, bob, django_capture_on_commit_callbacks)
    assert _post(_payload(email, "1"), secret="postmark:guess").status_code in (400, 401, 403)
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 0
    assert not InboundMail.objects.exists()


def test_the_webhook_takes_a_whole_email_larger_than_any_api_body(
    webhook, settings, alice, bob, django_capture_on_commit_callbacks
):
    game, _mover, email = _turn_email(alice, bob, django_capture_on_commit_callbacks)
    payload = _payload(email, "1", padding=settings.REQUEST_BODY_MAX_BYTES // 4)
    assert len(json.dumps(payload)) > settings.REQUEST_BODY_MAX_BYTES
    with django_capture_on_commit_callbacks(execute=True):
        assert _post(payload).status_code == 200
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1


def test_a_page_still_refuses_a_body_over_the_limit(client, settings, alice):
    client.force_login(alice)
    body = "x" * (settings.REQUEST_BODY_MAX_BYTES + 1)
    assert client.post("/", body, content_type="text/plain").status_code == 413


def test_without_its_secret_the_webhook_is_not_served():
    assert Client().post(URL, "{}", content_type="application/json").status_code == 404
