"""What the how-to-play page needs: the rule options it explains (those of a game, of a link,
or the defaults) and the deck as those options make it. The page's text is its template's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from engine.cards import CAPACITY, CARD_TYPE, CARD_VALUES, DECKS
from engine.errors import MalformedRecord
from engine.options import ALLOWED, DEFAULT, PRESETS, Options, resolve_options
from games.models import Game

# The English page uses the names the site uses everywhere (the BrettspielWelt and Kosmos
# English ones) and adds those of Fantasy Flight's English edition where they differ, as
# players who own that box know them. Only the English page shows these, so they are not
# translated.
ENGLISH_EDITION = {
    "princess": "Fantasy Flight edition: Sorceress",
    "hero": "Fantasy Flight edition: Knight",
    "huntress": "Fantasy Flight edition: Huntress",
}

# The board's spaces in the order the page explains them: the prey before their takers.
ORDER = ("chest", "fire_dragon", "stone_dragon", "princess", "troll", "huntress", "hero", "dwarf", "ship")


@dataclass(frozen=True)
class Rules:
    options: Options
    preset: str  # "official", "bsw", or "" when single options differ from both presets
    game: Game | None  # the game the page was opened from, if any


def rules_for(query: QueryDict) -> Rules:
    """The rules in force for ``?game=ID``, or for a link that names them (``?preset=bsw``,
    ``?deck_end_mode=short_refill``, …); the defaults for anything unknown. A game's options
    are no secret: anyone may watch a game."""
    game = Game.objects.filter(pk=query["game"]).defer("state").first() if "game" in query else None
    options = Options(**game.options) if game is not None else _from_link(query)
    return Rules(options=options, preset=_preset(options), game=game)


def _from_link(query: QueryDict) -> Options:
    spec: dict[str, Any] = {}
    for name in query:
        if name == "preset" or name in ALLOWED:
            value = str(query[name])  # the last one, if a link repeats a name
            # Booleans come as the words true and false, as in the options' JSON.
            spec[name] = {"true": True, "false": False}.get(value, value)
    try:
        return resolve_options(spec)
    except MalformedRecord:
        return DEFAULT


def _preset(options: Options) -> str:
    for name, values in PRESETS.items():
        wanted = Options(**{**DEFAULT.to_json(), **values})
        if all(getattr(options, o) == getattr(wanted, o) for o in ALLOWED if o != "first_player"):
            return name
    return ""


def deck(options: Options) -> list[dict[str, Any]]:
    """Per type, in ORDER: how many cards one deck has, their printed values, and the space's
    capacity (None for a stack)."""
    values = CARD_VALUES[options.deck_profile]
    rows = []
    for kind in ORDER:
        printed = sorted(values[c] for c in DECKS["a"] if CARD_TYPE[c] == kind)
        rows.append(
            {
                "kind": kind,
                "count": len(printed),
                "values": printed,
                "capacity": CAPACITY.get(kind),
                "english_edition": ENGLISH_EDITION.get(kind, ""),
            }
        )
    return rows


def deck_points(options: Options) -> int:
    values = CARD_VALUES[options.deck_profile]
    return sum(values[c] for c in DECKS["a"])


# The capture diagram, laid out as the printed board (games.views.BOARD_ORDER): three rows of
# three spaces and the hold under the ship. Box corners in the SVG's own units.
BOX_W, BOX_H = 160, 76
_COLUMNS, _ROWS = (10, 225, 440), (10, 140, 270, 400)
_PLACES = {
    "chest": (0, 0),
    "fire_dragon": (1, 0),
    "huntress": (2, 0),
    "stone_dragon": (0, 1),
    "princess": (1, 1),
    "troll": (2, 1),
    "dwarf": (0, 2),
    "ship": (1, 2),
    "hero": (2, 2),
    "hold": (1, 3),
}
# (number in the legend, path from the taker to what it takes, badge centre, dashed): the
# dashed lines are the huntresses and heroes going into the hold once they have fired.
ARROWS = (
    (1, "M225 48 L174 48", (199, 28), False),
    (2, "M240 140 L170 93", (211, 102), False),
    (3, "M225 178 L174 178", (199, 158), False),
    (4, "M440 178 L389 178", (414, 158), False),
    (5, "M440 48 L389 48", (414, 28), False),
    (6, "M452 270 L385 224", (425, 232), False),
    (7, "M520 270 L520 220", (540, 246), False),
    (8, "M140 270 C140 238 196 238 174 292", (198, 252), False),
    (9, "M305 346 L305 396", (325, 371), False),
    (10, "M604 60 C632 250 622 438 389 438", (606, 300), True),
    (10, "M455 346 L389 414", (434, 391), True),
)


def chain(names: dict[str, str]) -> list[dict[str, Any]]:
    """The diagram's boxes: place and name, the name split over two lines when long (German's
    "Versteinerter Drache" is too wide for one)."""
    boxes = []
    for kind, (column, row) in _PLACES.items():
        words = names[kind].split(" ")
        lines = (
            [names[kind]]
            if len(names[kind]) <= 10 or len(words) == 1
            else [
                " ".join(words[: (len(words) + 1) // 2]),
                " ".join(words[(len(words) + 1) // 2 :]),
            ]
        )
        # A line still too long for the box (one long word: "Spezialablagefeld") is squeezed
        # to the box's width by the SVG itself.
        shown = [{"text": line, "fit": len(line) > 9} for line in lines]
        boxes.append({"kind": kind, "x": _COLUMNS[column], "y": _ROWS[row], "lines": shown})
    return boxes
