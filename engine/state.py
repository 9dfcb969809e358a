"""The state of one game: what a fold of its event log produces.

The state is a plain mutable object with slots. The fold in ``engine.replay`` owns its
accumulator and applies events in place, because copying fifteen lists per event would cost
more than the rules themselves; the public ``evolve`` copies first, so callers who keep older
states see no mutation.
"""

from __future__ import annotations

from typing import Any

from engine.cards import CARD_VALUES, SEATS, TYPES, Seat, other
from engine.events import EndReason, LastTurnReason
from engine.options import Options


class State:
    __slots__ = (
        "options",
        "values",
        "first",
        "turn",
        "to_move",
        "hands",
        "piles",
        "board",
        "hold",
        "voyages",
        "voyage_ships",
        "dragon",
        "captured",
        "points",
        "last_turn",
        "last_turn_reason",
        "over",
        "end_reason",
        "end_seat",
        "winner",
        "version",
    )

    options: Options
    values: dict[str, int]
    first: Seat
    turn: int  # completed turns
    to_move: Seat | None
    hands: dict[Seat, list[str]]
    piles: dict[Seat, list[str]]  # top of the pile first
    board: dict[str, list[str]]  # placement order
    hold: list[str]
    voyages: int
    voyage_ships: list[list[str]]  # each finished voyage's three ships, out of play
    dragon: Seat | None
    captured: dict[Seat, list[str]]  # capture order
    points: dict[Seat, int]  # printed values captured, without the dragon bonus
    last_turn: int | None
    last_turn_reason: LastTurnReason | None
    over: bool
    end_reason: EndReason | None
    end_seat: Seat | None
    winner: Seat | None
    version: int  # number of events folded in

    @classmethod
    def new(cls, decks: dict[Seat, list[str]], first: Seat, options: Options) -> State:
        s = cls()
        s.options = options
        s.values = CARD_VALUES[options.deck_profile]
        s.first = first
        s.turn = 0
        s.to_move = first
        s.hands = {seat: list(decks[seat][:5]) for seat in SEATS}
        s.piles = {seat: list(decks[seat][5:]) for seat in SEATS}
        s.board = {kind: [] for kind in TYPES}
        s.hold = []
        s.voyages = 0
        s.voyage_ships = []
        s.dragon = None
        s.captured = {"a": [], "b": []}
        s.points = {"a": 0, "b": 0}
        s.last_turn = None
        s.last_turn_reason = None
        s.over = False
        s.end_reason = None
        s.end_seat = None
        s.winner = None
        s.version = 0
        return s

    def copy(self) -> State:
        s = State.__new__(State)
        s.options = self.options
        s.values = self.values
        s.first = self.first
        s.turn = self.turn
        s.to_move = self.to_move
        s.hands = {seat: list(cards) for seat, cards in self.hands.items()}
        s.piles = {seat: list(cards) for seat, cards in self.piles.items()}
        s.board = {kind: list(cards) for kind, cards in self.board.items()}
        s.hold = list(self.hold)
        s.voyages = self.voyages
        s.voyage_ships = [list(v) for v in self.voyage_ships]
        s.dragon = self.dragon
        s.captured = {seat: list(cards) for seat, cards in self.captured.items()}
        s.points = dict(self.points)
        s.last_turn = self.last_turn
        s.last_turn_reason = self.last_turn_reason
        s.over = self.over
        s.end_reason = self.end_reason
        s.end_seat = self.end_seat
        s.winner = self.winner
        s.version = self.version
        return s

    def to_snapshot(self) -> dict[str, Any]:
        """Everything, JSON-ready, for a cache beside the log (``from_snapshot`` reads it back).
        Holds hidden cards: never show a snapshot to a player."""
        return {
            "options": self.options.to_json(),
            "first": self.first,
            "turn": self.turn,
            "to_move": self.to_move,
            "hands": self.hands,
            "piles": self.piles,
            "board": self.board,
            "hold": self.hold,
            "voyages": self.voyages,
            "voyage_ships": self.voyage_ships,
            "dragon": self.dragon,
            "captured": self.captured,
            "points": self.points,
            "last_turn": self.last_turn,
            "last_turn_reason": self.last_turn_reason,
            "over": self.over,
            "end_reason": self.end_reason,
            "end_seat": self.end_seat,
            "winner": self.winner,
            "version": self.version,
        }

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> State:
        """The state of ``to_snapshot``; the snapshot's lists are taken over, not copied."""
        s = cls.__new__(cls)
        for name in cls.__slots__:
            if name not in ("options", "values"):
                setattr(s, name, snap[name])
        s.options = Options(**snap["options"])
        s.values = CARD_VALUES[s.options.deck_profile]
        return s

    # --- derived facts -------------------------------------------------------------------

    def hand_limit(self, seat: Seat) -> int:
        return 6 if self.dragon == seat else 5

    def scores(self) -> dict[Seat, int]:
        """Final-count scores: printed values plus 3 for the dragon holder (R1.10.1)."""
        bonus = {seat: 3 if self.dragon == seat else 0 for seat in SEATS}
        return {seat: self.points[seat] + bonus[seat] for seat in SEATS}

    def free_slots(self, kind: str, capacity: int) -> int:
        return capacity - len(self.board[kind])

    def opponent(self, seat: Seat) -> Seat:
        return other(seat)

    def to_json(self) -> dict[str, Any]:
        """The full state in the replay command's format (RULES.md 4.2). Reveals everything:
        use ``engine.visibility`` for anything a player or spectator will read."""
        return {
            "turn": self.turn,
            "to_move": self.to_move,
            "over": self.over,
            "last_turn": self.last_turn,
            "hands": {seat: list(self.hands[seat]) for seat in SEATS},
            "piles": {seat: list(self.piles[seat]) for seat in SEATS},
            "board": {kind: list(self.board[kind]) for kind in TYPES},
            "hold": list(self.hold),
            "voyages": self.voyages,
            "dragon": self.dragon,
            "captured": {seat: list(self.captured[seat]) for seat in SEATS},
            "scores": self.scores(),
            "winner": self.winner,
        }
