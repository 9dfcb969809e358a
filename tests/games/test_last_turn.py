"""The game page as a table: the last turn in words, the end in sight, the cards named, the
bot's reply as its own step and plays from stale pages."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from engine.cards import CARD_TYPE
from games import challenges, services, tasks
from games.models import Game
from tests.support.api_plays import shown_ids
from tests.support.celery_worker import Queued
from tests.support.tables import play, play_first_legal, snapshot, stack_the_deck, start

# alice opens with a 1-point chest; bob's fire dragon (2) takes it.
A_HAND = ["a00", "a02", "a16", "a23", "a24"]
B_HAND = ["b07", "b01", "b23", "b24", "b25"]


def _browser(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _news(html: str) -> str:
    """The text of the "what just happened" region, tags removed."""
    region = re.search(r'<section class="news".*?</section>', html, re.S)
    assert region, "the page has no news region"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", region.group(0)))


@pytest.fixture
def captured(monkeypatch, alice, bob) -> Game:
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a00"])
    play(game, ["b07"])
    return game


def test_it_tells_the_player_what_the_opponent_just_did_first_on_the_page(captured, alice):
    html = _browser(alice).get(f"/games/{captured.pk}/").content.decode()
    news = _news(html)

    assert 'aria-live="polite"' in html.split('class="news"')[1][:200]
    assert html.index('class="news"') < html.index('class="board"')
    assert "bob, turn 1:" in news
    assert "bob played 1 fire dragon (2)." in news
    assert "bob took 1 card from the treasure chest space" in news
    assert news.index("bob, turn 1") < news.index("Your turn 1")


def test_the_readers_own_turn_is_told_in_the_second_person(captured, alice, bob):
    alice_news = _news(_browser(alice).get(f"/games/{captured.pk}/").content.decode())
    bob_news = _news(_browser(bob).get(f"/games/{captured.pk}/").content.decode())

    assert "Your turn 1: You played 1 treasure chest (1)." in alice_news
    assert "alice played" not in alice_news
    assert (
        "Your turn 1: You played 1 fire dragon (2). You took 1 card from the treasure chest space: 1 point."
        in (bob_news)
    )
    assert "alice, turn 1: alice played 1 treasure chest (1)." in bob_news


def test_each_player_counts_their_own_turns_from_one(captured, alice, bob):
    play(captured, ["a02"])  # alice's second turn, the game's third

    alice_news = _news(_browser(alice).get(f"/games/{captured.pk}/").content.decode())
    bob_news = _news(_browser(bob).get(f"/games/{captured.pk}/").content.decode())

    assert "Your turn 2: You played 1 treasure chest (2)." in alice_news
    assert "bob, turn 1:" in alice_news
    assert "alice, turn 2: alice played 1 treasure chest (2)." in bob_news
    assert "Your turn 1: You played 1 fire dragon (2)." in bob_news
    assert bob_news.index("alice, turn 2") < bob_news.index("Your turn 1")  # the newest first


def test_a_spectator_reads_both_names_each_numbered_on_its_own(captured, charlie):
    news = _news(_browser(charlie).get(f"/games/{captured.pk}/").content.decode())

    assert "bob, turn 1: bob played 1 fire dragon (2). bob took 1 card" in news
    assert "alice, turn 1: alice played 1 treasure chest (1)." in news
    assert "Your turn" not in news
    assert "You played" not in news


def test_the_last_turn_is_told_in_the_pages_language(captured, alice):
    news = _news(_browser(alice, "de").get(f"/games/{captured.pk}/").content.decode())

    assert "bob, Zug 1:" in news
    assert "Feuerdrache" in news
    assert "Dein Zug 1" in news


def test_the_cards_the_last_turn_placed_are_marked_on_the_board(captured, alice):
    html = _browser(alice).get(f"/games/{captured.pk}/").content.decode()

    assert re.search(r'class="card card-fire_dragon fresh"[^>]*data-card="b07"', html)
    assert html.count(" fresh") == 1


def test_the_capture_of_the_last_turn_is_there_to_be_animated_toward_the_taker(captured, alice):
    html = _browser(alice).get(f"/games/{captured.pk}/").content.decode()

    flight = re.search(r'<div class="flight" data-from="(\w+)" data-to="(\w)"[^>]*>(.*?)</div>', html, re.S)
    assert flight is not None
    assert flight.group(1, 2) == ("chest", "b")
    assert re.findall(r'data-card="(\w+)"', flight.group(3)) == ["a00"]


def test_only_the_loser_of_the_dragon_reads_which_card_he_put_back(monkeypatch, alice, bob):
    stack_the_deck(monkeypatch, a=["a11", "a12", "a16", "a23", "a24"], b=["b16", "b23", "b24", "b25", "b26"])
    game = start(alice, bob, rules={"first_player": "a"})
    for cards, choice in ((["a11"], None), (["b16"], "stones"), (["a12"], None), (["b23"], None)):
        play(game, cards, choice)
    play(game, ["a16"], "stones")  # alice takes the dragon from bob, who holds six cards
    returned = game.events.get(kind="dragon_transferred", payload__from="b").payload["returned"]

    bob_news = _news(_browser(bob).get(f"/games/{game.pk}/").content.decode())
    alice_html = _browser(alice).get(f"/games/{game.pk}/").content.decode()

    assert "alice took the Great Dragon from you." in bob_news
    assert "back on top of your draw pile" in bob_news
    assert "back on top of your draw pile" not in _news(alice_html)
    assert "You took the Great Dragon from bob, who put a card back on their pile." in _news(alice_html)
    # As a word: a card id can also be met inside the deal's hexadecimal commitment.
    assert not shown_ids(alice_html, {returned})


def test_the_ship_space_counts_the_voyages_and_the_panels_count_both_draw_piles(captured, alice):
    html = _browser(alice).get(f"/games/{captured.pk}/").content.decode()

    assert "Voyages 0/3" in html
    piles = re.findall(r"Draw pile</span></dt><dd>(\d+)</dd>", html)
    assert piles == ["44", "44"]


def _to_the_last_turn(game: Game) -> Game:
    for _ in range(400):
        game.refresh_from_db()
        if snapshot(game)["last_turn"] is not None:
            return game
        play_first_legal(game)
    raise AssertionError("no end was scheduled")


def test_the_player_whose_next_turn_is_the_last_is_told_so_before_playing(alice, bob):
    game = _to_the_last_turn(start(alice, bob))
    mover, waiting = (alice, bob) if game.to_move == "a" else (bob, alice)
    assert game.status == Game.Status.ACTIVE
    assert snapshot(game)["last_turn"] == snapshot(game)["turn"] + 1

    assert "This is your last turn: the game ends after it." in _news(
        _browser(mover).get(f"/games/{game.pk}/").content.decode()
    )
    assert "you do not play again" in _news(_browser(waiting).get(f"/games/{game.pk}/").content.decode())


def test_the_last_turn_announced_in_the_news_is_numbered_as_its_player_counts_turns(alice, bob):
    game = _to_the_last_turn(start(alice, bob, rules={"first_player": "a"}))
    last = snapshot(game)["last_turn"]
    mover = alice if game.to_move == "a" else bob
    own = (last + 1) // 2 if game.to_move == "a" else last // 2  # alice began

    news = _news(_browser(mover).get(f"/games/{game.pk}/").content.decode())

    assert f"your turn {own} will be the last of the game." in news
    assert f"turn {last} will be the last" not in news  # not the game's count


def test_no_end_notice_while_no_end_is_scheduled(captured, alice):
    news = _news(_browser(alice).get(f"/games/{captured.pk}/").content.decode())
    assert "last turn" not in news.lower()
    assert "ends after" not in news


@pytest.mark.parametrize(
    ("last", "turn", "to_move", "me", "said"),
    [
        (11, 10, "a", "a", "This is your last turn"),  # a plays turn 11, the last
        (11, 10, "b", "a", "you do not play again"),  # b plays turn 11, the last
        (11, 9, "b", "a", "Your next turn is your last"),  # b plays 10, a the last, 11
        # Farther off, the last turn is named as the news box numbers turns: each player's own.
        (11, 8, "a", "a", "The game ends after your turn 6."),  # a began: 11 is her 6th
        (12, 7, "b", "a", "The game ends after bob's turn 6."),  # 12 is bob's 6th
        (12, 7, "b", None, "bob's turn 6 is the last of the game."),
    ],
)
def test_the_end_notice_counts_turns_as_the_engine_does(last, turn, to_move, me, said):
    from games.table import end_notice

    view = {"last_turn": last, "turn": turn, "status": "active", "to_move": to_move}
    with translation.override("en"):  # outside a request: whatever an earlier test left active
        assert said in end_notice(view, me, {"a": "alice", "b": "bob"})


def test_every_card_is_named_as_the_edition_names_it_with_its_value(captured, alice):
    english = _browser(alice).get(f"/games/{captured.pk}/").content.decode()
    german = _browser(alice, "de").get(f"/games/{captured.pk}/").content.decode()

    assert re.search(r'aria-label="Fire dragon 2" data-card="b07"><title>Fire dragon 2</title>', english)
    assert re.search(r'aria-label="Feuerdrache 2" data-card="b07"><title>Feuerdrache 2</title>', german)
    labels = re.findall(
        r'<svg class="card [^"]*" viewBox="0 0 60 84" role="img" aria-label="([^"]+)"', english
    )
    assert labels
    assert all(re.fullmatch(r"[A-Z][a-z ]+ \d|Ship", label) for label in labels)


def test_every_space_shows_the_symbols_of_what_it_takes_even_when_empty(alice, bob):
    game = start(alice, bob)
    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()
    spaces = dict(re.findall(r'data-space="(\w+)" data-free.*?<header>(.*?)</header>', html, re.S))

    assert re.findall(r"#sym-(\w+)", spaces["princess"]) == ["princess", "arrow", "chest", "stone_dragon"]
    assert re.findall(r"#sym-(\w+)", spaces["hero"]) == ["hero", "arrow", "princess", "troll"]
    assert re.findall(r"#sym-(\w+)", spaces["fire_dragon"]) == ["fire_dragon", "arrow", "chest"]


def test_the_princess_prompt_says_what_each_choice_takes(monkeypatch, alice, bob):
    stack_the_deck(monkeypatch, a=["a03", "a16", "a11", "a23", "a24"], b=["b05", "b12", "b23", "b24", "b25"])
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a03"])  # chest 2
    play(game, ["b05"])  # chest 3
    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()

    assert "the treasure chests</span>" not in html  # the counts follow the words
    assert re.search(r'value="chests"> the treasure chests <span class="muted">\(2 cards, 5 points\)', html)
    assert re.search(r'value="stones">[^<]*<span class="muted">\(0 cards, 0 points\)', html)


def test_the_hand_is_grouped_by_type_in_board_order(monkeypatch, alice, bob):
    stack_the_deck(monkeypatch, a=["a23", "a00", "a24", "a16", "a01"], b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()
    groups = re.findall(
        r'<span class="hand-group">(.*?)</span>\s*(?=<span class="hand-group">|\s*</fieldset>)', html, re.S
    )

    ids = [re.findall(r'name="cards" value="(\w+)"', g) for g in groups]
    assert ids == [["a00", "a01"], ["a16"], ["a23", "a24"]]


def test_a_play_from_a_stale_page_changes_nothing_and_shows_the_position_now(captured, alice):
    captured.refresh_from_db()
    old = captured.version - 3  # the page alice had open before bob's play
    response = _browser(alice).post(
        f"/games/{captured.pk}/play/", {"cards": ["a02"], "expected_version": old}
    )
    html = response.content.decode()

    assert response.status_code == 409
    assert "The game moved on: here is the position now." in _news(html)
    assert f'name="expected_version" value="{captured.version}"' in html
    assert Game.objects.get(pk=captured.pk).version == captured.version


def test_a_page_on_your_turn_polls_too_so_a_turn_played_elsewhere_reloads_it(captured, alice):
    page = _browser(alice)
    html = page.get(f"/games/{captured.pk}/").content.decode()
    captured.refresh_from_db()
    seen = captured.version
    assert f'hx-get="/games/{captured.pk}/poll/?version={seen}"' in html
    assert page.get(f"/games/{captured.pk}/poll/?version={seen}").status_code == 204

    # alice's turn is played elsewhere (another tab, the API): the same call the API makes.
    services.game_play(game=captured, user=alice, cards=["a02"], choice=None, expected_version=seen)

    reloaded = page.get(f"/games/{captured.pk}/poll/?version={seen}")
    assert reloaded.status_code == 200
    assert reloaded["HX-Refresh"] == "true"


def _bot_game(alice: Any) -> Game:
    return challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "a"})


def _plain_card(game: Game) -> str:
    """A card of alice's hand whose play needs no choice."""
    hand: list[str] = snapshot(game)["hands"]["a"]
    return next(c for c in hand if CARD_TYPE[c] not in ("princess", "hero"))


def _bot_turns(queued: Queued) -> list[tuple[tuple[Any, ...], float]]:
    return [(args, countdown) for task, args, countdown in queued if task == services.BOT_TURN_TASK]


def test_a_page_play_against_the_bot_leaves_its_reply_to_a_worker_after_the_delay(
    settings, alice, queued, django_capture_on_commit_callbacks
):
    settings.BOT_MOVE_DELAY_SECONDS = 2
    game = _bot_game(alice)
    card = _plain_card(game)
    page = _browser(alice)
    with django_capture_on_commit_callbacks(execute=True):
        page.post(f"/games/{game.pk}/play/", {"cards": [card], "expected_version": 1})
    game.refresh_from_db()

    assert game.to_move == "b"  # the player sees their own play first
    assert _bot_turns(queued) == [((game.pk,), 2)]
    assert page.get(f"/games/{game.pk}/poll/?version={game.version}").status_code == 204
    assert Game.objects.get(pk=game.pk).version == game.version


def test_the_poll_never_plays_the_bots_turn_the_worker_plays_it_once_and_the_poll_brings_it(
    settings, alice, queued, django_capture_on_commit_callbacks
):
    settings.BOT_MOVE_DELAY_SECONDS = 2
    game = _bot_game(alice)
    page = _browser(alice)
    with django_capture_on_commit_callbacks(execute=True):
        page.post(f"/games/{game.pk}/play/", {"cards": [_plain_card(game)], "expected_version": 1})
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=3))

    overdue = page.get(f"/games/{game.pk}/poll/?version={game.version}")
    assert overdue.status_code == 204  # due, and still the worker's to play
    assert Game.objects.get(pk=game.pk).to_move == "b"
    [((game_id,), _countdown)] = _bot_turns(queued)
    assert tasks.play_bot_turn(game_id) is True
    assert tasks.play_bot_turn(game_id) is False  # delivered twice, played once
    after = Game.objects.get(pk=game.pk)
    first = page.get(f"/games/{game.pk}/poll/?version={game.version}")

    assert first["HX-Refresh"] == "true"
    assert after.to_move == "a"
    assert after.version > game.version
    assert page.get(f"/games/{game.pk}/poll/?version={after.version}").status_code == 204
    assert "Computer (greedy) BOT , turn 1:" in _news(page.get(f"/games/{game.pk}/").content.decode())


def test_an_api_play_against_the_bot_queues_its_reply_as_a_page_play_does(
    settings, alice, queued, django_capture_on_commit_callbacks
):
    settings.BOT_MOVE_DELAY_SECONDS = 2
    game = _bot_game(alice)
    card = _plain_card(game)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_play(game=game, user=alice, cards=[card], choice=None, expected_version=1)

    assert Game.objects.get(pk=game.pk).to_move == "b"
    assert _bot_turns(queued) == [((game.pk,), 2)]


def test_where_tasks_run_at_once_the_bot_answers_within_the_play(
    settings, alice, django_capture_on_commit_callbacks
):
    settings.BOT_MOVE_DELAY_SECONDS = 2  # ignored by Celery's eager mode (the unit tests')
    game = _bot_game(alice)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_play(game=game, user=alice, cards=[_plain_card(game)], choice=None, expected_version=1)

    assert Game.objects.get(pk=game.pk).to_move == "a"


def test_resigning_asks_on_the_page_in_its_language_before_it_posts(captured, alice):
    html = _browser(alice, "de").get(f"/games/{captured.pk}/").content.decode()
    asked = re.search(r'<details class="resign".*?</details>', html, re.S)

    assert asked is not None
    assert "<summary>Aufgeben</summary>" in asked.group(0)
    assert "Dieses Spiel aufgeben?" in asked.group(0)
    assert f'<form method="post" action="/games/{captured.pk}/resign/"' in asked.group(0)
    assert 'name="csrfmiddlewaretoken"' in asked.group(0)
    assert "data-confirm" not in html


def test_the_question_is_only_for_the_players_of_a_running_game(captured, charlie):
    assert 'class="resign"' not in _browser(charlie).get(f"/games/{captured.pk}/").content.decode()


def test_yes_resign_posts_to_the_same_endpoint_and_ends_the_game(captured, alice):
    response = _browser(alice).post(f"/games/{captured.pk}/resign/")

    assert response.status_code == 302
    captured.refresh_from_db()
    assert captured.status == Game.Status.FINISHED
    assert captured.winner == "b"
