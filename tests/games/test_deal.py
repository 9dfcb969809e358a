"""Deals anyone can verify, as the service publishes them: the commitment from the first turn
(game view, game page), the salt nowhere until the end, then the record carries both and
``python -m engine verify-deal`` and the game page confirm the decks played."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from engine import deal
from games import challenges, services
from games.models import Game, GameEvent
from tests.support.api_plays import hidden_ids
from tests.support.tables import play_first_legal, play_to_end, stack_the_deck, start

ROOT = Path(__file__).resolve().parents[2]
APPS = ("core", "accounts", "outbox", "games", "notifications", "dragonheart_site", "templates")


def _browser(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _verify_deal(tmp_path: Path, record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "verify-deal", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def _dealt_decks(game: Game) -> dict[str, list[str]]:
    decks: dict[str, list[str]] = GameEvent.objects.get(game=game, seq=1).payload["decks"]
    return decks


def _game_before_deals(alice: Any, bob: Any) -> Game:
    """A game as one started before deals were committed: no commitment, no salt."""
    game = start(alice, bob)
    Game.objects.filter(pk=game.pk).update(deal_commitment="", deal_salt="")
    return Game.objects.get(pk=game.pk)


# --- The start ---------------------------------------------------------------------------------


def test_a_new_game_commits_to_its_decks_under_a_secret_salt(alice, bob):
    game = start(alice, bob)

    salt = bytes.fromhex(game.deal_salt)
    assert len(salt) == deal.SALT_BYTES
    assert game.deal_commitment == deal.commitment(_dealt_decks(game), salt)


def test_the_same_deck_stacked_twice_still_gets_two_salts(monkeypatch, alice, bob):
    stack_the_deck(monkeypatch, a=["a00"], b=["b00"])
    one, two = start(alice, bob), start(alice, bob)

    assert _dealt_decks(one) == _dealt_decks(two)
    assert one.deal_salt != two.deal_salt
    assert one.deal_commitment != two.deal_commitment


@pytest.mark.parametrize("name", ["alice", "bob", "charlie"])
def test_the_game_view_shows_the_commitment_and_no_salt_from_the_first_turn(api, alice, bob, name):
    game = start(alice, bob)

    view = api[name].get(f"/api/games/{game.pk}/").json()

    assert view["deal"] == {"commitment": game.deal_commitment, "salt": None}


def test_a_challenge_not_yet_accepted_has_no_deal(api, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")

    view = api["alice"].get(f"/api/games/{game.pk}/").json()

    assert view["status"] == "challenge"
    assert view["deal"] is None


@pytest.mark.parametrize("name", ["alice", "bob", "charlie"])
def test_the_game_page_shows_the_commitment_and_what_it_promises(alice, bob, charlie, name):
    game = start(alice, bob)
    people = {"alice": alice, "bob": bob, "charlie": charlie}

    html = _browser(people[name]).get(f"/games/{game.pk}/").content.decode()

    deal_part = re.search(r'<details class="deal".*?</details>', html, re.S)
    assert deal_part is not None
    assert game.deal_commitment in deal_part.group()
    assert "The decks were fixed before the first play" in deal_part.group()
    assert "verify-deal" not in deal_part.group()


# --- The salt stays secret while the game runs -----------------------------------------------


def _every_read(api: dict[str, Any], people: dict[str, Any], game: Game) -> list[tuple[str, str]]:
    """(what, body) of every page and API answer a player, the opponent or a spectator can
    read about a running game."""
    url = f"/api/games/{game.pk}/"
    bodies = []
    for name, user in people.items():
        client, browser = api[name], _browser(user)
        for what, response in (
            ("view", client.get(url)),
            ("events", client.get(f"{url}events/?after=0&limit=500")),
            ("list", client.get("/api/games/?mine=1")),
            ("record", client.get(f"{url}record/")),
            ("game page", browser.get(f"/games/{game.pk}/")),
            ("history", browser.get(f"/games/{game.pk}/history/")),
            ("history at the deal", browser.get(f"/games/{game.pk}/history/?turn=0")),
            ("poll", browser.get(f"/games/{game.pk}/poll/?version=0")),
            ("lobby", browser.get("/")),
            ("profile", browser.get("/accounts/profile/")),
            ("rules of the game", browser.get(f"/how-to-play/?game={game.pk}")),
        ):
            bodies.append((f"{name}'s {what}", response.content.decode()))
    return bodies


def test_the_salt_is_in_no_page_answer_or_email_while_the_game_runs(
    api, alice, bob, charlie, django_capture_on_commit_callbacks
):
    people = {"alice": alice, "bob": bob, "charlie": charlie}
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game = start(alice, bob)
        for _ in range(6):
            play_first_legal(game)
    salt = Game.objects.get(pk=game.pk).deal_salt
    reads = _every_read(api, people, game)
    emails = [m.message().as_string() for m in mail.outbox]

    assert len(salt) == 64
    assert game.deal_commitment in dict(reads)["charlie's view"]  # the scan reads real answers
    assert emails
    assert [what for what, body in reads if salt in body] == []
    assert [e for e in emails if salt in e] == []


def test_the_salt_is_read_by_one_method_of_the_game_alone():
    """Every way out for the salt goes through Game.revealed_deal, which gives it only once
    the game is over: no other code of the service names the column (its writer at the start
    and the admin's exclusion apart)."""
    allowed = {"games/models.py", "games/services.py", "games/admin.py"}
    named = {
        str(path.relative_to(ROOT))
        for app in APPS
        for path in (ROOT / app).rglob("*")
        if path.suffix in (".py", ".html", ".txt", ".js")
        and "migrations" not in path.parts
        and "deal_salt" in path.read_text(encoding="utf-8")
    }

    assert "games/models.py" in named
    assert named <= allowed
    model = (ROOT / "games/models.py").read_text(encoding="utf-8")
    assert model.count("self.deal_salt") == 1


def test_the_scan_would_find_the_salt_where_it_is_shown(api, alice, bob):
    game = start(alice, bob)
    play_to_end(game)

    record = api["alice"].get(f"/api/games/{game.pk}/record/").content.decode()
    page = _browser(alice).get(f"/games/{game.pk}/").content.decode()

    assert game.deal_salt in record
    assert game.deal_salt in page


def test_no_hidden_card_is_in_the_deal_part_of_the_page(alice, bob, charlie):
    game = start(alice, bob)
    for _ in range(4):
        play_first_legal(game)
    html = _browser(charlie).get(f"/games/{game.pk}/").content.decode()
    deal_part = re.search(r'<details class="deal".*?</details>', html, re.S)

    assert deal_part is not None
    assert not set(re.findall(r"(?<![\w#-])[ab]\d\d(?![\w-])", deal_part.group())) & hidden_ids(game.pk, None)


# --- The end -----------------------------------------------------------------------------------


def _resigned(alice: Any, bob: Any) -> Game:
    game = start(alice, bob)
    play_first_legal(game)
    services.game_resign(game=game, user=bob)
    return game


def _timed_out(alice: Any, bob: Any) -> Game:
    game = start(alice, bob, days_per_turn=1)
    play_first_legal(game)
    services.game_time_out(game=Game.objects.get(pk=game.pk))
    return game


def _aborted(alice: Any, bob: Any) -> Game:
    game = start(alice, bob, days_per_turn=1)
    services.game_time_out(game=game)
    return game


def _played_out(alice: Any, bob: Any) -> Game:
    game = start(alice, bob, rules={"preset": "bsw"})
    play_to_end(game)
    return game


def _against_the_bot(alice: Any, bob: Any) -> Game:
    game = challenges.game_create(creator=alice, opponent="bot:random", rules={"first_player": "a"})
    game = Game.objects.get(pk=game.pk)
    while game.status == Game.Status.ACTIVE:
        if game.to_move == "a":
            play_first_legal(game)
        else:
            services.bot_play_turn(game_id=game.pk)
        game = Game.objects.get(pk=game.pk)
    return game


def _second_of_a_series(alice: Any, bob: Any) -> Game:
    first = start(alice, bob, series={"kind": "match", "target": 2})
    play_to_end(first)
    game = Game.objects.filter(series=first.series).order_by("-number").first()
    assert game is not None
    assert (game.number, game.status) == (2, Game.Status.ACTIVE)
    play_to_end(game)
    return game


ENDINGS = {
    "played out": _played_out,
    "resigned": _resigned,
    "timed out": _timed_out,
    "aborted before the first play": _aborted,
    "against the bot": _against_the_bot,
    "second game of a series": _second_of_a_series,
}


@pytest.mark.parametrize("ending", ENDINGS)
def test_every_finished_games_record_carries_the_salt_and_verify_deal_accepts_it(
    api, alice, bob, tmp_path, ending
):
    game = ENDINGS[ending](alice, bob)
    commitment = api["alice"].get(f"/api/games/{game.pk}/").json()["deal"]["commitment"]

    record = api["charlie"].get(f"/api/games/{game.pk}/record/").json()
    status, line = _verify_deal(tmp_path, record)

    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert record["deal"] == {"salt": game.deal_salt, "commitment": commitment}
    assert (status, line) == (0, {"deal": "ok", "commitment": commitment})


def test_verify_deal_refuses_the_record_with_one_card_of_a_deck_moved(api, alice, bob, tmp_path):
    game = _resigned(alice, bob)
    record = api["alice"].get(f"/api/games/{game.pk}/record/").json()
    deck = record["decks"]["b"]
    deck[10], deck[11] = deck[11], deck[10]

    status, line = _verify_deal(tmp_path, record)

    assert status == 1
    assert line["deal"] == "mismatch"
    assert line["commitment"] == game.deal_commitment != line["computed"]


def test_the_commitment_published_at_the_start_is_the_one_checked_at_the_end(api, alice, bob, tmp_path):
    """A whole game through the API: the commitment of the first view never changes, no
    answer carries the salt until the end, and then the record opens that same commitment."""
    game = start(alice, bob)
    published = api["charlie"].get(f"/api/games/{game.pk}/").json()["deal"]["commitment"]
    salt = Game.objects.get(pk=game.pk).deal_salt
    while Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE:
        for name in ("alice", "bob", "charlie"):
            view = api[name].get(f"/api/games/{game.pk}/")
            events = api[name].get(f"/api/games/{game.pk}/events/?limit=500")
            assert view.json()["deal"] == {"commitment": published, "salt": None}
            assert salt not in view.content.decode() + events.content.decode()
        play_first_legal(Game.objects.get(pk=game.pk))

    record = api["bob"].get(f"/api/games/{game.pk}/record/").json()
    status, line = _verify_deal(tmp_path, record)

    assert api["bob"].get(f"/api/games/{game.pk}/").json()["deal"] == {"commitment": published, "salt": salt}
    assert record["deal"]["commitment"] == published
    assert (status, line["deal"], line["commitment"]) == (0, "ok", published)


@pytest.mark.parametrize("name", ["alice", "charlie"])
def test_the_page_of_a_finished_game_says_the_deal_checks_out_and_how_to_check_it(alice, bob, charlie, name):
    game = _resigned(alice, bob)
    people = {"alice": alice, "charlie": charlie}

    html = _browser(people[name]).get(f"/games/{game.pk}/").content.decode()

    assert "✓ The deal checks out." in html
    assert "the decks played are the ones committed to" in html
    assert game.deal_salt in html
    assert f"python -m engine verify-deal dragonheart-{game.pk}.json" in re.sub(r"<[^>]+>", "", html)
    assert f'href="/api/games/{game.pk}/record/"' in html


def test_the_page_says_so_when_the_deal_does_not_check_out(alice, bob):
    game = _resigned(alice, bob)
    Game.objects.filter(pk=game.pk).update(deal_commitment="0" * 64)

    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()

    assert "✗ The deal does not check out." in html
    assert "✓" not in html


def test_the_page_says_so_when_the_salt_is_damaged(alice, bob):
    game = _resigned(alice, bob)
    Game.objects.filter(pk=game.pk).update(deal_salt="not hex")

    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()

    assert "✗ The deal does not check out." in html


# --- Games started before deals were committed -----------------------------------------------


def test_a_game_from_before_deals_makes_no_claim_in_the_api(api, alice, bob):
    game = _game_before_deals(alice, bob)
    play_first_legal(game)

    view = api["charlie"].get(f"/api/games/{game.pk}/")

    assert view.status_code == 200
    assert view.json()["deal"] is None


def test_a_game_from_before_deals_makes_no_claim_on_its_page_running_or_over(alice, bob):
    game = _game_before_deals(alice, bob)
    browser = _browser(alice)
    running = browser.get(f"/games/{game.pk}/")
    services.game_resign(game=Game.objects.get(pk=game.pk), user=bob)

    over = browser.get(f"/games/{game.pk}/")

    assert (running.status_code, over.status_code) == (200, 200)
    for page in (running, over):
        html = page.content.decode()
        assert 'class="deal' not in html
        assert "The deal" not in html


def test_the_record_of_a_game_from_before_deals_has_no_deal_and_replays_as_before(api, alice, bob, tmp_path):
    game = _game_before_deals(alice, bob)
    services.game_resign(game=game, user=bob)

    record = api["alice"].get(f"/api/games/{game.pk}/record/").json()
    status, line = _verify_deal(tmp_path, record)

    assert "deal" not in record
    assert (status, line["deal"]) == (1, "none")
