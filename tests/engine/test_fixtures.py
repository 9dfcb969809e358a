"""Whole recorded games replay to exactly their stored outcome.

The records and outputs in ``fixtures/games`` come from ``fixtures/make_fixtures.py``. Their
outcome must never change: when one of these tests fails, the engine changed, not the fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.record import events_from_record, parse_record, record_from_events, replay_document

GAMES = Path(__file__).resolve().parent / "fixtures" / "games"
ROOT = Path(__file__).resolve().parents[2]

NAMES = [
    "official_third_voyage",
    "official_deck_exhausted",
    "bsw_deck_exhausted",
    "short_refill_deck_exhausted",
    "official_dragon_returned",
    "bsw_third_voyage_brings_the_end_forward",
    "official_fourth_voyage",
    "variants_dragon_ping_pong",
]


def load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = json.loads((GAMES / f"{name}.json").read_text(encoding="utf-8"))
    expected = json.loads((GAMES / f"{name}.expected.json").read_text(encoding="utf-8"))
    return record, expected


def test_every_stored_game_is_listed() -> None:
    assert sorted(
        path.name.removesuffix(".expected.json") for path in GAMES.glob("*.expected.json")
    ) == sorted(NAMES)
    assert len(list(GAMES.glob("*.json"))) == 2 * len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_game_replays_to_exactly_its_stored_output(name: str) -> None:
    record, expected = load(name)
    assert replay_document(record) == (expected, 0)


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_game_is_over_and_states_its_result(name: str) -> None:
    record, expected = load(name)
    assert expected["over"] is True
    assert record["result"] == {"scores": expected["scores"], "winner": expected["winner"]}


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_record_is_what_the_engine_writes_for_its_game(name: str) -> None:
    record, _ = load(name)
    log = events_from_record(parse_record(record))
    assert record_from_events(log, record["players"]) == record


def test_the_replay_command_prints_every_stored_outcome() -> None:
    paths = [str(GAMES / f"{name}.json") for name in NAMES]
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    assert [json.loads(line) for line in done.stdout.splitlines()] == [load(name)[1] for name in NAMES]


# --- what the stored games cover (so that regenerating them cannot quietly lose it) -------------


def test_the_stored_games_use_both_presets_and_short_refill() -> None:
    assert load("official_third_voyage")[0].get("options", {}) == {}
    assert load("bsw_deck_exhausted")[0]["options"] == {"deck_end_mode": "bsw_next_turn"}
    assert load("short_refill_deck_exhausted")[0]["options"] == {"deck_end_mode": "short_refill"}


def test_one_deal_ends_later_from_official_to_short_refill_to_bsw() -> None:
    official, short, bsw = (
        load(name)[1]
        for name in ("official_deck_exhausted", "short_refill_deck_exhausted", "bsw_deck_exhausted")
    )
    assert load("official_deck_exhausted")[0]["decks"] == load("bsw_deck_exhausted")[0]["decks"]
    assert (official["turn"], short["turn"], bsw["turn"]) == (77, 78, 79)


@pytest.mark.parametrize(
    "name", ["official_deck_exhausted", "bsw_deck_exhausted", "short_refill_deck_exhausted"]
)
def test_a_stored_game_ended_by_an_empty_draw_pile(name: str) -> None:
    _, expected = load(name)
    assert expected["voyages"] < 3
    assert [] in expected["piles"].values()


def test_a_stored_game_ended_by_the_third_voyage() -> None:
    _, expected = load("official_third_voyage")
    assert expected["voyages"] == 3
    assert all(expected["piles"].values())


def test_a_stored_game_has_the_dragon_change_hands_with_a_card_put_back() -> None:
    record, expected = load("official_dragon_returned")
    returned = [play["returned"] for play in record["plays"] if "returned" in play]
    assert returned
    assert expected["dragon"] in ("a", "b")


def test_a_stored_game_sails_a_fourth_voyage() -> None:
    assert load("official_fourth_voyage")[1]["voyages"] == 4
