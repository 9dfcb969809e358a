"""The API's JSON to what the engine's bots read: a ``SeatView``.

``GET /api/games/{id}/`` (and ``your_turn``'s ``view``) holds the seat's hand, the board, the
hold, the counts and the legal plays, but not three things a ``SeatView`` has: the cards each
seat captured and the ships of finished voyages (public history, shown there only as counts),
and the card the seat put back on its own pile on losing the dragon (known to that seat only).
All three are in the game's events as ``GET /api/games/{id}/events/`` shows them to the seat,
so the view and those events together give the engine's bots exactly what ``seat_view`` gives
them on the server, and nothing more."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.cards import CARD_VALUES, SEATS, TYPES, Seat, as_seat
from engine.errors import MalformedRecord
from engine.options import Options, resolve_options
from engine.rules import Play
from engine.visibility import SeatView


class ConversionError(ValueError):
    """The view is not a seat's turn, or its events do not agree with it."""


def options_of(rules: Mapping[str, Any] | None) -> Options:
    """A game's options as the API shows them (``Options.to_json``); ConversionError for an
    option or value this engine does not know (a server newer than the kit)."""
    try:
        return resolve_options(dict(rules) if rules is not None else None)
    except MalformedRecord as exc:
        raise ConversionError(exc.message) from None


def play_from_api(play: Mapping[str, Any]) -> Play:
    return Play(tuple(play["cards"]), play.get("choice"))


def play_to_api(play: Play) -> dict[str, Any]:
    return {"cards": list(play.cards), "choice": play.choice}


def _ids(cards: Iterable[Mapping[str, Any]] | None) -> tuple[str, ...]:
    return tuple(card["id"] for card in cards or ())


def seat_view_from_api(view: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> SeatView:
    """The ``SeatView`` of the seat whose turn ``view`` shows. ``events`` are the game's events
    as that seat may see them (``seq`` beyond the view's version are left out)."""
    if view.get("your_seat") not in SEATS or view.get("legal_plays") is None:
        raise ConversionError("the view is not of a seat to move")
    seat = as_seat(view["your_seat"])
    options = options_of(view["options"])
    version = view["version"]
    log = [e for e in events if e.get("seq", 0) <= version]
    players = {as_seat(p["seat"]): p for p in view["players"]}
    captured, sailed = _history(log)
    for s in SEATS:
        if len(captured[s]) != players[s]["captured_count"]:
            raise ConversionError(f"seat {s}'s captures in the events do not match the view's count")
    return SeatView(
        seat=seat,
        turn=view["turn"],
        hand=_ids(view["hand"]),
        board={kind: _ids(view["board"][kind]) for kind in TYPES},
        hold=_ids(view["hold"]),
        voyages=view["voyages"],
        dragon=view["dragon"],
        last_turn=view["last_turn"],
        hand_sizes={s: players[s]["hand_size"] for s in SEATS},
        pile_sizes={s: players[s]["pile_size"] for s in SEATS},
        captured={s: tuple(captured[s]) for s in SEATS},
        sailed=tuple(sailed),
        values=CARD_VALUES[options.deck_profile],
        options=options,
        legal=tuple(play_from_api(p) for p in view["legal_plays"]),
        pile_top=_put_back(log, seat),
    )


def _history(log: Sequence[Mapping[str, Any]]) -> tuple[dict[Seat, list[str]], list[str]]:
    """The cards each seat captured, in capture order, and the ships of finished voyages."""
    captured: dict[Seat, list[str]] = {s: [] for s in SEATS}
    sailed: list[str] = []
    for event in log:
        if event["kind"] == ev.CARDS_CAPTURED:
            captured[as_seat(event["seat"])].extend(event["cards"])
        elif event["kind"] == ev.VOYAGE_COMPLETED:
            sailed.extend(event["ships"])
    return captured, sailed


def _put_back(log: Sequence[Mapping[str, Any]], seat: Seat) -> tuple[str, ...]:
    """The card ``seat`` put back on top of its pile and has not drawn since, as
    ``engine.visibility`` finds it: the seat's own events name it, the opponent's hide it."""
    for event in reversed(log):
        kind = event["kind"]
        if kind == ev.CARDS_DRAWN and event["seat"] == seat:
            return ()
        if kind == ev.DRAGON_TRANSFERRED and event["from"] == seat:
            card = event["returned"]
            return (card,) if card is not None else ()
        if kind == ev.GAME_STARTED:
            return ()
    return ()
