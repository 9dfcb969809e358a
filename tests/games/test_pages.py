"""Pages, as the Django test client sees them: what they show, what they cost."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine.cards import CARD_TYPE
from games import challenges, services
from games.models import Game
from tests.support.api_plays import advance, hidden_ids, shown_ids
from tests.support.tables import snapshot


def _page_client(client, user):
    client.force_login(user)
    return client


def _started(alice, bob) -> Game:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _queries(client, url) -> int:
    client.get(url)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


def test_the_lobby_lists_the_game_waiting_for_you_first(client, alice, bob):
    game = _started(alice, bob)
    mover = alice if game.to_move == "a" else bob
    page = _page_client(client, mover).get("/").content.decode()
    your_turn = page[page.index('id="your-turn"') : page.index('id="challenges"')]
    assert f"/games/{game.pk}/" in your_turn
    assert "No game is waiting for you." not in your_turn


def test_a_refused_play_is_explained_in_words_and_changes_nothing(client, alice, bob):
    game = _started(alice, bob)
    mover = alice if game.to_move == "a" else bob
    other_card = "b00" if game.to_move == "a" else "a00"
    response = _page_client(client, mover).post(
        f"/games/{game.pk}/play/", {"cards": [other_card], "expected_version": game.version}
    )
    assert response.status_code == 400
    assert "is not in your hand" in response.content.decode()
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_play_from_the_page_is_recorded_and_leads_back_to_the_game(client, alice, bob):
    game = _started(alice, bob)
    mover = alice if game.to_move == "a" else bob
    card = snapshot(game)["hands"][game.to_move][0]
    choice = "chests" if CARD_TYPE[card] == "princess" else ""
    response = _page_client(client, mover).post(
        f"/games/{game.pk}/play/", {"cards": [card], "choice": choice, "expected_version": game.version}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert Game.objects.get(pk=game.pk).version > game.version


def _play_form(game: Game) -> dict[str, object]:
    card = snapshot(game)["hands"][game.to_move][0]
    choice = "chests" if CARD_TYPE[card] == "princess" else ""
    return {"cards": [card], "choice": choice, "expected_version": game.version}


def test_the_play_form_carries_a_fresh_idempotency_key_each_time_it_is_drawn(client, alice, bob):
    game = _started(alice, bob)
    page = _page_client(client, alice if game.to_move == "a" else bob)
    keys = [
        re.search(r'name="idempotency_key" value="([^"]+)"', page.get(f"/games/{game.pk}/").content.decode())
        for _ in range(2)
    ]
    assert keys[0] is not None
    assert keys[1] is not None
    assert keys[0][1] != keys[1][1]


def test_a_play_form_sent_twice_plays_once_and_both_lead_back_to_the_game(client, alice, bob):
    game = _started(alice, bob)
    page = _page_client(client, alice if game.to_move == "a" else bob)
    form = {**_play_form(game), "idempotency_key": "double-click"}
    first = page.post(f"/games/{game.pk}/play/", form)
    second = page.post(f"/games/{game.pk}/play/", form)  # the same form again: its version is stale now
    assert first.status_code == second.status_code == 302
    assert second["Location"] == f"/games/{game.pk}/"
    played = Game.objects.get(pk=game.pk)
    assert played.version > game.version
    assert played.events.filter(kind="cards_played").count() == 1


def test_a_play_form_sent_again_without_its_key_is_refused_as_stale(client, alice, bob):
    game = _started(alice, bob)
    page = _page_client(client, alice if game.to_move == "a" else bob)
    form = _play_form(game)
    assert page.post(f"/games/{game.pk}/play/", form).status_code == 302
    assert page.post(f"/games/{game.pk}/play/", form).status_code == 409


def test_polling_answers_no_content_until_the_game_changes(client, alice, bob):
    game = _started(alice, bob)
    page = _page_client(client, alice)
    assert page.get(f"/games/{game.pk}/poll/?version={game.version}").status_code == 204
    changed = page.get(f"/games/{game.pk}/poll/?version={game.version - 1}")
    assert changed.status_code == 200
    assert changed["HX-Refresh"] == "true"


def test_the_game_page_costs_the_same_queries_early_and_late(client, alice, bob, api):
    game = _started(alice, bob)
    page = _page_client(client, alice)
    early = _queries(page, f"/games/{game.pk}/")
    advance(api, game.pk, 30)
    assert _queries(page, f"/games/{game.pk}/") == early


def test_the_history_page_costs_the_same_queries_early_and_late(client, alice, bob, api):
    game = _started(alice, bob)
    page = _page_client(client, alice)
    early = _queries(page, f"/games/{game.pk}/history/")
    advance(api, game.pk, 30)
    assert _queries(page, f"/games/{game.pk}/history/?step=5") == early


def test_the_lobby_costs_the_same_queries_for_one_game_and_for_twenty(client, alice, bob):
    _started(alice, bob)
    page = _page_client(client, alice)
    one = _queries(page, "/")
    for _ in range(19):
        _started(alice, bob)
    assert _queries(page, "/") == one


def test_the_history_of_a_new_game_opens_at_the_deal(client, alice, bob):
    game = _started(alice, bob)
    page = _page_client(client, alice)
    first = page.get(f"/games/{game.pk}/history/?turn=0").content.decode()
    assert "The deal" in first
    assert "begins" in first


def test_the_profile_shows_the_record_and_creates_a_token_shown_once(client, alice, bob):
    game = _started(alice, bob)
    services.game_resign(game=game, user=bob)
    page = _page_client(client, alice)
    record = page.get("/accounts/profile/").content.decode()
    assert "1 game finished" in record
    assert "<strong>1</strong> won" in record
    page.post("/accounts/tokens/", {"name": "my bot"})
    shown = page.get("/accounts/profile/").content.decode()
    again = page.get("/accounts/profile/").content.decode()
    assert "my bot" in shown
    assert "shown only this once" in shown
    assert "shown only this once" not in again


def test_a_forgotten_password_is_reset_by_email(client, alice):
    client.post("/accounts/password_reset/", {"email": "alice@example.com"})
    assert len(mail.outbox) == 1
    assert "/accounts/reset/" in mail.outbox[0].body
    assert User.objects.get(username="alice").email == mail.outbox[0].to[0]


def test_no_page_shows_a_card_hidden_from_its_viewer_at_any_step(client, alice, bob, charlie, api):
    game = _started(alice, bob)
    advance(api, game.pk, 24)
    version = Game.objects.get(pk=game.pk).version
    for user, seat in ((alice, "a"), (bob, "b"), (charlie, None)):
        client.force_login(user)
        secret = hidden_ids(game.pk, seat)
        pages = ["/", f"/games/{game.pk}/", "/accounts/profile/"]
        pages += [f"/games/{game.pk}/history/?step={step}" for step in range(1, version + 1, 3)]
        for url in pages:
            html = client.get(url).content.decode()
            assert not shown_ids(html, secret), f"{url} shows hidden cards to {user}"


def test_the_profile_costs_the_same_queries_for_one_game_and_for_twenty(client, alice, bob):
    _started(alice, bob)
    page = _page_client(client, alice)
    one = _queries(page, "/accounts/profile/")
    for _ in range(19):
        services.game_resign(game=_started(alice, bob), user=bob)
    assert _queries(page, "/accounts/profile/") == one


def test_since_your_last_turn_opens_after_your_last_turn(client, alice, bob, api):
    game = _started(alice, bob)
    advance(api, game.pk, 3)
    waiting = bob if Game.objects.get(pk=game.pk).to_move == "b" else alice
    seat = "b" if waiting == bob else "a"
    rows = list(game.events.order_by("seq"))
    last_own_turn = max(
        r.payload["turn"] for r in rows if r.kind == "turn_ended" and r.payload["seat"] == seat
    )
    page = _page_client(client, waiting).get(f"/games/{game.pk}/history/?since=1").content.decode()
    assert f"turn {last_own_turn + 1} of 3" in page


def test_the_profile_saves_email_preferences(client, alice):
    page = _page_client(client, alice)
    response = page.post(
        "/accounts/profile/",
        {"email_mode": "digest", "digest_hour": "7", "time_zone": "Europe/Kyiv", "language": "uk"},
    )
    assert response.status_code == 302
    prefs = alice.preferences
    prefs.refresh_from_db()
    assert (prefs.email_mode, prefs.digest_hour, prefs.time_zone, prefs.language) == (
        "digest",
        7,
        "Europe/Kyiv",
        "uk",
    )


def test_the_profile_language_becomes_the_sites(client, alice):
    page = _page_client(client, alice)
    page.post(
        "/accounts/profile/",
        {"email_mode": "every_turn", "digest_hour": "8", "time_zone": "UTC", "language": "de"},
    )
    assert 'lang="de"' in page.get("/").content.decode()


def test_the_login_page_stops_a_password_guesser(client, alice):
    for _ in range(10):
        assert client.post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code == 200
    refused = client.post("/accounts/login/", {"username": "alice", "password": "dragon-heart-42"})
    assert refused.status_code == 429
    other = client.post("/accounts/login/", {"username": "bob", "password": "wrong"})
    assert other.status_code == 200  # per username and address, not for everyone


def test_the_login_page_logs_in_with_the_right_password(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "dragon-heart-42"})
    assert response.status_code == 302
