"""Private notes, a word with a play and muting, through the services and the pages: the
message is written with its play or not at all, only the two players read it (news box,
history, turn email), escaped; the notes show to their writer alone; "Next game" after a play.
Pages are searched for the unique texts themselves."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequest, NotFound
from engine import legal_plays
from games import challenges, event_log, notes, play_messages, services
from games.errors import StaleVersion
from games.models import Game, GameNote, PlayMessage
from notifications import emails
from outbox.models import Notification
from tests.support.tables import start

SECRET = "zebra-secret-7f3a: bob holds two trolls"
WORD = "well played, friend-91c2"


@pytest.fixture
def game(alice, bob):
    return start(alice, bob)


def _players(game, alice, bob):
    """(mover, waiter) as the game stands."""
    return (alice, bob) if game.to_move == "a" else (bob, alice)


def _play(game, user, message=None, version=None):
    game.refresh_from_db()
    state = event_log.load_state(game)
    play = legal_plays(state)[0]
    return services.game_play(
        game=game,
        user=user,
        cards=list(play.cards),
        choice=play.choice,
        expected_version=game.version if version is None else version,
        message=message,
    )


# --- The service ----------------------------------------------------------------------------


def test_it_writes_the_message_with_the_play(game, alice, bob):
    mover, _ = _players(game, alice, bob)

    _play(game, mover, message=f"  {WORD}  ")

    row = PlayMessage.objects.get(game=game)
    game.refresh_from_db()
    assert (row.text, row.user, row.version, row.turn) == (WORD, mover, game.version, 1)


def test_a_play_refused_as_stale_leaves_no_message(game, alice, bob):
    mover, _ = _players(game, alice, bob)

    with pytest.raises(StaleVersion):
        _play(game, mover, message=WORD, version=game.version + 5)

    assert not PlayMessage.objects.exists()


def test_a_play_refused_by_the_rules_leaves_no_message(game, alice, bob):
    mover, _ = _players(game, alice, bob)

    with pytest.raises(InvalidRequest):
        services.game_play(
            game=game, user=mover, cards=["zz9"], choice=None, expected_version=game.version, message=WORD
        )

    assert not PlayMessage.objects.exists()


def test_a_message_over_280_characters_is_refused_by_the_service(game, alice, bob):
    mover, _ = _players(game, alice, bob)

    with pytest.raises(InvalidRequest) as refused:
        _play(game, mover, message="m" * 281)

    assert refused.value.code == "message_too_long"
    assert not PlayMessage.objects.exists()


def test_a_player_over_the_message_limit_is_refused_and_nothing_is_played(game, alice, bob, monkeypatch):
    monkeypatch.setattr(play_messages, "MESSAGES_PER_WINDOW", 1)
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message="one")
    _play(game, waiter)
    version = Game.objects.get(pk=game.pk).version

    with pytest.raises(InvalidRequest) as refused:
        _play(game, mover, message="two")

    assert refused.value.code == "too_many_messages"
    assert Game.objects.get(pk=game.pk).version == version


def test_a_bot_sends_no_message(alice):
    game = challenges.game_create(creator=alice, opponent="bot:random")
    for _ in range(4):
        game.refresh_from_db()
        if game.to_move == "a":
            _play(game, alice, message=WORD)
        else:
            assert services.bot_play_turn(game_id=game.pk)

    assert set(PlayMessage.objects.values_list("seat", flat=True)) == {"a"}


def test_notes_are_for_players_only(game, charlie):
    with pytest.raises(NotFound):
        notes.note_save(game=game, user=charlie, text="x")

    assert not GameNote.objects.exists()


# --- The pages ------------------------------------------------------------------------------


def _page(client, user, path):
    client.force_login(user)
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def test_the_opponent_reads_the_message_in_the_news_box_a_spectator_does_not(
    client, game, alice, bob, charlie
):
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message=WORD)

    assert WORD in _page(client, waiter, f"/games/{game.pk}/")
    assert WORD in _page(client, mover, f"/games/{game.pk}/")
    assert WORD not in _page(client, charlie, f"/games/{game.pk}/")


def test_the_history_shows_the_message_at_its_turn_to_the_players_only(client, game, alice, bob, charlie):
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message=WORD)

    assert WORD in _page(client, waiter, f"/games/{game.pk}/history/?turn=1")
    assert WORD in _page(client, waiter, f"/games/{game.pk}/history/?turn=0")  # the log beside
    assert WORD not in _page(client, charlie, f"/games/{game.pk}/history/?turn=1")


def test_a_message_is_escaped_on_the_page_and_in_the_history(client, game, alice, bob):
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message="<script>alert('x')</script>")

    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/history/?turn=1"):
        page = _page(client, waiter, path)
        assert "<script>alert(" not in page
        assert "&lt;script&gt;alert(" in page


def test_muting_on_the_page_hides_the_message_and_unmuting_shows_it(client, game, alice, bob):
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message=WORD)
    client.force_login(waiter)

    assert client.post(f"/games/{game.pk}/mute/", {"mute": "1"}).status_code == 302
    muted = _page(client, waiter, f"/games/{game.pk}/")
    assert WORD not in muted
    assert WORD not in _page(client, waiter, f"/games/{game.pk}/history/?turn=1")
    assert "Unmute" in muted
    client.post(f"/games/{game.pk}/mute/", {"mute": "0"})
    assert WORD in _page(client, waiter, f"/games/{game.pk}/")


def test_a_spectator_cannot_mute_through_a_game(client, game, charlie):
    client.force_login(charlie)

    assert client.post(f"/games/{game.pk}/mute/", {"mute": "1"}).status_code == 404


def _play_from_the_page(client, game, alice, bob, message: str):
    """The mover's first legal play, sent from the game page's form with ``message``."""
    mover, _ = _players(game, alice, bob)
    play = legal_plays(event_log.load_state(game))[0]
    client.force_login(mover)
    body = {"cards": list(play.cards), "choice": play.choice or "", "expected_version": game.version}
    return client.post(f"/games/{game.pk}/play/", {**body, "message": message})


def test_the_play_form_sends_a_message(client, game, alice, bob):
    response = _play_from_the_page(client, game, alice, bob, WORD)

    assert response.status_code == 302
    assert PlayMessage.objects.get(game=game).text == WORD


def test_the_play_form_refuses_a_long_message_in_words_and_keeps_it(client, game, alice, bob):
    response = _play_from_the_page(client, game, alice, bob, "m" * 281)

    assert response.status_code == 400
    assert "A message has at most 280 characters." in response.content.decode()
    assert "m" * 281 in response.content.decode()
    assert not PlayMessage.objects.exists()


def test_notes_are_saved_without_javascript_and_shown_to_their_writer_only(client, game, alice, bob, charlie):
    client.force_login(alice)

    response = client.post(f"/games/{game.pk}/notes/", {"text": SECRET})

    assert response.status_code == 302
    assert response["Location"].endswith(f"/games/{game.pk}/#notes")
    assert SECRET in _page(client, alice, f"/games/{game.pk}/")
    assert SECRET in _page(client, alice, f"/games/{game.pk}/history/")
    for reader in (bob, charlie):
        assert SECRET not in _page(client, reader, f"/games/{game.pk}/")
        assert SECRET not in _page(client, reader, f"/games/{game.pk}/history/")


def test_notes_saved_by_htmx_answer_a_status_line(client, game, alice):
    client.force_login(alice)

    response = client.post(f"/games/{game.pk}/notes/", {"text": SECRET}, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert response.content.decode() == "Your notes are saved."
    assert GameNote.objects.get(game=game, user=alice).text == SECRET


def test_the_history_form_returns_to_the_history(client, game, alice):
    client.force_login(alice)

    response = client.post(f"/games/{game.pk}/notes/", {"text": "x", "next": "history"})

    assert response["Location"].endswith(f"/games/{game.pk}/history/#notes")


def test_a_spectator_cannot_save_notes_through_the_page(client, game, charlie):
    client.force_login(charlie)

    assert client.post(f"/games/{game.pk}/notes/", {"text": "x"}).status_code == 404
    assert not GameNote.objects.exists()


def test_after_a_play_the_page_offers_the_game_waiting_longest(client, game, alice, bob):
    mover, waiter = _players(game, alice, bob)
    other = challenges.game_create(creator=waiter, opponent=mover.username)
    challenges.game_accept(game=other, user=mover)
    other.refresh_from_db()
    if other.to_move != ("a" if other.player_a == mover else "b"):
        _play(other, waiter)  # now the other game waits for the mover
    _play(game, mover)

    page = _page(client, mover, f"/games/{game.pk}/")

    assert f'href="/games/{other.pk}/"' in page
    assert "Next game (1 waiting)" in page


def test_no_next_game_is_offered_when_none_waits(client, game, alice, bob):
    mover, _ = _players(game, alice, bob)
    _play(game, mover)

    assert "Next game" not in _page(client, mover, f"/games/{game.pk}/")


# --- The turn email -------------------------------------------------------------------------


def _turn_email(game, reader):
    note = Notification.objects.filter(user=reader, game=game, kind=Notification.Kind.YOUR_TURN).latest("pk")
    message = emails.email_for(note)
    return message.body, message.alternatives[0][0]


def test_the_turn_email_carries_the_message_escaped_in_html(game, alice, bob):
    mover, waiter = _players(game, alice, bob)
    _play(game, mover, message=f"<script>x</script> {WORD}")

    text, html = _turn_email(game, waiter)

    assert f"<script>x</script> {WORD}" in text  # plain text: nothing to escape
    assert f"&lt;script&gt;x&lt;/script&gt; {WORD}" in html
    assert "<script>" not in html


def test_the_turn_email_leaves_out_a_muted_message_and_the_notes(game, alice, bob):
    mover, waiter = _players(game, alice, bob)
    notes.note_save(game=game, user=mover, text=SECRET)
    _play(game, mover, message=WORD)
    play_messages.mute_set(user=waiter, name=mover.username, muted=True)

    text, html = _turn_email(game, waiter)

    assert WORD not in text
    assert WORD not in html
    assert SECRET not in text
    assert SECRET not in html
