"""Every email kind, in each of the five languages, names cards as the edition does: no
internal id (``fire_dragon``, ``a23``) in the subject, the text, the HTML or the picture's alt
text, and no English card name in another language's email."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from games import challenges, services
from games.models import Game
from notifications.models import Preferences
from tests.support.api_plays import ordinary_play

INTERNAL = re.compile(r"\b(fire_dragon|stone_dragon|[ab]\d{2})\b")
ENGLISH_NAMES = re.compile(
    r"\b(Treasure chest|Fire dragon|Petrified dragon|Dragon huntress|Dwarf \d|Princess \d)\b"
)


def _texts(message) -> list[str]:
    parts = [message.subject, message.body, *(content for content, _type in message.alternatives)]
    return [*parts, *re.findall(r'alt="([^"]*)"', " ".join(parts))]


@pytest.mark.parametrize("language", ["en", "de", "es", "fr", "uk"])
def test_no_email_names_a_card_by_its_internal_id(language, alice, bob, django_capture_on_commit_callbacks):
    for user in (alice, bob):
        Preferences.objects.update_or_create(user=user, defaults={"language": language})
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    for _ in range(4):  # each turn's email goes out while the turn is still open
        game = Game.objects.get(pk=game.pk)
        mover = alice if game.to_move == "a" else bob
        with django_capture_on_commit_callbacks(execute=True):
            services.game_play(game=game, user=mover, **ordinary_play(game.pk))
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=Game.objects.get(pk=game.pk), user=alice)
    kinds = {m.subject for m in mail.outbox}
    assert len(mail.outbox) >= 6, kinds  # challenge, accepted, turns, game over
    for message in mail.outbox:
        for text in _texts(message):
            assert not INTERNAL.search(text), (message.subject, INTERNAL.search(text))
            if language != "en":
                assert not ENGLISH_NAMES.search(text), (message.subject, ENGLISH_NAMES.search(text))
