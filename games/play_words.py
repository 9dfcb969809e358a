"""A play read from words, as a player writes it in a reply to a turn email, in any of the
site's languages: the number of a listed play ("3"), or the cards ("2 dwarves", "dwarf 1 and
dwarf 2", "princess, stones", "Zwerg", "héros princesses").

The reader names a type of card, then perhaps how many ("2 dwarves") or which values ("dwarf 1
and dwarf 2"), and for a princess or heroes what they take, by naming it. What is read is
matched against the legal plays: exactly one play must fit (plays that read the same, two
dwarves of one value, count as one), else the answer is unclear and nothing is played.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.utils import translation

from engine.cards import CARD_TYPE, TYPES
from engine.rules import Play
from games.history import type_name

# Short names players use beside the edition's ("princess, stones"), per language.
_SHORT = {
    "chest": ("chest", "chests", "truhe", "truhen", "cofre", "cofres", "coffre", "coffres"),
    "stone_dragon": ("stone", "stones", "stein", "steine", "piedra", "piedras", "pierre", "pierres"),
    "huntress": ("huntress", "huntresses", "jagerin", "jagerinnen", "cazadora", "chasseuse"),
}
# What a princess or heroes take, named by the type they take.
_CHOICE_OF = {
    "princess": {"chest": "chests", "stone_dragon": "stones"},
    "hero": {"princess": "princesses", "troll": "trolls"},
}


@dataclass(frozen=True)
class Reading:
    """What the words say: a listed play's number, or a card type with counts and values."""

    number: int | None = None
    kind: str | None = None
    count: int | None = None
    values: tuple[int, ...] = ()
    choice: str | None = None


def _plain(text: str) -> str:
    """Lower case without accents or apostrophes, words separated by single spaces."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c)).replace("'", "").replace("’", "")
    return " ".join(re.findall(r"[^\W_]+", bare))


@cache
def _vocabulary() -> tuple[tuple[str, str], ...]:
    """(name, type) for every name of every type in every language, longest first."""
    names: set[tuple[str, str]] = set()
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            for kind in TYPES:
                names |= {(_plain(type_name(kind, n)), kind) for n in (1, 2, 5)}
    names |= {(_plain(short), kind) for kind, shorts in _SHORT.items() for short in shorts}
    return tuple(sorted(names, key=lambda pair: -len(pair[0])))


def _mentions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, type) of every type named in ``text`` (already plain), in order."""
    found: list[tuple[int, int, str]] = []
    taken = [False] * len(text)
    for name, kind in _vocabulary():
        for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            if not any(taken[match.start() : match.end()]):
                found.append((match.start(), match.end(), kind))
                taken[match.start() : match.end()] = [True] * (match.end() - match.start())
    return sorted(found)


def read(text: str) -> Reading | None:
    """What the first line(s) of a reply say, or None if they name nothing."""
    plain = _plain(text)
    if re.fullmatch(r"\d{1,3}", plain):
        return Reading(number=int(plain))
    mentions = _mentions(plain)
    if not mentions:
        return None
    start, end, kind = mentions[0]
    count = re.search(r"(\d+) $", plain[:start])
    values = tuple(int(v) for v in re.findall(r"(?<!\w)(\d+)(?!\w)", plain[end:]))
    choice = next(
        (_CHOICE_OF[kind][other] for _s, _e, other in mentions[1:] if other in _CHOICE_OF.get(kind, {})), None
    )
    return Reading(kind=kind, count=int(count[1]) if count else None, values=values, choice=choice)


def matching(reading: Reading, plays: list[Play], values: dict[str, int]) -> list[Play]:
    """The legal plays the words fit, one per distinct play (same type, values and choice)."""
    distinct: dict[tuple[object, ...], Play] = {}
    for play in plays:
        if CARD_TYPE[play.cards[0]] != reading.kind:
            continue
        card_values = sorted(values[card] for card in play.cards)
        if reading.count is not None and len(play.cards) != reading.count:
            continue
        if reading.values and Counter(card_values) != Counter(reading.values):
            continue
        if reading.choice is not None and play.choice != reading.choice:
            continue
        if reading.count is None and not reading.values and len(play.cards) != 1:
            continue  # a type named alone is one card of it ("Zwerg")
        distinct.setdefault((tuple(card_values), play.choice), play)
    return list(distinct.values())
