"""The bot kit (engine/botkit): the stream's two formats parsed, the API's view turned into the
engine's SeatView, the policy, and the kit playing against a fake site (tests/engine/
botkit_site.py) through cut and silent streams, lost answers, 429s and stale announcements."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.botkit import Api, Backoff, Policy, Runner, Turn, engine_bot
from engine.botkit.bots import Choose
from engine.botkit.client import Answer, StreamRefused
from engine.botkit.convert import ConversionError, seat_view_from_api
from engine.botkit.policy import Verdict, parse_clocks
from engine.botkit.stream import NDJSON, SSE, LineSplitter, NdjsonParser, SseParser, StreamEvent
from engine.bots import BOTS, make_bot
from engine.cards import Seat, owner
from engine.events import AnyEvent
from engine.options import Options, resolve_options
from engine.replay import apply_event, state_from_start
from engine.search import Budget
from engine.selfplay import play_game
from engine.state import State
from engine.visibility import seat_view
from tests.engine.botkit_site import TOKEN, FakeSite, api_events, api_view

ROOT = Path(__file__).resolve().parents[2]

# --- the stream's grammar -------------------------------------------------------------------


def sse(*chunks: bytes) -> list[StreamEvent]:
    lines, parser = LineSplitter(), SseParser()
    events = []
    for chunk in chunks:
        for line in lines.feed(chunk):
            if (event := parser.line(line)) is not None:
                events.append(event)
    return events


def test_it_reads_an_sse_event_with_its_id_kind_and_data() -> None:
    events = sse(b'id: 7\nevent: your_turn\ndata: {"game_id": "g1"}\n\n')
    assert events == [StreamEvent("your_turn", {"game_id": "g1"}, "7")]


def test_it_joins_data_lines_with_a_newline() -> None:
    events = sse(b'event: challenge\ndata: {"game_id":\ndata:  "g2"}\n\n')
    assert events == [StreamEvent("challenge", {"game_id": "g2"})]


def test_it_ends_lines_at_crlf_cr_or_lf_even_split_across_chunks() -> None:
    events = sse(b"event: synced\r", b"\nid: 3\rdata: {}\r", b"\r", b"event: reset\ndata: {}\r\n\r\n")
    assert events == [StreamEvent("synced", {}, "3"), StreamEvent("reset", {})]


def test_it_skips_comments_and_events_without_data() -> None:
    events = sse(b": ping\n\n: ping\n\nevent: lonely\n\nevent: game_over\ndata: {}\n\n")
    assert events == [StreamEvent("game_over", {})]


def test_it_takes_a_field_without_a_space_after_its_colon_and_drops_a_bom() -> None:
    events = sse(b'\xef\xbb\xbfevent:challenge_gone\ndata:{"game_id":"g"}\n\n')
    assert events == [StreamEvent("challenge_gone", {"game_id": "g"})]


def test_it_reads_a_character_split_across_chunks() -> None:
    encoded = 'data: {"name": "Drachenkönig"}\n\n'.encode()
    cut = encoded.index("ö".encode()) + 1
    assert sse(encoded[:cut], encoded[cut:])[0].data == {"name": "Drachenkönig"}


def test_an_sse_event_of_no_kind_is_a_message() -> None:
    assert sse(b"data: {}\n\n") == [StreamEvent("message", {})]


def test_it_reads_ndjson_lines_and_skips_empty_heartbeats() -> None:
    parser = NdjsonParser()
    lines = [
        '{"id": 4, "event": "game_over", "data": {"game_id": "g"}}',
        "",
        '{"event": "synced", "data": {}}',
    ]
    events = [parser.line(line) for line in lines]
    assert events == [StreamEvent("game_over", {"game_id": "g"}, "4"), None, StreamEvent("synced", {})]


# --- answers and policy ------------------------------------------------------------------------


def test_retry_after_comes_from_the_header_then_the_body() -> None:
    assert Answer(429, {"retry-after": "12"}, {"retry_after": 3}).retry_after(default=1) == 12
    assert Answer(429, {}, {"code": "throttled", "retry_after": 3}).retry_after(default=1) == 3
    assert Answer(503, {}, None).retry_after(default=1.5) == 1.5


def test_backoff_doubles_up_to_its_cap() -> None:
    backoff, rng = Backoff(first=1, cap=8), random.Random(1)
    delays = [backoff.delay(n, rng) for n in range(6)]
    assert [0.5 <= delays[0] <= 1, 1 <= delays[1] <= 2, 4 <= delays[5] <= 8] == [True] * 3


def challenge(**overrides: Any) -> dict[str, Any]:
    return {
        "game_id": "g",
        "direction": "in",
        "rated": False,
        "days_per_turn": None,
        "rules": {},
        **overrides,
    }


def never_counted() -> int:
    raise AssertionError("the running games are counted only when all else fits")


def test_the_policy_accepts_what_fits() -> None:
    assert Policy().judge(challenge(), lambda: 0)[0] is Verdict.ACCEPT


def test_the_policy_ignores_the_accounts_own_challenges() -> None:
    assert Policy().judge(challenge(direction="out"), never_counted)[0] is Verdict.IGNORE


def test_the_policy_declines_rules_it_cannot_play() -> None:
    verdict, why = Policy().judge(challenge(rules={"dragon_flies": True}), never_counted)
    assert (verdict, "dragon_flies" in why) == (Verdict.DECLINE, True)


def test_the_policy_declines_a_rated_game_when_casual_only_and_the_reverse() -> None:
    assert Policy(rated=False).judge(challenge(rated=True), never_counted)[0] is Verdict.DECLINE
    assert Policy(rated=True).judge(challenge(rated=False), never_counted)[0] is Verdict.DECLINE
    assert Policy(rated=True).judge(challenge(rated=True), lambda: 0)[0] is Verdict.ACCEPT


def test_the_policy_declines_a_clock_it_does_not_take() -> None:
    policy = Policy(clocks=frozenset({None, 3}))
    assert policy.judge(challenge(days_per_turn=1), never_counted)[0] is Verdict.DECLINE
    assert policy.judge(challenge(days_per_turn=3), lambda: 0)[0] is Verdict.ACCEPT
    assert policy.judge(challenge(days_per_turn=None), lambda: 0)[0] is Verdict.ACCEPT


def test_the_policy_holds_a_challenge_beyond_its_games_at_once() -> None:
    assert Policy(max_games=2).judge(challenge(), lambda: 2)[0] is Verdict.WAIT


def test_clocks_are_read_from_the_command_line() -> None:
    assert parse_clocks("none, 1,3") == frozenset({None, 1, 3})
    assert parse_clocks("any") is None
    with pytest.raises(ValueError, match="a clock is"):
        parse_clocks("soon")


# --- the converter ------------------------------------------------------------------------------

OPTION_SPECS: list[dict[str, object]] = [
    {},
    {"deck_end_mode": "short_refill", "dragon_loss_return": "always_one"},
    {"dragon_requires_stone": False, "deck_profile": "dwarf_6x1_4x2", "preset": "bsw"},
]


def turns(log: list[AnyEvent]) -> Iterator[tuple[State, Seat, list[AnyEvent]]]:
    """Each turn of a finished game: the state before it, the seat to move, the log so far."""
    state = state_from_start(log[0])
    for n, event in enumerate(log[1:], start=1):
        if state.to_move is not None and (event["kind"] == "cards_played" or event["kind"] == "turn_passed"):
            yield state.copy(), state.to_move, log[:n]
        apply_event(state, event)


def self_played(spec: dict[str, object], seed: str) -> list[AnyEvent]:
    _, log = play_game({"a": "greedy", "b": "random"}, seed, "a", resolve_options(spec))
    return log


@pytest.mark.parametrize("spec", OPTION_SPECS)
def test_the_view_and_the_seats_events_give_the_engines_own_seat_view(spec: dict[str, object]) -> None:
    put_back_seen = 0
    for g in range(3):
        for state, seat, log in turns(self_played(spec, f"convert:{g}")):
            converted = seat_view_from_api(api_view(state, seat), api_events(log, seat))
            assert converted == seat_view(state, seat, log)
            put_back_seen += bool(converted.pile_top)
    # The card put back on losing the dragon is the one fact the events alone name.
    assert put_back_seen > 0


def test_events_beyond_the_views_version_are_left_out() -> None:
    log = self_played({}, "convert:later")
    state, seat, before = next(t for t in turns(log) if t[0].turn == 10)
    assert seat_view_from_api(api_view(state, seat), api_events(log, seat)) == seat_view(state, seat, before)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_each_engine_bot_chooses_the_same_play_from_the_converted_view(name: str) -> None:
    budget = Budget(iterations=3)  # iterations only: the play depends on the seed, not the clock
    for g in range(2):
        log = self_played({"dragon_loss_return": "always_one"}, f"choose:{g}")
        for i, (state, seat, so_far) in enumerate(turns(log)):
            if i % 4:
                continue  # every fourth turn keeps the search bots' test short
            converted = seat_view_from_api(api_view(state, seat), api_events(so_far, seat))
            mine = make_bot(name, random.Random(i), budget).choose(converted)
            theirs = make_bot(name, random.Random(i), budget).choose(seat_view(state, seat, so_far))
            assert mine == theirs


def test_the_view_without_its_events_is_refused_once_cards_were_captured() -> None:
    log = self_played({}, "convert:blind")
    state, seat, _ = next(t for t in turns(log) if sum(map(len, t[0].captured.values())) > 0)
    with pytest.raises(ConversionError, match="captures"):
        seat_view_from_api(api_view(state, seat), [])


def test_a_view_that_is_not_the_seats_turn_is_refused() -> None:
    log = self_played({}, "convert:wait")
    state, seat, so_far = next(turns(log))
    other: Seat = "b" if seat == "a" else "a"
    with pytest.raises(ConversionError, match="seat to move"):
        seat_view_from_api(api_view(state, other), api_events(so_far, other))


def test_the_converter_never_learns_the_opponents_card_put_back() -> None:
    """The API hides the card an opponent put back, and the converter reads nothing else: the
    seat's pile_top names only its own cards."""
    logs = (self_played({"dragon_loss_return": "always_one"}, f"convert:hidden:{i}") for i in range(40))
    log = next(g for g in logs if any(e["kind"] == "dragon_transferred" and e["returned"] for e in g))
    tops = []
    for state, seat, so_far in turns(log):
        shown = api_events(so_far, seat)
        assert all(
            e["returned"] is None for e in shown if e["kind"] == "dragon_transferred" and e["from"] != seat
        )
        tops += [(seat, card) for card in seat_view_from_api(api_view(state, seat), shown).pile_top]
    assert tops
    assert all(owner(card) == seat for seat, card in tops)


# --- the kit against the fake site ---------------------------------------------------------------


class Kit:
    """A runner on its own thread, with quick backoffs and a read timeout the tests can wait
    out; ``waits`` records every wait it asked for."""

    def __init__(self, site: FakeSite, choose: Choose, **options: Any) -> None:
        self.waits: list[float] = []
        timeout = options.pop("timeout", 5.0)
        policy = options.pop("policy", None)
        self.api = Api(site.url, options.pop("token", TOKEN), timeout=timeout, rng=random.Random(0))
        self.api.backoff = Backoff(first=0.01, cap=0.05)
        self.api.wait = self._wait
        self.runner = Runner(self.api, choose, policy, rng=random.Random(0), **options)
        self.thread = threading.Thread(target=self._run)
        self.error: BaseException | None = None

    def _wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        # Never the whole Retry-After: the test checks the kit asked for it, not the clock.
        return self.api.stopped.wait(min(seconds, 0.02))

    def _run(self) -> None:
        try:
            self.runner.run()
        except BaseException as exc:
            self.error = exc

    def __enter__(self) -> Kit:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.runner.stop()
        self.thread.join(timeout=30)
        assert not self.thread.is_alive()


def random_bot() -> Choose:
    return engine_bot("random", seed="test")


def kit_plays(site: FakeSite) -> list[tuple[str, int]]:
    return [
        (r.path.split("/")[3], r.body["expected_version"])
        for r in site.requests
        if r.path.endswith("/plays/")
    ]


@pytest.mark.parametrize("accept", [SSE, NDJSON])
def test_it_plays_a_game_to_its_end_through_a_stream_cut_again_and_again(accept: str) -> None:
    site = FakeSite("cuts")
    site.faults.cut = 0.3
    site.start("g1")
    with site.running(), Kit(site, engine_bot("greedy", seed="cuts"), accept=accept) as kit:
        assert site.wait_for(site.over)
        assert site.wait_for(lambda: kit.runner.tally["games_over"] == 1)
    assert len(site.streams) > 5
    # Each reconnection resumed from the last id the broken stream had delivered.
    for before, after in zip(site.streams, site.streams[1:], strict=False):
        if before["ids"]:
            assert after["cursor"] == str(before["ids"][-1])
    assert not any(s["reset"] for s in site.streams)
    # Every turn was played once: one request each, all made, none refused.
    assert kit_plays(site) == site.applied
    assert len(site.applied) == len(set(site.applied)) > 10


def test_it_sends_a_play_whose_answer_was_lost_again_with_the_same_key() -> None:
    site = FakeSite("lost")
    site.faults.lose_answers = 1
    site.start("g1")
    with site.running(), Kit(site, random_bot()) as kit:
        assert site.wait_for(lambda: kit.runner.tally["replayed"] == 1)
    first, second = [r for r in site.requests if r.path.endswith("/plays/")][:2]
    assert (first.body, first.headers["idempotency-key"]) == (second.body, second.headers["idempotency-key"])
    assert site.applied[0] == ("g1", first.body["expected_version"])
    assert site.applied.count(site.applied[0]) == 1


def test_it_waits_as_long_as_a_429_says_then_plays_once() -> None:
    site = FakeSite("throttled")
    site.faults.throttle, site.faults.retry_after = 1, 7
    site.start("g1")
    with site.running(), Kit(site, random_bot()) as kit:
        assert site.wait_for(lambda: len(site.applied) >= 1)
    assert 7.0 in kit.waits
    assert [status for _, _, status in site.statuses[:2]] == [429, 201]
    first, second = [r for r in site.requests if r.path.endswith("/plays/")][:2]
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


def test_a_play_that_met_a_server_error_is_sent_again_with_the_same_key() -> None:
    site = FakeSite("unavailable")
    site.faults.server_errors = 2
    site.start("g1")
    with site.running(), Kit(site, random_bot()):
        assert site.wait_for(lambda: len(site.applied) >= 1)
    assert [status for _, _, status in site.statuses[:3]] == [503, 503, 201]
    keys = {r.headers["idempotency-key"] for r in site.requests if r.path.endswith("/plays/")}
    assert len(keys) == len(site.applied)


def test_a_silent_stream_is_left_and_resumed_from_its_last_id() -> None:
    site = FakeSite("silent")
    site.faults.silent_streams = {1}
    site.start("g1", first="b")  # the site's bot moves first: a your_turn is logged
    with site.running(), Kit(site, random_bot(), timeout=0.5):
        assert site.wait_for(lambda: len(site.streams) >= 2)
    first, second = site.streams[:2]
    assert first["cursor"] is None
    assert second["cursor"] == str(first["ids"][-1])


@pytest.mark.parametrize("cursor", ["999", "1", "nonsense"])
def test_a_reset_starts_over_from_the_snapshot(cursor: str) -> None:
    site = FakeSite("reset")
    site.start("g1")
    site.oldest_kept = 3  # the site no longer keeps events 1 and 2
    kit = Kit(site, random_bot())
    kit.runner.cursor = cursor
    with site.running(), kit:
        assert site.wait_for(lambda: len(site.applied) >= 1)
    assert site.streams[0]["cursor"] == cursor
    assert site.streams[0]["reset"] is True
    # The snapshot's turn was played; no turn was played twice.
    assert site.applied[0] == ("g1", site.applied[0][1])
    assert len(set(site.applied)) == len(site.applied)


def test_a_turn_announced_twice_is_played_once() -> None:
    site = FakeSite("twice")
    site.faults.duplicate_turns = True
    site.start("g1")
    with site.running(), Kit(site, random_bot()) as kit:
        assert site.wait_for(lambda: len(site.applied) >= 3)
        assert site.wait_for(lambda: kit.runner.tally["repeated_turns"] >= 3)
    assert kit_plays(site) == site.applied
    assert [s for s in site.statuses if s[2] != 201] == []


def test_a_stale_turn_is_dropped_and_the_next_one_played() -> None:
    site = FakeSite("stale")
    game = site.start("g1")
    stale = game.state.version
    site.play_elsewhere("g1")  # the account played that turn from a browser
    kit = Kit(site, random_bot())
    kit.runner.cursor = "0"  # every logged event, the stale announcement included
    with site.running(), kit:
        assert site.wait_for(lambda: len(site.applied) >= 1)
    assert site.statuses[0] == ("g1", stale, 409)
    assert site.applied[0][1] > stale
    assert kit.runner.tally["stale"] == 1


def test_it_answers_challenges_by_its_policy_and_holds_one_until_a_game_ends() -> None:
    site = FakeSite("policy")
    site.challenge("rated", rated=True)
    site.challenge("strange", rules={**Options().to_json(), "dragon_flies": True})
    site.challenge("mine", direction="out")
    site.challenge("first")
    site.challenge("second")
    policy = Policy(rated=False, max_games=1)
    with site.running(), Kit(site, random_bot(), policy=policy):
        assert site.wait_for(lambda: ("accept", "second") in site.answers)
        assert site.games["first"].state.over
        assert site.wait_for(site.over)
    assert site.answers == [
        ("decline", "rated"),
        ("decline", "strange"),
        ("accept", "first"),
        ("accept", "second"),
    ]
    assert "mine" in site.challenges


def test_a_token_the_stream_refuses_stops_the_kit_with_the_reason() -> None:
    site = FakeSite("refused")
    with site.running(), Kit(site, random_bot(), token="wrong") as kit:
        kit.thread.join(timeout=30)
    assert isinstance(kit.error, StreamRefused)


def test_a_choose_function_gets_the_view_and_the_seats_events() -> None:
    site = FakeSite("author")
    site.start("g1")
    seen: list[Turn] = []

    def first_play(turn: Turn) -> dict[str, Any]:
        turn.events()  # fetched while the kit runs; kept by the turn
        seen.append(turn)
        return turn.legal_plays[0]

    with site.running(), Kit(site, first_play):
        assert site.wait_for(lambda: len(site.applied) >= 2)
    turn = seen[1]
    assert (turn.seat, turn.view["version"]) == ("a", turn.version)
    started = turn.events()[0]
    # The events as the seat may see them: its own hand, not the opponent's, no deck order.
    assert (started["kind"], "decks" in started, started["hands"]["b"]) == ("game_started", False, None)
    assert turn.events()[-1]["seq"] == turn.version


@pytest.mark.processes
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_the_command_line_plays_until_a_signal_and_stops_cleanly(stop: signal.Signals) -> None:
    site = FakeSite("cli")
    site.start("g1")
    env = {**os.environ, "DRAGONHEART_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "engine.botkit", "--server", site.url, "--bot", "random", "--seed", "s"]
    with site.running():
        process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        try:
            assert site.wait_for(lambda: len(site.applied) >= 1)
            process.send_signal(stop)
            _, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, err
    assert "stopped" in err


def test_the_kit_loads_only_the_standard_library_and_the_engine() -> None:
    probe = (
        "import json, sys; before = set(sys.modules); import engine.botkit, engine.botkit.__main__; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    assert "engine.botkit.runner" in loaded
    assert [m for m in loaded if m.split(".")[0] not in (*sys.stdlib_module_names, "engine")] == []


# --- the bot of docs/bots-api.md ------------------------------------------------------------------


def doc_blocks() -> list[str]:
    text = (ROOT / "docs" / "bots-api.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def doc_bot(sse: bool) -> str:
    bot, sse_events = doc_blocks()[:2]
    if not sse:
        return bot
    start = bot.index("def events(")
    return bot[:start] + sse_events + bot[bot.index("\ncursor = None", start) :]


def test_the_documented_bot_is_under_thirty_lines() -> None:
    bot = doc_blocks()[0]
    assert len([line for line in bot.splitlines() if line.strip()]) < 30


@pytest.mark.processes
@pytest.mark.parametrize("sse", [False, True], ids=["ndjson", "sse"])
def test_the_documented_bot_plays_and_accepts_through_cut_streams(tmp_path, sse: bool) -> None:
    site = FakeSite(f"documented:{sse}")
    site.faults.cut = 0.2
    site.start("g1")
    site.challenge("c1")
    script = tmp_path / "mybot.py"
    script.write_text(doc_bot(sse))
    with site.running():
        process = subprocess.Popen(
            [sys.executable, str(script), site.url, TOKEN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        try:
            reached = site.wait_for(lambda: len(site.applied) >= 12 and ("accept", "c1") in site.answers)
        finally:
            process.terminate()
            output, _ = process.communicate(timeout=30)
    assert reached, output.decode()
    assert len(site.streams) > 2
    assert kit_plays(site) == site.applied


def test_the_documented_library_example_compiles() -> None:
    compile(doc_blocks()[2], "docs/bots-api.md", "exec")
