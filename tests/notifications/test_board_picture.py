"""The turn email's board picture: inline PNG drawn from the reader's view alone."""

from __future__ import annotations

import json
import re

import pytest
from django.core import mail

from engine.cards import TYPES
from games import challenges, event_log, history, presenters
from games.art import PALETTE, symbols
from games.models import Game
from notifications import board_picture
from tests.support.api_plays import hidden_ids, leaked, play_first_legal, shown_ids

pytestmark = pytest.mark.board_picture  # the real picture, not tests/conftest.py's white pixel


def _turn_email(api, alice, bob, capture):
    mail.outbox.clear()
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
        game = Game.objects.get(pk=game.pk)
        mover = alice if game.to_move == "a" else bob
        play_first_legal(api[mover.username], game.pk)
    waiting = bob if mover == alice else alice
    return (
        Game.objects.get(pk=game.pk),
        waiting,
        next(
            m
            for m in mail.outbox
            if m.to == [waiting.email] and m.reply_to is not None and "turn" in m.subject.lower()
        ),
    )


def test_the_turn_email_carries_the_board_as_an_inline_png(
    api, alice, bob, django_capture_on_commit_callbacks
):
    _game, _reader, email = _turn_email(api, alice, bob, django_capture_on_commit_callbacks)
    message = email.message()
    images = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    assert images[0].get_payload(decode=True).startswith(b"\x89PNG")
    cid = images[0]["Content-ID"].strip("<>")
    html = email.alternatives[0][0]
    assert f'src="cid:{cid}"' in html
    assert re.search(r'alt="[^"]+"', html)
    assert message.get_content_type() == "multipart/related"


def test_the_picture_is_drawn_from_a_view_without_the_hidden_cards(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    drawn = []
    real = board_picture.board_png

    def seen(view, names):
        drawn.append(view)
        return real(view, names)

    monkeypatch.setattr(board_picture, "board_png", seen)
    game, reader, _email = _turn_email(api, alice, bob, django_capture_on_commit_callbacks)
    seat = "a" if reader == alice else "b"
    secret = hidden_ids(game.pk, seat)
    view = drawn[-1]
    # Whole JSON strings, as helpers.leaked looks: the deal's commitment is hex, where three
    # characters such as "b45" turn up by chance and are no card.
    assert not leaked(json.loads(json.dumps(view, default=str)), secret)
    svg = board_picture.board_svg(view, history.names_of(game))
    assert not shown_ids(svg, secret)
    shown = sum(len(cards) for cards in view["board"].values()) + len(view["hold"]) + len(view["hand"])
    assert svg.count('href="#sym-') == shown  # not one card beyond the reader's


def test_a_view_of_the_reader_is_what_presenters_give_them(
    api, alice, bob, django_capture_on_commit_callbacks
):
    game, reader, _email = _turn_email(api, alice, bob, django_capture_on_commit_callbacks)
    view = presenters.game_view(game, event_log.load_state(game), reader)
    assert board_picture.board_png(view, history.names_of(game)).startswith(b"\x89PNG")


def _card(kind: str, n: int) -> dict[str, object]:
    return {"id": f"a{n:02d}", "type": kind, "value": 2}


def test_the_picture_is_coloured_with_the_palette() -> None:
    # One card of every type on its space, in the hold and in the hand: each drawn in its
    # type's colour, and nothing outside the card art's own <defs> in a colour of its own.
    board = {kind: [_card(kind, i)] for i, kind in enumerate(TYPES)}
    view = {
        "board": board,
        "your_seat": "a",
        "players": [{"seat": "a", "pile_size": 30}, {"seat": "b", "pile_size": 31}],
        "dragon": None,
        "voyages": 1,
        "hold": [_card("hero", 20)],
        "hand": [_card(kind, 30 + i) for i, kind in enumerate(TYPES)],
    }
    svg = board_picture.board_svg(view, {"a": "alice", "b": "bob"})
    picture = svg.replace(symbols(), "")
    cards = re.findall(
        r'style="color:(#\w+)"><rect [^>]*stroke="(#\w+)"[^>]*/><use href="#sym-(\w+)"[^>]*/>'
        r'<text [^>]*fill="(#\w+)"',
        picture,
    )
    assert len(cards) == len(TYPES) * 2 + 1
    assert all(PALETTE[kind] == group == edge == value for group, edge, kind, value in cards)
    assert set(re.findall(r"#[0-9a-fA-F]{3,6}\b", picture)) <= set(PALETTE.values())
    assert f'fill="{PALETTE["paper"]}"' in picture
    assert f'fill="{PALETTE["ink"]}"' in picture
