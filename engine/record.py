"""Game records (RULES.md 4.1): a whole game as one JSON document, and the replay of one.

A record carries every random outcome (deck orders, the card put back on losing the dragon),
so replaying it draws no random number and gives the same game in any implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from engine import events as ev
from engine.cards import DECKS, SEATS, Seat, is_seat
from engine.errors import IllegalMove, MalformedRecord
from engine.events import AnyEvent, LogEvent
from engine.options import DEFAULT, Options, resolve_options
from engine.replay import apply_events, state_from_start
from engine.rules import Play, decide, start_game
from engine.state import State

FORMAT = "dragonheart-record/1"
RESULT_MISMATCH = "result_mismatch"
# Options that are table settings rather than rules stay out of records.
_NOT_RULES = ("open_scores",)
_DECK_SETS = {seat: frozenset(DECKS[seat]) for seat in SEATS}


class Record(NamedTuple):
    options: Options
    players: dict[str, str] | None  # as the document names them (other keys are kept)
    first: Seat
    decks: dict[Seat, list[str]]
    plays: list[Play]
    result: dict[str, Any] | None


def _fail(message: str) -> MalformedRecord:
    return MalformedRecord(message)


_new = tuple.__new__  # skips Play's Python-level __new__ (a third of this function's time)


def _parse_play(index: int, raw: Any) -> Play:
    # The fast path is a plain type check per field: replay speed is JSON-bound already.
    if type(raw) is not dict:
        raise _fail(f"play {index} is not a JSON object")
    cards = raw.get("cards")
    if type(cards) is not list:
        raise _fail(f"play {index}: 'cards' must be a list of card ids")
    for card in cards:
        if type(card) is not str:
            raise _fail(f"play {index}: 'cards' must be a list of card ids")
    choice = raw.get("choice")
    seat = raw.get("seat")
    returned = raw.get("returned")
    if not (choice is None or type(choice) is str):
        raise _fail(f"play {index}: 'choice' must be a string")
    if not (seat is None or type(seat) is str):
        raise _fail(f"play {index}: 'seat' must be a string")
    if not (returned is None or type(returned) is str):
        raise _fail(f"play {index}: 'returned' must be a string")
    return _new(Play, (tuple(cards), choice, seat, returned))


def _parse_result(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    scores = raw.get("scores") if isinstance(raw, dict) else None
    if (
        not isinstance(scores, dict)
        or set(scores) != set(SEATS)
        or not all(type(scores[s]) is int for s in SEATS)
        or "winner" not in raw
        or raw["winner"] not in (*SEATS, None)
    ):
        raise _fail('\'result\' must be {"scores": {"a": int, "b": int}, "winner": "a" | "b" | null}')
    return {"scores": {s: scores[s] for s in SEATS}, "winner": raw.get("winner")}


def parse_record(doc: Any) -> Record:
    """Check that ``doc`` (already JSON-decoded) is a record; raise MalformedRecord if not.
    Problems with single plays are left to the replay, where they are illegal plays."""
    if not isinstance(doc, dict):
        raise _fail("a record is a JSON object")
    if doc.get("format") != FORMAT:
        raise _fail(f"'format' must be {FORMAT!r}")
    options = resolve_options(doc.get("options", {}))
    players = doc.get("players")
    if players is not None and (
        not isinstance(players, dict) or not all(isinstance(players.get(s), str) for s in SEATS)
    ):
        raise _fail("'players' must name seats a and b")
    first = doc.get("first")
    if not is_seat(first):
        raise _fail("'first' must be 'a' or 'b'")
    decks = doc.get("decks")
    if not isinstance(decks, dict):
        raise _fail("'decks' must be an object with the decks of seats a and b")
    for seat in SEATS:
        deck = decks.get(seat)
        if (
            not isinstance(deck, list)
            or len(deck) != 50
            or not all(type(card) is str for card in deck)
            or set(deck) != _DECK_SETS[seat]
        ):
            raise _fail(f"deck {seat} must be a permutation of {seat}00…{seat}49")
    plays = doc.get("plays")
    if not isinstance(plays, list):
        raise _fail("'plays' must be a list")
    return Record(
        options,
        players,
        first,
        {seat: list(decks[seat]) for seat in SEATS},
        [_parse_play(i, p) for i, p in enumerate(plays)],
        _parse_result(doc.get("result")),
    )


class ReplayError(NamedTuple):
    play: int | None
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"error": {"play": self.play, "code": self.code, "message": self.message}}


def replay_record(record: Record) -> tuple[State, list[AnyEvent], ReplayError | None]:
    """Replay a parsed record: the state reached, the event log, and the first error (the
    state is then the one before the faulty play)."""
    start = start_game(None, record.options, first=record.first, decks=record.decks)
    state = state_from_start(start)
    log: list[AnyEvent] = [start]
    for index, play in enumerate(record.plays):
        try:
            produced = decide(state, play)
        except IllegalMove as exc:
            return state, log, ReplayError(index, exc.code, exc.message)
        apply_events(state, produced)
        log.extend(produced)
    if record.result is not None:
        mismatch = _result_mismatch(state, record.result)
        if mismatch:
            return state, log, ReplayError(None, RESULT_MISMATCH, mismatch)
    return state, log, None


def _result_mismatch(state: State, result: dict[str, Any]) -> str | None:
    if not state.over:
        return f"the record states a result, but the game is not over after {state.turn} turns"
    scores = state.scores()
    if scores != result["scores"] or state.winner != result["winner"]:
        return (
            f"the record says {result['scores']} (winner {result['winner']}), "
            f"the replay gives {scores} (winner {state.winner})"
        )
    return None


def replay_document(doc: Any) -> tuple[dict[str, Any], int]:
    """One line of the replay command's output and its exit status (0 fine, 1 an illegal
    play or result mismatch, 2 malformed)."""
    try:
        record = parse_record(doc)
    except MalformedRecord as exc:
        return ReplayError(None, exc.code, exc.message).to_json(), 2
    state, _, error = replay_record(record)
    if error is not None:
        return error.to_json(), 1
    return state.to_json(), 0


def events_from_record(record: Record) -> list[AnyEvent]:
    """The event log of a record; raises IllegalMove if a play is illegal."""
    _, log, error = replay_record(record)
    if error is not None:
        raise IllegalMove(error.code, error.message)
    return log


def record_from_events(
    log: Iterable[LogEvent],
    players: Mapping[str, str] | Mapping[Seat, str] | None = None,
    deal: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The record of a game from its log (running games too; ``result`` once it is over).
    ``players`` maps seats to names, keyed by plain strings (the service) or by Seat (self-play):
    a Mapping is invariant in its keys, so both are spelled out. ``deal`` is the game's
    ``{"salt", "commitment"}`` (engine.deal), given only once the salt may be published."""
    it = iter(log)
    start = next(it)
    options = {k: v for k, v in start["options"].items() if k not in _NOT_RULES and getattr(DEFAULT, k) != v}
    plays: list[dict[str, Any]] = []
    result = None
    for e in it:
        kind = e["kind"]
        if kind == ev.CARDS_PLAYED:
            play: dict[str, Any] = {"cards": list(e["cards"])}
            if e["choice"] is not None:
                play["choice"] = e["choice"]
            plays.append(play)
        elif kind == ev.TURN_PASSED:
            plays.append({"cards": []})
        elif kind == ev.DRAGON_TRANSFERRED and e["returned"] is not None:
            plays[-1]["returned"] = e["returned"]
        elif kind == ev.GAME_ENDED and e["reason"] in (ev.THIRD_VOYAGE, ev.DECK_EXHAUSTED):
            result = {"scores": dict(e["scores"]), "winner": e["winner"]}
    record: dict[str, Any] = {"format": FORMAT}
    if options:
        record["options"] = options
    if players is not None:
        record["players"] = dict(players)
    record["first"] = start["first"]
    record["decks"] = {seat: list(start["decks"][seat]) for seat in SEATS}
    record["plays"] = plays
    if result is not None:
        record["result"] = result
    if deal is not None:
        record["deal"] = dict(deal)
    return record
