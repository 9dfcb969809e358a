"""Writes to a started game: its start, plays, resignations, time-outs and the bot's turns.
Every change goes through the engine's ``decide`` and one ``event_log.append``, with what
follows from it (the turn clock, the outbox row, the series' next game); side effects are
queued on commit. Challenges, which become games here, are games/challenges.py."""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext

from core import deferred
from core.errors import Conflict, Forbidden, InvalidRequest, ServiceError
from engine import (
    Abort,
    AnyEvent,
    IllegalMove,
    Options,
    Play,
    Resign,
    Seat,
    Timeout,
    apply_events,
    decide,
)
from engine import events as ev
from engine.bots import make_bot
from engine.deal import SALT_BYTES, Deal
from engine.match import GameResult, next_first, standing
from engine.replay import state_from_start
from engine.rules import start_game
from engine.state import State
from engine.visibility import seat_view
from games import clocks, event_log, play_messages, stream_events, vacations
from games.errors import StaleVersion, illegal_move_detail
from games.models import Game, IdempotentPlay, Series
from outbox import account_events
from outbox import services as outbox
from ratings import services as ratings
from ratings.services import Result

log = logging.getLogger(__name__)

# Shuffles and the card put back on losing the dragon must be unpredictable to players.
_table_rng = random.SystemRandom()
BOT_SEAT: Seat = "b"
BOT_TURN_TASK = "games.tasks.play_bot_turn"
REVIEW_TASK = "games.tasks.review_game"
MAX_IDEMPOTENCY_KEY = 255


def game_start(*, game: Game, first: Seat | None = None) -> State:
    """Shuffle, deal and record ``game_started`` with the deal's commitment (engine.deal):
    the game becomes active."""
    event = start_game(_table_rng, Options(**game.options), first=first)
    state = state_from_start(event)
    # From the operating system, never the table's generator: whoever could replay that
    # (a test stacks it) must not be able to guess the salt and open the commitment early.
    deal = Deal.of(event["decks"], secrets.token_bytes(SALT_BYTES))
    columns = {
        "status": Game.Status.ACTIVE,
        "started_at": timezone.now(),
        "first": state.first,
        "deal_commitment": deal.commitment,
        "deal_salt": deal.salt.hex(),
    }
    _append_with_follow_ups(game, Change([event], state, 0, columns=columns))
    return state


@dataclass(frozen=True)
class PlayOutcome:
    """A play's result: the state after it, and whether it was an Idempotency-Key's retry of
    a play already recorded (nothing new written; ``state`` is the game's now)."""

    state: State
    replayed: bool = False


def game_play(
    *,
    game: Game,
    user: User,
    cards: list[str],
    choice: str | None,
    expected_version: int,
    idempotency_key: str | None = None,
    message: str | None = None,
) -> PlayOutcome:
    """One play, checked in the order the API promises: seated, version, game running, turn,
    then the rules; raises a ServiceError and writes nothing otherwise. With
    ``idempotency_key`` the key is written with the play, all or nothing, and a retry of the
    same play under the same key (its version now stale) answers as the first did. A
    ``message`` (games/play_messages.py) is written with the play, all or nothing too."""
    key = _checked_key(idempotency_key)
    said = play_messages.cleaned(message)
    play_messages.check_length(said)
    fingerprint = play_fingerprint(
        game_id=game.pk, cards=cards, choice=choice, expected_version=expected_version, message=said
    )
    if key is not None and (replayed := _replay(game, user, key, fingerprint)) is not None:
        return replayed
    try:
        state = _play(game, user, Play(tuple(cards), choice), expected_version, key, fingerprint, said)
    except StaleVersion:
        # The loser of a race with its own retry answers as the winner did.
        if key is not None and (replayed := _replay(game, user, key, fingerprint)) is not None:
            return replayed
        raise
    return PlayOutcome(state)


def _checked_key(key: str | None) -> str | None:
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise InvalidRequest(
            "invalid_idempotency_key",
            gettext("An Idempotency-Key has 1 to %(max)d characters.") % {"max": MAX_IDEMPOTENCY_KEY},
        )
    return key


def _replay(game: Game, user: User, key: str, fingerprint: str) -> PlayOutcome | None:
    """The answer to a retry of a play recorded under ``key``; None if none is."""
    previous = IdempotentPlay.objects.filter(user=user, key=key).first()
    if previous is None:
        return None
    if previous.fingerprint != fingerprint:
        raise Conflict(
            "idempotency_key_reused", gettext("This Idempotency-Key was already used for another play.")
        )
    game.refresh_from_db()
    return PlayOutcome(event_log.load_state(game), replayed=True)


def _play(
    game: Game,
    user: User,
    play: Play,
    expected_version: int,
    key: str | None,
    fingerprint: str,
    message: str = "",
) -> State:
    state = play_guards(game=game, user=user, expected_version=expected_version)
    seat = state.to_move
    assert seat is not None  # play_guards: it is the user's turn
    try:
        events = decide(state, play, _table_rng)
    except IllegalMove as exc:
        raise InvalidRequest(exc.code, illegal_move_detail(exc.code, exc.message)) from None
    apply_events(state, events)
    change = Change(events, state, expected_version, actor=user)
    if key is not None:
        change.companions.append(
            IdempotentPlay(user=user, key=key, game=game, fingerprint=fingerprint, version=state.version)
        )
    if message:
        # In the play's own statement: a play refused from here on (a stale version) leaves
        # no message behind. ``state.turn`` is the turn this play completed.
        change.companions.append(
            play_messages.message_row(
                game=game, user=user, seat=seat, turn=state.turn, version=state.version, text=message
            )
        )
    try:
        _append_with_follow_ups(game, change)
    except IntegrityError:
        if key is None:
            raise
        # The only row a sound log lets clash: events wait for the version check.
        raise Conflict(
            "idempotency_key_reused", gettext("This Idempotency-Key was already used for another play.")
        ) from None
    return state


def play_guards(*, game: Game, user: User, expected_version: int | None) -> State:
    """The checks that come before the rules, in the API's order: seated (403), version (409;
    skipped when None, for a play that states none), game running, turn (403). Returns the
    current state; raises the first ServiceError. The API also runs them on a malformed play,
    so that a malformed body is reported only after these."""
    seat = player_seat(game, user)
    if expected_version is not None and expected_version != game.version:
        raise StaleVersion(expected_version, game.version)
    state = _running_state(game)
    if state.to_move != seat:
        raise Forbidden("not_your_turn", gettext("It is not your turn: wait for your opponent's play."))
    return state


def play_fingerprint(
    *, game_id: str, cards: list[str], choice: str | None, expected_version: int, message: str = ""
) -> str:
    """What makes two requests the same play, for Idempotency-Key checks (a play without a
    message keeps the fingerprint it had before messages existed)."""
    fields: list[Any] = [game_id, cards, choice, expected_version]
    play = json.dumps([*fields, message] if message else fields)
    return hashlib.sha256(play.encode()).hexdigest()


def game_resign(*, game: Game, user: User) -> State:
    seat = player_seat(game, user)
    for _ in range(5):  # a resignation wins a race with a play: retry on a moved version
        state = _running_state(game)
        events = decide(state, Resign(seat))
        apply_events(state, events)
        try:
            _append_with_follow_ups(game, Change(events, state, game.version, actor=user))
            return state
        except StaleVersion:
            game.refresh_from_db()
    raise Conflict("busy", gettext("The game is changing too fast; try again."))


def game_time_out(*, game: Game) -> State:
    """The player to move let the deadline pass: a loss on time, or an abort if the game's
    first move never came. Raises StaleVersion if a play got in first."""
    state = _running_state(game)
    seat = state.to_move
    assert seat is not None
    events = decide(state, Abort(seat) if state.turn == 0 else Timeout(seat))
    apply_events(state, events)
    _append_with_follow_ups(game, Change(events, state, game.version))
    return state


def time_out_overdue_games(*, now: datetime) -> int:
    """End every game whose player to move ran out of time (clocks.overdue); a play that came
    in at the last second restarted its clock and is left alone."""
    ended = 0
    for game in clocks.overdue(now):
        try:
            game_time_out(game=game)
            ended += 1
        except ServiceError as exc:
            log.info("game %s not timed out: %s", game.pk, exc.code)
    return ended


def turn_clock_check(*, game_id: str, turn_started: datetime, now: datetime) -> bool:
    """What the clock of the turn that started at ``turn_started`` asks for at ``now``: a
    time-out at its deadline (not while its player is away: the vacation's end gives the time
    back), else its reminder once 75% of its time has gone. True if it did either; nothing
    for a turn over since (checked twice, it reminds once: the reminder's key)."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE, turn_started_at=turn_started).first()
    if game is None or game.deadline is None:
        return False
    away = vacations.away_user_ids(now)
    if now < game.deadline:
        return now >= clocks.reminder_at(game.deadline, game.days_per_turn) and clocks.remind(game, away)
    if clocks.player_to_move(game) in away:
        return False
    try:
        game_time_out(game=game)
    except ServiceError as exc:  # a play at the last second: its turn has a clock of its own
        log.info("game %s not timed out: %s", game.pk, exc.code)
        return False
    return True


def player_seat(game: Game, user: User) -> Seat:
    seat = game.seat_of(user)
    if seat is None:
        raise Forbidden("not_a_player", gettext("You are not playing in this game."))
    return seat


def _running_state(game: Game) -> State:
    if game.status == Game.Status.FINISHED:
        raise InvalidRequest("game_over", gettext("The game is over: no more plays."))
    if game.status != Game.Status.ACTIVE:
        raise Conflict(
            "game_not_started", gettext("The game has not started: the challenge is not accepted yet.")
        )
    return event_log.load_state(game)


def bot_play_turn(*, game_id: str) -> bool:
    """Play the bot's turn if it is the bot's turn; False if there was nothing to do (so a
    task delivered twice plays once)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or not game.bot or game.to_move != BOT_SEAT:
        return False
    state = event_log.load_state(game)
    # Seeded from the table's generator, so that a test that seeds the table seeds the bot.
    bot = make_bot(game.bot, random.Random(_table_rng.randrange(2**64)))
    # The log tells the search bots which card they put back on their pile (seat_view).
    log = event_log.read_log(game)
    events = decide(state, bot.choose(seat_view(state, BOT_SEAT, log)), _table_rng)
    apply_events(state, events)
    try:
        _append_with_follow_ups(game, Change(events, state, game.version))
    except StaleVersion:
        return False
    return True


def queue_overdue_bot_turns(*, waited_seconds: float) -> int:
    """Queue the bot's turn in every game where it has waited longer than ``waited_seconds``
    (its task was lost: the broker was down when the play committed, or a worker died). A
    turn queued twice is played once (``bot_play_turn`` checks the version)."""
    cutoff = timezone.now() - timedelta(seconds=waited_seconds)
    waiting = Game.objects.filter(
        status=Game.Status.ACTIVE, to_move=BOT_SEAT, turn_started_at__lt=cutoff
    ).exclude(bot="")
    game_ids = list(waiting.values_list("pk", flat=True)[:500])
    for game_id in game_ids:
        _queue_bot_turn(game_id)
    return len(game_ids)


@dataclass
class Change:
    """What one decision records: its events (already applied to ``state``), the version they
    follow, who made it, Game columns it sets beyond the log's own (a start's status) and new
    rows that go with it (a play's idempotency key)."""

    events: list[AnyEvent]
    state: State
    expected_version: int
    actor: User | None = None
    columns: dict[str, Any] = field(default_factory=dict)
    companions: list[Model] = field(default_factory=list)


def _append_with_follow_ups(game: Game, change: Change) -> None:
    """Record ``change`` and what follows from it, all or nothing: the turn clock, the "your
    turn" outbox row (in the same statement on PostgreSQL: event_log.append), and at the end
    of a game its emails and the series' next game (in a transaction). Once the change has
    committed, the work it leaves for later is queued (core.deferred): the bot's move, the
    review of a finished game (a turn's clock is queued by the minute's sweep: clocks.py).
    Raises StaleVersion if the version moved."""
    state = change.state
    note = (
        None
        if state.over or state.to_move is None
        else outbox.turn_note(game=game, seat=state.to_move, version=state.version)
    )
    columns = {**clocks.turn_clock(game, state, timezone.now()), **change.columns}
    companions = [*change.companions, note] if note is not None else change.companions
    # The account streams' events: one (a play's "your turn") goes in the play's own
    # statement; more (a start's) are written one by one, in a transaction, in their order.
    told = stream_events.after_change(game, state, change.events, columns)
    if len(told) == 1:
        companions = [*companions, *told]
    with transaction.atomic() if state.over or len(told) > 1 else nullcontext():
        event_log.append(
            game,
            change.events,
            expected_version=change.expected_version,
            state=state,
            actor=change.actor,
            columns=columns,
            companions=companions,
        )
        if len(told) > 1:
            account_events.write(told)
        if state.over:
            _game_over(game, state)
            # Only once the end has committed: the review reads the finished game's log, and
            # its search (seconds of CPU) must never run inside the play's transaction.
            transaction.on_commit(lambda: _queue_review(game.pk))
    if note is not None:
        outbox.announce(note)
    if not state.over and game.bot and state.to_move == BOT_SEAT:
        transaction.on_commit(lambda: _queue_bot_turn(game.pk))


def _game_over(game: Game, state: State) -> None:
    """What a game's end writes with it: the rating changes, the emails, the series' next game."""
    if game.rated and state.end_reason != ev.ABORTED and game.player_a_id and game.player_b_id:
        assert game.finished_at is not None  # set by event_log.append with the end
        ratings.rate_game(
            Result(
                game_id=game.pk,
                player_a=game.player_a_id,
                player_b=game.player_b_id,
                score_a=ratings.score_of_a(state.winner),
                ended_at=game.finished_at,
            )
        )
    for user_id in (game.player_a_id, game.player_b_id):
        if user_id is not None:
            outbox.game_notification(game=game, user_id=user_id, kind="game_over")
    account_events.write(stream_events.game_over(game))
    if game.series_id is not None:
        _series_progress(game)


def _queue_bot_turn(game_id: str) -> None:
    """The bot "thinks" for BOT_MOVE_DELAY_SECONDS, then a worker plays its turn; a lost task is
    queued again by the sweep (queue_overdue_bot_turns)."""
    from django.conf import settings

    # By name: games.tasks calls these services (GamesConfig.ready registers it).
    deferred.defer(BOT_TURN_TASK, game_id, countdown=settings.BOT_MOVE_DELAY_SECONDS)


def _queue_review(game_id: str) -> None:
    # By name, as the bot's turn: games.tasks imports games.reviews, which reads the log. A
    # lost task is queued again by the beat sweep (tasks.sweep_reviews).
    deferred.defer(REVIEW_TASK, game_id)


def _series_progress(game: Game) -> None:
    series = Series.objects.select_for_update().get(pk=game.series_id)
    finished = Game.objects.filter(series=series, status=Game.Status.FINISHED).order_by("number")
    results = [
        GameResult(g.scores or {}, g.winner or None, g.first)
        for g in finished.only("scores", "winner", "first")
    ]
    options = Options(**series.options)
    now = standing(series.kind, series.target, results, options.sumof_tiebreak)
    series.standings = {"games": now.games, "wins": now.wins, "points": now.points}
    series.over = now.over
    series.winner = now.winner or ""
    series.save(update_fields=["standings", "over", "winner"])
    if now.over:
        return
    following = Game.objects.create(
        status=Game.Status.CHALLENGE,
        created_by=series.player_a,
        player_a=series.player_a,
        player_b=series.player_b,
        player_a_name=game.player_a_name,
        player_b_name=game.player_b_name,
        player_a_is_bot=game.player_a_is_bot,
        player_b_is_bot=game.player_b_is_bot,
        days_per_turn=game.days_per_turn,
        rated=game.rated,
        bot=series.bot,
        options=series.options,
        series=series,
        number=now.games + 1,
    )
    game_start(game=following, first=next_first(results, options.match_first_player, _table_rng))
