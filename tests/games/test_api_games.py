"""The games API: challenges, bots, the game view, plays and their errors, series, records."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.throttling import ScopedRateThrottle

from engine.record import replay_document
from games import challenges, services
from games.models import Game, GameEvent, Series
from tests.support.tables import footprint, play, play_to_end, stack_the_deck, start

PASSWORD = "dragon-heart-42"
# Alice (seat a, moving first) holds a princess, three heroes and a dwarf; Bob five dwarves.
ALICE_HAND = ["a16", "a33", "a34", "a35", "a23"]
BOB_HAND = ["b23", "b24", "b25", "b26", "b27"]


@pytest.fixture
def game(monkeypatch, api, alice, bob):
    """A running game between alice and bob, dealt ALICE_HAND and BOB_HAND; alice to move."""
    stack_the_deck(monkeypatch, a=ALICE_HAND, b=BOB_HAND)
    return start(alice, bob, rules={"first_player": "a"})


def _create(client: Any, **body: Any) -> Any:
    return client.post("/api/games/", {"opponent": None, **body}, format="json")


def _send(client: Any, game: Game, cards: Any, choice: str | None = None, version: int | None = None) -> Any:
    body = {
        "cards": cards,
        "choice": choice,
        "expected_version": game.version if version is None else version,
    }
    return client.post(f"/api/games/{game.pk}/plays/", body, format="json")


def _ids(response: Any) -> set[str]:
    return {g["id"] for g in response.json()["results"]}


# --- Creating games ---------------------------------------------------------------------------


def test_a_challenge_to_a_named_user_waits_for_their_answer(api, bob):
    response = _create(api["alice"], opponent="bob")

    assert response.status_code == 201
    view = response.json()
    assert view["status"] == "challenge"
    assert [(p["seat"], p["username"]) for p in view["players"]] == [("a", "alice"), ("b", "bob")]
    assert (view["version"], view["hand"], view["legal_plays"], view["board"]) == (0, None, None, None)


def test_an_open_challenge_has_a_free_seat_and_an_invite_link(api, alice):
    response = _create(api["alice"])

    assert response.status_code == 201
    assert response.json()["status"] == "open"
    assert response.json()["players"][1]["username"] is None
    assert response.json()["private"] is False
    assert Game.objects.get(pk=response.json()["id"]).invite_token


def test_a_private_open_challenge_is_marked_private(api):
    response = _create(api["alice"], private=True)

    assert response.status_code == 201
    assert response.json()["status"] == "open"
    assert response.json()["private"] is True


def test_game_ids_are_random_slugs_not_counters(api):
    ids = [_create(api["alice"]).json()["id"] for _ in range(2)]

    assert all(len(game_id) >= 12 and not game_id.isdigit() for game_id in ids)
    assert ids[0] != ids[1]


def test_a_game_against_a_bot_starts_at_once(api):
    response = _create(api["alice"], opponent="bot:greedy", rules={"first_player": "a"})

    assert response.status_code == 201
    view = response.json()
    assert view["status"] == "active"
    assert view["players"][1] == {**view["players"][1], "username": "bot:greedy", "bot": "greedy"}
    assert view["your_turn"] is True
    assert len(view["hand"]) == 5


@pytest.mark.parametrize("bot", ["random", "greedy", "medium", "strong"])
def test_a_bot_that_begins_moves_as_soon_as_the_game_is_committed(
    api, django_capture_on_commit_callbacks, bot
):
    with django_capture_on_commit_callbacks(execute=True):
        created = _create(api["alice"], opponent=f"bot:{bot}", rules={"first_player": "b"})

    view = api["alice"].get(f"/api/games/{created.json()['id']}/").json()
    assert created.json()["to_move"] == "b"
    assert (view["turn"], view["to_move"], view["your_turn"]) == (1, "a", True)
    assert GameEvent.objects.filter(game_id=view["id"], actor=None).count() == view["version"]


def test_a_whole_game_against_the_random_bot_can_be_played_by_alice_alone(
    api, django_capture_on_commit_callbacks
):
    game_id = _create(api["alice"], opponent="bot:random", rules={"first_player": "a"}).json()["id"]
    url = f"/api/games/{game_id}/"
    view = api["alice"].get(url).json()
    while view["status"] == "active":
        assert view["your_turn"], "the bot's turn was not played"
        body = {**view["legal_plays"][-1], "expected_version": view["version"]}
        with django_capture_on_commit_callbacks(execute=True):
            assert api["alice"].post(f"{url}plays/", body, format="json").status_code == 201
        view = api["alice"].get(url).json()

    assert view["status"] == "finished"
    assert view["result"]["reason"] in ("third_voyage", "deck_exhausted")
    assert view["turn"] > 20


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"opponent": "zed"}, "unknown_opponent"),
        ({"opponent": "bot:nope"}, "unknown_bot"),
        ({"opponent": "ALICE"}, "self_challenge"),
        ({"rules": {"preset": "nope"}}, "invalid_rules"),
        ({"rules": {"deck_end_mode": 3}}, "invalid_rules"),
        ({"rules": {"open_scores": 1}}, "invalid_rules"),
        ({"series": {"kind": "best_of", "target": 3}}, "invalid_series"),
        ({"series": {"kind": "match", "target": 0}}, "invalid_series"),
        ({"series": {"kind": "match", "target": 26}}, "invalid_series"),
        ({"series": {"kind": "match", "target": "3"}}, "invalid_series"),
        ({"series": {"kind": "match", "target": True}}, "invalid_series"),
        ({"rules": "official"}, "invalid"),
        ({"days_per_turn": 4}, "invalid"),
        ({"days_per_turn": "3"}, "invalid"),
        ({"days_per_turn": 3.0}, "invalid"),
        ({"days_per_turn": True}, "invalid"),
    ],
)
def test_a_game_that_cannot_be_made_is_refused_with_a_code_and_nothing_is_stored(api, body, code):
    response = _create(api["alice"], **body)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["detail"]
    assert not Game.objects.exists()
    assert not Series.objects.exists()


@pytest.mark.parametrize("days", [None, 1, 3, 14])
def test_the_days_for_each_turn_are_a_json_integer_from_the_list(api, days):
    response = _create(api["alice"], opponent="bob", days_per_turn=days)

    assert response.status_code == 201, response.json()
    assert Game.objects.get().days_per_turn == days


# --- Accepting, declining, cancelling -----------------------------------------------------------


def test_the_challenged_player_accepts_and_the_game_is_dealt(api, bob):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    response = api["bob"].post(f"/api/games/{game_id}/accept/")

    assert response.status_code == 200
    assert response.json()["status"] == "active"
    assert response.json()["version"] == 1
    assert len(response.json()["hand"]) == 5


def test_nobody_else_can_accept_a_named_challenge(api, bob):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    for name in ("charlie", "alice"):
        response = api[name].post(f"/api/games/{game_id}/accept/")
        assert response.status_code == 403
        assert response.json()["code"] == "not_challenged"
    assert Game.objects.get(pk=game_id).status == "challenge"


def test_a_third_user_accepts_an_open_challenge_and_takes_seat_b(api):
    game_id = _create(api["alice"]).json()["id"]

    response = api["charlie"].post(f"/api/games/{game_id}/accept/")

    assert response.status_code == 200
    assert response.json()["status"] == "active"
    assert response.json()["players"][1]["username"] == "charlie"
    assert response.json()["your_seat"] == "b"


def test_the_creator_cannot_accept_their_own_open_challenge(api):
    game_id = _create(api["alice"]).json()["id"]

    response = api["alice"].post(f"/api/games/{game_id}/accept/")

    assert response.status_code == 400
    assert response.json()["code"] == "own_challenge"
    assert Game.objects.get(pk=game_id).status == "open"


def test_an_open_challenge_already_taken_gets_409(api):
    game_id = _create(api["alice"]).json()["id"]
    api["charlie"].post(f"/api/games/{game_id}/accept/")

    response = api["bob"].post(f"/api/games/{game_id}/accept/")

    assert response.status_code == 409
    taken_by = Game.objects.get(pk=game_id).player_b
    assert taken_by is not None
    assert taken_by.username == "charlie"
    assert GameEvent.objects.filter(game_id=game_id).count() == 1


def test_accepting_twice_gets_409_and_deals_once(api):
    game_id = _create(api["alice"], opponent="bob").json()["id"]
    api["bob"].post(f"/api/games/{game_id}/accept/")

    response = api["bob"].post(f"/api/games/{game_id}/accept/")

    assert response.status_code == 409
    assert response.json()["code"] == "not_a_challenge"
    assert GameEvent.objects.filter(game_id=game_id).count() == 1


def test_the_challenged_player_declines_and_it_can_no_longer_be_accepted(api):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    declined = api["bob"].post(f"/api/games/{game_id}/decline/")

    assert declined.status_code == 200
    assert declined.json()["status"] == "declined"
    assert api["bob"].post(f"/api/games/{game_id}/accept/").status_code == 409
    assert not GameEvent.objects.filter(game_id=game_id).exists()


@pytest.mark.parametrize("name", ["alice", "charlie"])
def test_only_the_challenged_player_may_decline(api, name):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    response = api[name].post(f"/api/games/{game_id}/decline/")

    assert response.status_code == 403
    assert response.json()["code"] == "cannot_decline"
    assert Game.objects.get(pk=game_id).status == "challenge"


def test_the_creator_cancels_an_unanswered_challenge(api):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    response = api["alice"].post(f"/api/games/{game_id}/cancel/")

    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert api["bob"].post(f"/api/games/{game_id}/accept/").status_code == 409


@pytest.mark.parametrize("name", ["bob", "charlie"])
def test_only_the_creator_may_cancel(api, name):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    response = api[name].post(f"/api/games/{game_id}/cancel/")

    assert response.status_code == 403
    assert response.json()["code"] == "cannot_cancel"
    assert Game.objects.get(pk=game_id).status == "challenge"


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_an_answered_challenge_cannot_be_cancelled(api, answer):
    game_id = _create(api["alice"], opponent="bob").json()["id"]
    api["bob"].post(f"/api/games/{game_id}/{answer}/")
    before = Game.objects.get(pk=game_id).status

    response = api["alice"].post(f"/api/games/{game_id}/cancel/")

    assert response.status_code == 409
    assert response.json()["code"] == "not_a_challenge"
    assert Game.objects.get(pk=game_id).status == before


# --- Lists ----------------------------------------------------------------------------------------


@pytest.fixture
def lobby(api, alice, bob, charlie):
    return {
        "alice_to_bob": challenges.game_create(creator=alice, opponent="bob").pk,
        "charlie_open": challenges.game_create(creator=charlie, opponent=None).pk,
        "charlie_private": challenges.game_create(creator=charlie, opponent=None, private=True).pk,
        "bob_charlie": start(bob, charlie).pk,
    }


def test_the_list_shows_everything_but_other_peoples_private_challenges(api, lobby):
    response = api["alice"].get("/api/games/")

    assert response.status_code == 200
    assert _ids(response) == {lobby["alice_to_bob"], lobby["charlie_open"], lobby["bob_charlie"]}
    assert lobby["charlie_private"] in _ids(api["charlie"].get("/api/games/"))


def test_the_list_filters_by_status(api, lobby):
    response = api["alice"].get("/api/games/?status=open")

    assert _ids(response) == {lobby["charlie_open"]}
    assert _ids(api["alice"].get("/api/games/?status=active")) == {lobby["bob_charlie"]}


def test_the_list_filters_to_my_games(api, lobby):
    assert _ids(api["alice"].get("/api/games/?mine=1")) == {lobby["alice_to_bob"]}
    assert _ids(api["charlie"].get("/api/games/?mine=1")) == {
        lobby["charlie_open"],
        lobby["charlie_private"],
        lobby["bob_charlie"],
    }


def test_the_list_refuses_an_unknown_status(api, lobby):
    response = api["alice"].get("/api/games/?status=bogus")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_the_list_marks_whose_turn_it_is(api, lobby):
    rows = {g["id"]: g for g in api["bob"].get("/api/games/?mine=1").json()["results"]}

    game = Game.objects.get(pk=lobby["bob_charlie"])
    assert rows[game.pk]["your_turn"] is (game.to_move == "a")
    assert rows[game.pk]["your_seat"] == "a"
    assert rows[lobby["alice_to_bob"]]["your_turn"] is False


# --- The game view ---------------------------------------------------------------------------------


def test_a_seated_player_sees_their_hand_and_on_their_turn_their_legal_plays(api, game):
    view = api["alice"].get(f"/api/games/{game.pk}/").json()

    assert [c["id"] for c in view["hand"]] == ALICE_HAND
    assert view["hand"][0] == {"id": "a16", "type": "princess", "value": 1}
    assert {"cards": ["a16"], "choice": "stones"} in view["legal_plays"]
    assert (view["your_seat"], view["to_move"], view["your_turn"]) == ("a", "a", True)


def test_a_seated_player_waiting_for_the_opponent_has_no_legal_plays(api, game):
    view = api["bob"].get(f"/api/games/{game.pk}/").json()

    assert [c["id"] for c in view["hand"]] == BOB_HAND
    assert view["legal_plays"] is None
    assert view["your_turn"] is False


def test_the_view_counts_each_players_cards_and_the_dragon(api, game):
    play(game, ["a23"])
    view = api["bob"].get(f"/api/games/{game.pk}/").json()

    a, b = view["players"]
    assert (a["hand_size"], a["pile_size"], a["captured_count"], a["has_dragon"]) == (5, 44, 0, False)
    assert (b["hand_size"], b["pile_size"], b["captured_count"], b["has_dragon"]) == (5, 45, 0, False)
    assert view["board"]["dwarf"] == [{"id": "a23", "type": "dwarf", "value": 1}]
    assert view["version"] == GameEvent.objects.filter(game=game).count()


def test_a_spectator_sees_the_table_but_no_hand_and_no_plays(api, game):
    view = api["charlie"].get(f"/api/games/{game.pk}/").json()

    assert view["hand"] is None
    assert view["legal_plays"] is None
    assert (view["your_seat"], view["your_turn"]) == (None, False)
    assert [p["hand_size"] for p in view["players"]] == [5, 5]


def test_scores_are_hidden_during_play(api, game):
    view = api["alice"].get(f"/api/games/{game.pk}/").json()

    assert [p["score"] for p in view["players"]] == [None, None]
    assert view["result"] is None


def test_scores_are_shown_during_play_with_open_scores(api, bob):
    game_id = _create(api["alice"], opponent="bob", rules={"open_scores": True}).json()["id"]
    api["bob"].post(f"/api/games/{game_id}/accept/")

    view = api["alice"].get(f"/api/games/{game_id}/").json()

    assert [p["score"] for p in view["players"]] == [0, 0]
    assert view["result"] is None


def test_an_unknown_game_gets_a_json_404(api):
    response = api["alice"].get("/api/games/5.18e-53/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


# --- Plays and the order of their errors ----------------------------------------------------------


def test_a_legal_play_answers_201_with_the_new_view(api, game):
    response = _send(api["alice"], game, ["a33", "a34"], "trolls")

    assert response.status_code == 201
    assert response.json()["version"] > game.version
    assert [c["id"] for c in response.json()["hand"]] == ["a16", "a35", "a23", "a00", "a01"]
    assert response.json()["to_move"] == "b"


@pytest.mark.parametrize("game_id", ["doesnotexist", "5.18e-53"])
def test_an_anonymous_play_gets_401_before_anything_else(api, game_id):
    response = api["anon"].post(f"/api/games/{game_id}/plays/", {}, format="json")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("game_id", ["doesnotexist", "5.18e-53"])
def test_a_play_in_an_unknown_game_gets_a_json_404(api, game_id):
    response = api["alice"].post(f"/api/games/{game_id}/plays/", {"nonsense": 1}, format="json")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_spectators_play_gets_403_even_when_stale_and_illegal(api, game):
    before = footprint(game)

    response = _send(api["charlie"], game, ["b23"], version=0)

    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player"
    assert footprint(game) == before


def test_a_spectators_malformed_play_gets_403_not_400(api, game):
    before = footprint(game)

    response = api["charlie"].post(
        f"/api/games/{game.pk}/plays/", "{not json", content_type="application/json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player"
    assert footprint(game) == before


@pytest.mark.parametrize("cards", [["b23"], ["a16", "a23"], "not a list of cards"])
def test_a_stale_version_gets_409_whatever_is_wrong_with_the_cards(api, game, cards):
    before = footprint(game)

    response = _send(api["alice"], game, cards, version=game.version - 1)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert footprint(game) == before


def test_a_stale_version_gets_409_even_when_it_is_not_your_turn(api, game):
    before = footprint(game)

    response = _send(api["bob"], game, ["b23"], version=0)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert footprint(game) == before


@pytest.mark.parametrize("cards", [["b23"], ["a16"], {"not": "a list"}])
def test_playing_out_of_turn_gets_403_whatever_the_cards(api, game, cards):
    before = footprint(game)

    response = _send(api["bob"], game, cards)

    assert response.status_code == 403
    assert response.json()["code"] == "not_your_turn"
    assert footprint(game) == before


@pytest.mark.parametrize(
    ("cards", "choice", "code"),
    [
        (["b23"], None, "card_not_in_hand"),
        (["a16", "a23"], None, "mixed_types"),
        (["a16"], None, "choice_required"),
        (["a16"], "dragons", "invalid_choice"),
        (["a23"], "trolls", "choice_not_allowed"),
        (["a33", "a34", "a35"], None, "too_many_cards"),
        (["a23", "a23"], None, "duplicate_card"),
        (["z99"], None, "unknown_card"),
        ([], None, "no_cards"),
    ],
)
def test_an_illegal_play_gets_400_with_the_engines_code(api, game, cards, choice, code):
    before = footprint(game)

    response = _send(api["alice"], game, cards, choice)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["detail"]
    assert footprint(game) == before


def test_a_malformed_json_body_gets_400(api, game):
    before = footprint(game)

    response = api["alice"].post(f"/api/games/{game.pk}/plays/", "{not json", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    assert footprint(game) == before


def test_a_play_without_expected_version_gets_400(api, game):
    before = footprint(game)

    response = api["alice"].post(f"/api/games/{game.pk}/plays/", {"cards": ["a23"]}, format="json")

    assert response.status_code == 400
    assert "expected_version" in response.json()["errors"]
    assert footprint(game) == before


def test_a_play_in_an_unaccepted_challenge_gets_409(api, bob):
    game_id = _create(api["alice"], opponent="bob").json()["id"]

    response = api["alice"].post(
        f"/api/games/{game_id}/plays/", {"cards": ["a00"], "expected_version": 0}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_started"


def test_plays_beyond_the_rate_limit_get_429(api, game, monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "plays", "2/minute")

    statuses = [_send(api["bob"], game, ["b23"]).status_code for _ in range(3)]

    assert statuses == [403, 403, 429]
    assert _send(api["alice"], game, ["a23"]).status_code == 201  # the limit is per user


# --- Idempotency ----------------------------------------------------------------------------------


def test_a_play_sent_twice_with_one_idempotency_key_is_played_once(api, game):
    body = {"cards": ["a23"], "choice": None, "expected_version": game.version}
    url = f"/api/games/{game.pk}/plays/"
    first = api["alice"].post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="retry-1")
    after_first = footprint(game)

    second = api["alice"].post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="retry-1")

    assert (first.status_code, second.status_code) == (201, 201)
    assert second["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert second.json() == first.json()
    assert footprint(game) == after_first


def test_one_idempotency_key_on_another_game_gets_409(api, game, charlie):
    other = start(game.player_a, charlie, rules={"first_player": "a"})
    body = {"cards": ["a23"], "choice": None, "expected_version": game.version}
    api["alice"].post(f"/api/games/{game.pk}/plays/", body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    before = footprint(other)

    response = api["alice"].post(
        f"/api/games/{other.pk}/plays/", body, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )

    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_reused"
    assert footprint(other) == before


def test_one_idempotency_key_with_a_different_play_gets_409(api, game):
    url = f"/api/games/{game.pk}/plays/"
    first = {"cards": ["a23"], "choice": None, "expected_version": game.version}
    assert api["alice"].post(url, first, format="json", HTTP_IDEMPOTENCY_KEY="k").status_code == 201
    before = footprint(game)

    response = api["alice"].post(url, {**first, "cards": ["a24"]}, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_reused"
    assert footprint(game) == before


def test_an_idempotency_key_on_an_unknown_game_gets_404(api, game):
    body = {"cards": ["a23"], "choice": None, "expected_version": game.version}
    api["alice"].post(f"/api/games/{game.pk}/plays/", body, format="json", HTTP_IDEMPOTENCY_KEY="k")

    response = api["alice"].post("/api/games/nope/plays/", body, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert response.status_code == 404


# --- Resigning, rematches, series -----------------------------------------------------------------


def test_resigning_ends_the_game_and_the_other_player_wins(api, game):
    response = api["alice"].post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 200
    assert response.json()["status"] == "finished"
    assert response.json()["result"]["winner"] == "b"
    assert response.json()["result"]["winner_username"] == "bob"
    assert response.json()["result"]["reason"] == "resigned"


def test_a_spectator_cannot_resign(api, game):
    before = footprint(game)

    response = api["charlie"].post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player"
    assert footprint(game) == before


def test_a_rematch_is_a_new_challenge_with_the_same_rules(api, alice, bob):
    game = start(alice, bob, rules={"preset": "bsw", "open_scores": True})
    services.game_resign(game=game, user=alice)

    response = api["bob"].post(f"/api/games/{game.pk}/rematch/")

    assert response.status_code == 200
    rematch = Game.objects.get(pk=response.json()["id"])
    assert (rematch.status, rematch.player_a, rematch.player_b) == ("challenge", bob, alice)
    assert rematch.options == game.options
    assert rematch.rematch_of_id == game.pk


def test_asking_for_a_rematch_twice_returns_the_same_game(api, alice, bob):
    game = start(alice, bob)
    services.game_resign(game=game, user=bob)

    first = api["alice"].post(f"/api/games/{game.pk}/rematch/").json()["id"]
    second = api["bob"].post(f"/api/games/{game.pk}/rematch/").json()["id"]

    assert first == second
    assert Game.objects.filter(rematch_of=game).count() == 1


def test_a_rematch_of_a_running_game_gets_409(api, game):
    response = api["alice"].post(f"/api/games/{game.pk}/rematch/")

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_over"
    assert not Game.objects.filter(rematch_of=game).exists()


def test_a_match_series_starts_the_next_game_when_one_ends_and_keeps_standings(api, alice, bob):
    game_id = _create(api["alice"], opponent="bob", series={"kind": "match", "target": 2}).json()["id"]
    api["bob"].post(f"/api/games/{game_id}/accept/")

    services.game_resign(game=Game.objects.get(pk=game_id), user=alice)

    series = Series.objects.get(games__id=game_id)
    assert series.standings["games"] == 1
    assert series.standings["wins"] == {"a": 0, "b": 1}
    assert not series.over
    following = series.games.get(number=2)
    assert (following.status, following.player_a, following.player_b) == ("active", alice, bob)


def test_a_match_series_ends_when_a_player_reaches_the_target(api, alice, bob):
    first = start(alice, bob, series={"kind": "match", "target": 2})
    services.game_resign(game=first, user=alice)

    services.game_resign(game=Game.objects.get(series_id=first.series_id, number=2), user=alice)

    series = Series.objects.get(pk=first.series_id)
    assert (series.over, series.winner) == (True, "b")
    assert series.standings["wins"] == {"a": 0, "b": 2}
    assert series.games.count() == 2


def test_a_sumof_series_stops_after_its_number_of_games(api, alice, bob):
    first = start(alice, bob, series={"kind": "sumof", "target": 2})
    services.game_resign(game=first, user=alice)

    services.game_resign(game=Game.objects.get(series_id=first.series_id, number=2), user=bob)

    series = Series.objects.get(pk=first.series_id)
    assert series.over
    assert series.standings["games"] == 2
    assert series.standings["wins"] == {"a": 1, "b": 1}
    assert series.games.count() == 2


def test_the_second_game_of_a_series_alternates_the_first_seat(api, alice, bob):
    first = start(alice, bob, series={"kind": "match", "target": 3})
    services.game_resign(game=first, user=alice)

    second = Game.objects.get(series_id=first.series_id, number=2)

    assert second.first == ("b" if first.first == "a" else "a")


# --- Events and records -----------------------------------------------------------------------------


def test_events_after_a_sequence_number_come_in_order(api, game):
    play(game, ["a23"])
    play(game, ["b23"])

    response = api["alice"].get(f"/api/games/{game.pk}/events/?after=2")

    assert response.status_code == 200
    assert [e["seq"] for e in response.json()["results"]] == list(range(3, game.version + 1))
    assert response.json()["results"][0]["kind"] == GameEvent.objects.get(game=game, seq=3).kind
    assert response.json()["next"] is None


def test_a_limited_page_of_events_links_to_the_next(api, game):
    play(game, ["a23"])

    page = api["alice"].get(f"/api/games/{game.pk}/events/?after=0&limit=2").json()
    rest = api["alice"].get(page["next"]).json()

    assert [e["seq"] for e in page["results"]] == [1, 2]
    assert "after=2" in page["next"]
    assert [e["seq"] for e in rest["results"]] == [3, 4]


def test_events_of_an_unknown_game_get_404(api):
    response = api["alice"].get("/api/games/nope/events/?after=0")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_the_record_is_refused_while_the_game_runs(api, game):
    response = api["alice"].get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_over"


def test_the_record_of_a_finished_game_replays_to_its_result(api, alice, bob):
    game = start(alice, bob, rules={"preset": "bsw"})
    play_to_end(game)

    record = api["charlie"].get(f"/api/games/{game.pk}/record/")

    assert record.status_code == 200
    assert record.json()["players"] == {"a": "alice", "b": "bob"}
    final, status = replay_document(record.json())
    assert (status, final["over"]) == (0, True)
    assert (final["scores"], final["winner"]) == (game.scores, game.winner or None)


# --- Documentation ------------------------------------------------------------------------------------


def test_the_openapi_schema_documents_the_plays_endpoint(db):
    response = Client().get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "post" in schema["paths"]["/api/games/{game_id}/plays/"]
    assert "409" in schema["paths"]["/api/games/{game_id}/plays/"]["post"]["responses"]


def test_the_api_docs_page_is_html(db):
    response = Client().get("/api/docs/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")


# --- The invite link ------------------------------------------------------------------------------------


def test_an_anonymous_visitor_of_an_invite_is_sent_to_sign_up_and_back(alice):
    game = challenges.game_create(creator=alice, opponent=None)
    invite = f"/invite/{game.invite_token}/"

    response = Client().get(invite)

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/signup/?next={invite}"


def test_a_friend_signs_up_from_an_invite_accepts_it_and_lands_on_the_game(alice):
    game = challenges.game_create(creator=alice, opponent=None)
    invite = f"/invite/{game.invite_token}/"
    browser = Client()
    form = {"username": "dora", "password1": PASSWORD, "password2": PASSWORD, "next": invite}

    signed_up = browser.post("/accounts/signup/", form)
    page = browser.get(invite)
    accepted = browser.post(invite)

    assert (signed_up.status_code, signed_up["Location"]) == (302, invite)
    assert b"alice invites you" in page.content
    assert (accepted.status_code, accepted["Location"]) == (302, f"/games/{game.pk}/")
    game.refresh_from_db()
    assert (game.status, game.player_b and game.player_b.username) == ("active", "dora")
    assert browser.get(accepted["Location"]).status_code == 200


def test_an_unknown_invite_is_404(db):
    assert Client().get("/invite/no-such-token/").status_code == 404


def test_sign_up_does_not_redirect_to_another_site(db):
    form = {"username": "dora", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"}

    response = Client().post("/accounts/signup/", form)

    assert response.status_code == 302
    assert response["Location"] == "/"
