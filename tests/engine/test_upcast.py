"""Upcasting: a stored event of an older schema version is brought up step by step."""

from __future__ import annotations

from typing import cast

import pytest

from engine import events as ev


@pytest.fixture
def two_old_versions(monkeypatch):
    # As if turn_ended had been {"player"} at v0 and {"seat"} without "turn" at v1.
    steps = {
        (ev.TURN_ENDED, 0): lambda e: {"kind": ev.TURN_ENDED, "v": 1, "seat": e["player"]},
        (ev.TURN_ENDED, 1): lambda e: {**e, "v": 2, "turn": e.get("turn", 0)},
    }
    monkeypatch.setattr(ev, "UPCASTERS", steps)


def test_it_brings_an_old_event_through_every_step(two_old_versions):
    old = {"kind": ev.TURN_ENDED, "v": 0, "player": "b"}
    assert ev.upcast(old) == {"kind": ev.TURN_ENDED, "v": 2, "seat": "b", "turn": 0}


def test_it_leaves_a_current_event_as_it_is(two_old_versions):
    current = {"kind": ev.TURN_ENDED, "v": 2, "seat": "a", "turn": 7}
    assert ev.upcast(current) is current


def test_every_kind_is_current_today():
    for event in (ev.turn_ended("a", 3), ev.cards_drawn("b", ["b-dwarf-1"]), ev.vacation_ended("a")):
        # A row's JSON is a plain dict to upcast; the engine's own events are the same dicts.
        assert ev.upcast(cast(ev.Event, event)) is event
