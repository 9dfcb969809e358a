"""Plays read from words in the five languages (games/play_words.py)."""

from __future__ import annotations

import pytest

from engine.cards import CARD_TYPE, CARD_VALUES
from engine.rules import Play
from games.play_words import Reading, matching, read

VALUES = CARD_VALUES["standard"]


def _cards(kind: str, *values: int) -> tuple[str, ...]:
    """Card ids of ``kind`` with ``values``, one id per value, from the standard deck of seat a."""
    free = [c for c in sorted(VALUES) if c.startswith("a") and CARD_TYPE[c] == kind]
    chosen = []
    for value in values:
        card = next(c for c in free if VALUES[c] == value and c not in chosen)
        chosen.append(card)
    return tuple(chosen)


@pytest.mark.parametrize(
    ("words", "reading"),
    [
        ("3", Reading(number=3)),
        ("2 dwarves", Reading(kind="dwarf", count=2)),
        ("dwarf 1 and dwarf 2", Reading(kind="dwarf", values=(1, 2))),
        ("princess, stones", Reading(kind="princess", choice="stones")),
        ("Zwerg", Reading(kind="dwarf")),
        ("2 Zwerge", Reading(kind="dwarf", count=2)),
        ("héros princesses", Reading(kind="hero", choice="princesses")),
        ("Princesa 2, cofres", Reading(kind="princess", values=(2,), choice="chests")),
        ("2 ґноми", Reading(kind="dwarf", count=2)),
        ("Feuerdrache 3", Reading(kind="fire_dragon", values=(3,))),
    ],
)
def test_it_reads_what_players_write(words, reading):
    assert read(words) == reading


@pytest.mark.parametrize("words", ["", "hello, how are you?", "thanks!", "dragon"])
def test_it_reads_nothing_where_no_card_is_named(words):
    assert read(words) is None


def test_two_dwarves_fit_the_one_play_of_two_dwarves():
    one, two = _cards("dwarf", 1, 1)
    plays = [Play((one,), None), Play((two,), None), Play((one, two), None)]
    assert matching(Reading(kind="dwarf", count=2), plays, VALUES) == [Play((one, two), None)]


def test_a_type_named_alone_is_one_card_and_equal_cards_count_once():
    one, two = _cards("dwarf", 1, 1)
    plays = [Play((one,), None), Play((two,), None), Play((one, two), None)]
    assert matching(Reading(kind="dwarf"), plays, VALUES) == [Play((one,), None)]


def test_a_princess_without_her_choice_is_two_plays_so_it_is_unclear():
    (princess,) = _cards("princess", 2)
    plays = [Play((princess,), "chests"), Play((princess,), "stones")]
    assert len(matching(Reading(kind="princess"), plays, VALUES)) == 2
    assert matching(Reading(kind="princess", choice="stones"), plays, VALUES) == [Play((princess,), "stones")]


def test_values_that_are_not_in_any_play_fit_nothing():
    one, _two = _cards("dwarf", 1, 1)
    assert matching(Reading(kind="dwarf", values=(4,)), [Play((one,), None)], VALUES) == []
