"""The history page steps one turn at a time: the deal, then each turn with its play and all it
caused; old event links, "since your last turn", the seats' order, the clock and the cards each
viewer may see at every step."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import events as ev
from engine.replay import fold
from games import event_log, history, services, vacations
from games.models import Game, GameEvent
from tests.support.api_plays import hidden_ids
from tests.support.tables import play, play_first_legal, play_to_end, stack_the_deck, start

# A card id standing alone, as in test_hidden_cards: not inside a game id or token, nor a colour.
CARD_ID = re.compile(r"(?<![\w#-])[ab]\d\d(?![\w-])")
# SVG path data ("a10 10 0 0 1 …" is an arc) is drawing, not a card: left out of the scan.
PATH_DATA = re.compile(r'\sd="[^"]*"')
CLOCK = re.compile(r"(days?|hours?|minutes?) left")


def _played(alice: Any, bob: Any, plays: int, **extra: Any) -> Game:
    game = start(alice, bob, **extra)
    for _ in range(plays):
        play_first_legal(game)
    return game


def _page(client: Any, user: Any, game: Game, query: str = "") -> Any:
    client.force_login(user)
    response = client.get(f"/games/{game.pk}/history/{query}")
    assert response.status_code == 200
    return response


def _section(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end, html.index(start))]


def _cards_in(html: str) -> set[str]:
    return set(CARD_ID.findall(PATH_DATA.sub("", html)))


def _openers(game: Game, up_to: int | None = None) -> int:
    """How many turns had begun by event ``up_to``: counted on the stored rows, not by the page."""
    rows = GameEvent.objects.filter(game=game, kind__in=[ev.CARDS_PLAYED, ev.TURN_PASSED])
    return rows.filter(seq__lte=up_to).count() if up_to is not None else rows.count()


def _hidden_at(log: list[dict[str, Any]], end: int, seat: str | None) -> set[str]:
    """What ``seat`` may not see in the position after ``log[:end]``: every draw pile and every
    hand but its own, folded from the log by the engine alone."""
    state = fold(log[:end])
    hidden = set(state.piles["a"]) | set(state.piles["b"])
    for other in ("a", "b"):
        if other != seat:
            hidden |= set(state.hands[other])
    return hidden


def test_it_steps_through_the_deal_and_then_one_turn_at_a_time(client, alice, bob):
    game = _played(alice, bob, 12)
    page = _page(client, alice, game)
    assert page.context["last"] == 12 == _openers(game)
    assert [t["number"] for t in page.context["turns"]] == list(range(13))
    assert "turn 12 of 12" in page.content.decode()


def test_each_step_shows_the_board_after_that_whole_turn(client, alice, bob):
    game = _played(alice, bob, 8)
    ends = list(GameEvent.objects.filter(game=game, kind=ev.TURN_ENDED).order_by("seq"))
    for number, end in enumerate(ends, start=1):
        view = _page(client, alice, game, f"?turn={number}").context["view"]
        assert (view["turn"], view["version"]) == (number, end.seq)


def test_a_turn_is_its_play_with_everything_it_caused_from_the_play_to_its_end(alice, bob):
    game = _played(alice, bob, 0)
    play_to_end(game)
    log = event_log.read_log(game)
    turns = history.turns_of(log)
    assert [e for t in turns for e in log[t.start : t.end]] == log
    assert log[turns[0].start]["kind"] == ev.GAME_STARTED
    for turn in turns[1:]:
        events = log[turn.start : turn.end]
        assert events[0]["kind"] in (ev.CARDS_PLAYED, ev.TURN_PASSED)
        ended = [e for e in events if e["kind"] == ev.TURN_ENDED]
        assert ended == [{**ended[0], "seat": turn.seat, "turn": turn.number}]
        assert {e["kind"] for e in events[events.index(ended[0]) + 1 :]} <= {ev.GAME_ENDED}
    assert log[-1]["kind"] == ev.GAME_ENDED
    assert log.index(log[-1]) in range(turns[-1].start, turns[-1].end)


def test_a_vacation_and_a_resignation_are_told_with_the_turn_they_follow(client, alice, bob):
    game = _played(alice, bob, 3)
    vacations.vacation_start(user=game.player(game.to_move), days=2)
    play_first_legal(Game.objects.get(pk=game.pk))
    services.game_resign(game=Game.objects.get(pk=game.pk), user=alice)
    page = _page(client, bob, game, "?turn=3")
    assert page.context["last"] == 4 == _openers(game)
    assert "is away until" in page.context["lines"][-1]
    assert "Game over (resignation)" in _page(client, bob, game).context["lines"][-1]


def test_the_current_turn_lists_its_play_captures_and_draw_together(client, alice, bob):
    game = _played(alice, bob, 30)
    captured = GameEvent.objects.filter(game=game, kind=ev.CARDS_CAPTURED).order_by("seq").first()
    assert captured is not None, "no capture in 30 plays of this seeded deal"
    number = _openers(game, captured.seq)
    html = _page(client, alice, game, f"?turn={number}").content.decode()
    current = _section(html, 'class="current"', "</section>")
    mover = game.player_name(captured.payload["seat"])
    assert re.search(rf"{mover} played .*{mover} took \d+ cards? from .*{mover} drew 1 card", current, re.S)
    in_turn = GameEvent.objects.filter(game=game, seq__in=_turn_seqs(game, number))
    assert current.count("<li>") == in_turn.exclude(kind=ev.TURN_ENDED).count()


def _turn_seqs(game: Game, number: int) -> list[int]:
    """The event numbers of turn ``number``: from its play to its turn_ended, by the rows."""
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    plays = [r.seq for r in rows if r.kind in (ev.CARDS_PLAYED, ev.TURN_PASSED)]
    end = next(r.seq for r in rows if r.kind == ev.TURN_ENDED and r.payload["turn"] == number)
    return list(range(plays[number - 1], end + 1))


def test_the_log_marks_the_current_turn_and_lists_every_turn(client, alice, bob):
    game = _played(alice, bob, 10)
    html = _page(client, alice, game, "?turn=4").content.decode()
    log = _section(html, 'id="log"', "</ol>")
    assert log.count('aria-current="step"') == 1
    assert re.search(r'<li class="now" aria-current="step"><a href="\?turn=4">', log)
    assert [int(n) for n in re.findall(r'<a href="\?turn=(\d+)"', log)] == list(range(11))


def _last_own_turn(game: Game, seat: str) -> int:
    ends = GameEvent.objects.filter(game=game, kind=ev.TURN_ENDED)
    return max(int(r.payload["turn"]) for r in ends if r.payload["seat"] == seat)


def test_since_your_last_turn_opens_at_the_turn_after_it(client, alice, bob):
    game = _played(alice, bob, 5)
    mover = game.player(game.to_move)
    assert _page(client, mover, game, "?since=1").context["step"] == _last_own_turn(game, game.to_move) + 1


def test_since_your_last_turn_opens_at_your_own_turn_when_nothing_came_after(client, alice, bob):
    game = _played(alice, bob, 5)
    seat = "a" if game.to_move == "b" else "b"
    assert (
        _page(client, game.player(seat), game, "?since=1").context["step"] == _last_own_turn(game, seat) == 5
    )


def test_since_your_last_turn_opens_at_the_deal_before_your_first_turn(client, alice, bob):
    game = _played(alice, bob, 1)
    waiting = game.player(game.to_move)  # to move, and yet to play a turn
    assert _page(client, waiting, game, "?since=1").context["step"] == 0


def test_an_old_event_link_opens_the_turn_holding_that_event(client, alice, bob):
    game = _played(alice, bob, 6)
    client.force_login(alice)
    for seq in range(1, game.version + 1):
        response = client.get(f"/games/{game.pk}/history/?step={seq}")
        assert response.status_code == 200
        assert response.context["step"] == _openers(game, seq), seq


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?turn=-3", 0),
        ("?turn=99", 6),
        ("?turn=two", 6),
        ("?step=0", 0),
        ("?step=999", 6),
        ("?step=x", 6),
        ("", 6),
    ],
)
def test_a_step_out_of_range_or_unreadable_opens_an_end(client, alice, bob, query, expected):
    game = _played(alice, bob, 6)
    assert _page(client, alice, game, query).context["step"] == expected


def test_only_the_live_position_shows_the_time_left(client, alice, bob):
    game = _played(alice, bob, 6, days_per_turn=3)
    assert Game.objects.get(pk=game.pk).deadline is not None
    for number in range(6):
        html = _page(client, alice, game, f"?turn={number}").content.decode()
        assert not CLOCK.search(html), f"turn {number} shows a deadline"
    assert CLOCK.search(_page(client, alice, game, "?turn=6").content.decode())


def test_a_finished_game_shows_no_time_left_at_its_last_step(client, alice, bob):
    game = _played(alice, bob, 0, days_per_turn=3)
    play_to_end(game)
    assert not CLOCK.search(_page(client, alice, game).content.decode())


@pytest.mark.parametrize(
    ("viewer", "above", "below"),
    [("alice", "bob", "alice"), ("bob", "alice", "bob"), ("charlie", "bob", "alice")],
)
def test_the_viewers_own_seat_is_below_the_board(client, alice, bob, charlie, viewer, above, below):
    game = _played(alice, bob, 4)
    user = {"alice": alice, "bob": bob, "charlie": charlie}[viewer]
    page = _page(client, user, game, "?turn=2")
    seats = page.context["seats"]
    assert (seats["top"]["player"]["username"], seats["bottom"]["player"]["username"]) == (above, below)
    table = _section(page.content.decode(), 'class="history-table"', 'class="history-log"')
    board = table.index('class="board"')
    assert above in table[:board]
    assert below not in table[:board]
    assert below in table[board:]
    assert above not in table[board:]


def _dragon_lost_with_a_card_put_back(monkeypatch: Any, alice: Any, bob: Any) -> Game:
    """Bob wins the dragon, then Alice takes it from him while he holds six cards: he puts one
    back on his pile, which only he may know (RULES.md R1.7.4); then the game goes on."""
    stack_the_deck(monkeypatch, a=["a11", "a12", "a16", "a23", "a24"], b=["b16", "b23", "b24", "b25", "b26"])
    game = start(alice, bob, rules={"first_player": "a"})
    for cards, choice in ((["a11"], None), (["b16"], "stones"), (["a12"], None), (["b23"], None)):
        play(game, cards, choice)
    play(game, ["a16"], "stones")
    for _ in range(8):
        play_first_legal(game)
    return game


@pytest.mark.parametrize("setup", ["a seeded deal", "the dragon changing hands"])
def test_no_step_shows_a_card_hidden_from_its_viewer_at_that_step(
    client, alice, bob, charlie, monkeypatch, setup
):
    if setup == "a seeded deal":
        game = _played(alice, bob, 24)
    else:
        game = _dragon_lost_with_a_card_put_back(monkeypatch, alice, bob)
        assert GameEvent.objects.filter(game=game, kind=ev.DRAGON_TRANSFERRED).exclude(payload__returned=None)
    log = event_log.read_log(game)
    turns = history.turns_of(log)
    for user, seat in ((alice, "a"), (bob, "b"), (charlie, None)):
        now_hidden = hidden_ids(game.pk, seat)
        for turn in turns:
            shown = _cards_in(_page(client, user, game, f"?turn={turn.number}").content.decode())
            assert not shown & _hidden_at(log, turn.end, seat), f"turn {turn.number} to {user}"
            assert not shown & now_hidden, f"turn {turn.number} to {user}"


def test_a_player_sees_their_own_hand_of_that_step(client, alice, bob):
    game = _played(alice, bob, 6)
    log = event_log.read_log(game)
    for turn in history.turns_of(log):
        shown = _cards_in(_page(client, bob, game, f"?turn={turn.number}").content.decode())
        assert set(fold(log[: turn.end]).hands["b"]) <= shown


def test_at_the_end_every_card_of_every_step_is_revealed_to_everyone(client, alice, bob, charlie):
    game = _played(alice, bob, 0)
    play_to_end(game)
    log = event_log.read_log(game)
    turns = history.turns_of(log)
    for user in (alice, bob, charlie):
        for turn in [*turns[:: max(1, len(turns) // 8)], turns[-1]]:
            state = fold(log[: turn.end])
            every = set(state.hands["a"] + state.hands["b"] + state.piles["a"] + state.piles["b"])
            shown = _cards_in(_page(client, user, game, f"?turn={turn.number}").content.decode())
            assert every <= shown, f"turn {turn.number} to {user}: {sorted(every - shown)}"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("de", ["Das Austeilen", "Zug 2: ", "Alle Züge", "Zug 3 von 3"]),
        ("es", ["El reparto", "Turno 2: ", "Todos los turnos", "turno 3 de 3"]),
        ("fr", ["La donne", "Tour 2 : ", "Tous les tours", "tour 3 sur 3"]),
        ("uk", ["Роздача", "Хід 2: ", "Усі ходи", "хід 3 з 3"]),
    ],
)
def test_the_turns_are_named_in_the_page_language(client, alice, bob, lang, words):
    game = _played(alice, bob, 3)
    client.force_login(alice)
    html = client.get(f"/games/{game.pk}/history/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert [word for word in words if word not in html] == []
    assert "All turns" not in html
