"""Writes: creating, accepting and playing games. Every change to a started game goes through
the engine's ``decide`` and ``event_log.append``; side effects are queued on commit."""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from collections.abc import Sequence
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import Conflict, Forbidden, InvalidRequest
from engine import (
    Abort,
    Event,
    IllegalMove,
    MalformedRecord,
    Options,
    Play,
    Resign,
    Timeout,
    apply_events,
    decide,
    resolve_options,
)
from engine.bots import BOTS, make_bot
from engine.match import GameResult, next_first, standing
from engine.replay import state_from_start
from engine.rules import start_game
from engine.state import State
from engine.visibility import seat_view
from games import event_log
from games.errors import StaleVersion, illegal_move_detail
from games.models import DAYS_PER_TURN, Game, IdempotentPlay, Series
from outbox import services as outbox

log = logging.getLogger(__name__)
User = get_user_model()

# Shuffles and the card put back on losing the dragon must be unpredictable to players.
_table_rng = random.SystemRandom()
BOT_SEAT = "b"
BOT_TURN_TASK = "games.tasks.play_bot_turn"
MAX_SERIES_TARGET = 25


def _options(rules: dict[str, Any] | None) -> Options:
    try:
        return resolve_options(rules or {})
    except MalformedRecord as exc:
        raise InvalidRequest("invalid_rules", exc.message) from None


def _opponent(creator: Any, opponent: str | None) -> tuple[Any, str]:
    """(user, bot name) for the ``opponent`` field: a username, ``bot:NAME`` or None."""
    if opponent is None:
        return None, ""
    if opponent.startswith("bot:"):
        name = opponent.removeprefix("bot:")
        if name not in BOTS:
            raise InvalidRequest(
                "unknown_bot",
                gettext("There is no bot %(name)s; choose one of %(bots)s.")
                % {"name": repr(name), "bots": ", ".join(BOTS)},
            )
        return None, name
    user = User.objects.filter(username__iexact=opponent, is_active=True).first()
    if user is None:
        raise InvalidRequest(
            "unknown_opponent", gettext("There is no player called %(name)s.") % {"name": repr(opponent)}
        )
    if user.pk == creator.pk:
        raise InvalidRequest("self_challenge", gettext("You cannot challenge yourself."))
    return user, ""


@transaction.atomic
def game_create(
    *,
    creator: Any,
    opponent: str | None,
    rules: dict[str, Any] | None = None,
    series: dict[str, Any] | None = None,
    private: bool = False,
    days_per_turn: int | None = None,
) -> Game:
    """A challenge to a named player, an open challenge (``opponent`` None) or a game against a
    bot, which starts at once. The creator sits in seat a; who begins follows the options."""
    options = _options(rules)
    user, bot = _opponent(creator, opponent)
    if days_per_turn is not None and days_per_turn not in DAYS_PER_TURN:
        raise InvalidRequest(
            "invalid_clock",
            gettext("Days per turn is one of %(days)s, or none.")
            % {"days": ", ".join(map(str, DAYS_PER_TURN))},
        )
    series_row = None
    if series is not None:
        kind, target = series.get("kind"), series.get("target")
        if (
            kind not in (Series.MATCH, Series.SUMOF)
            or type(target) is not int  # not isinstance: JSON true is no target of 1
            or not 1 <= target <= MAX_SERIES_TARGET
        ):
            raise InvalidRequest(
                "invalid_series",
                gettext("A series is 'match' or 'sumof' with a target from 1 to %(max)d.")
                % {"max": MAX_SERIES_TARGET},
            )
        series_row = Series.objects.create(
            kind=kind, target=target, player_a=creator, player_b=user, bot=bot, options=options.to_json()
        )
    is_open = user is None and not bot
    game = Game.objects.create(
        status=Game.Status.OPEN if is_open else Game.Status.CHALLENGE,
        created_by=creator,
        player_a=creator,
        player_b=user,
        player_a_name=creator.username,
        player_b_name=user.username if user is not None else "",
        bot=bot,
        private=private and is_open,
        invite_token=secrets.token_urlsafe(16) if is_open else None,
        options=options.to_json(),
        series=series_row,
        days_per_turn=days_per_turn,
    )
    if bot:
        _start(game)
    elif user is not None:
        outbox.game_notification(game=game, user_id=user.pk, kind="challenge")
    return game


def _start(game: Game, first: str | None = None) -> State:
    """Shuffle, deal and record ``game_started``: the game becomes active."""
    event = start_game(_table_rng, Options(**game.options), first=first)
    state = state_from_start(event)
    _append_with_follow_ups(
        game,
        [event],
        expected_version=0,
        state=state,
        status=Game.Status.ACTIVE,
        started_at=timezone.now(),
        first=state.first,
    )
    return state


@transaction.atomic
def game_accept(*, game: Game, user: Any) -> Game:
    if game.status == Game.Status.CHALLENGE:
        if game.player_b_id != user.pk:
            raise Forbidden("not_challenged", gettext("This challenge is addressed to someone else."))
    elif game.status == Game.Status.OPEN:
        if game.player_a_id == user.pk:
            raise InvalidRequest("own_challenge", gettext("You cannot accept your own challenge."))
        # Claim the free seat with a conditional update: of two players accepting at once,
        # exactly one gets it.
        if not Game.objects.filter(pk=game.pk, status=Game.Status.OPEN, player_b__isnull=True).update(
            player_b=user, player_b_name=user.username
        ):
            raise Conflict("already_taken", gettext("Someone else accepted this challenge first."))
        game.player_b = user
        game.player_b_name = user.username
        if game.series_id is not None:
            Series.objects.filter(pk=game.series_id).update(player_b=user)
    else:
        raise Conflict(
            "not_a_challenge",
            gettext("This game is %(status)s: there is nothing to accept.")
            % {"status": game.get_status_display()},
        )
    outbox.game_notification(game=game, user_id=game.created_by_id, kind="accepted")
    try:
        _start(game)
    except StaleVersion:
        raise Conflict("already_accepted", gettext("This challenge has already been accepted.")) from None
    return game


def game_decline(*, game: Game, user: Any) -> Game:
    if game.status != Game.Status.CHALLENGE or game.player_b_id != user.pk:
        raise Forbidden(
            "cannot_decline", gettext("Only the challenged player can decline a challenge that is waiting.")
        )
    _set_status(game, Game.Status.CHALLENGE, Game.Status.DECLINED)
    return game


def game_cancel(*, game: Game, user: Any) -> Game:
    if game.created_by_id != user.pk:
        raise Forbidden("cannot_cancel", gettext("Only the player who made the challenge can cancel it."))
    if game.status not in (Game.Status.CHALLENGE, Game.Status.OPEN):
        raise Conflict(
            "not_a_challenge",
            gettext("This game is %(status)s: only unanswered challenges can be cancelled.")
            % {"status": game.get_status_display()},
        )
    _set_status(game, game.status, Game.Status.CANCELLED)
    return game


def _set_status(game: Game, old: str, new: str) -> None:
    if not Game.objects.filter(pk=game.pk, status=old, version=0).update(
        status=new, finished_at=timezone.now()
    ):
        raise Conflict("challenge_answered", gettext("This challenge has just been answered."))
    game.status = new


def game_play(
    *,
    game: Game,
    user: Any,
    cards: list[str],
    choice: str | None,
    expected_version: int,
    idempotency_key: str | None = None,
    fingerprint: str = "",
    from_page: bool = False,
) -> State:
    """One play, checked in the order the API promises: seated, version, game running, turn,
    then the rules. Returns the new state; raises a ServiceError and writes nothing otherwise.
    With ``idempotency_key``, the key is written with the play, all or nothing. A play
    ``from_page`` may leave the bot's reply to the page's poll (``bot_turn_by_poll``)."""
    state = play_guards(game=game, user=user, expected_version=expected_version)
    try:
        events = decide(state, Play(tuple(cards), choice), _table_rng)
    except IllegalMove as exc:
        raise InvalidRequest(exc.code, illegal_move_detail(exc.code, exc.message)) from None
    apply_events(state, events)
    companions = (
        []
        if idempotency_key is None
        else [
            IdempotentPlay(
                user=user, key=idempotency_key, game=game, fingerprint=fingerprint, version=state.version
            )
        ]
    )
    try:
        _append_with_follow_ups(
            game,
            events,
            expected_version=expected_version,
            state=state,
            actor=user,
            companions=companions,
            bot_turn_queued=not (from_page and bot_turn_by_poll()),
        )
    except IntegrityError:
        if idempotency_key is None:
            raise
        # The only row a sound log lets clash: events wait for the version check.
        raise Conflict(
            "idempotency_key_reused", gettext("This Idempotency-Key was already used for another play.")
        ) from None
    return state


def play_guards(*, game: Game, user: Any, expected_version: int | None) -> State:
    """The checks that come before the rules, in the API's order: seated (403), version (409;
    skipped when None, for a play that states none), game running, turn (403). Returns the
    current state; raises the first ServiceError. The API also runs them on a malformed play,
    so that a malformed body is reported only after these."""
    seat = _seat(game, user)
    if expected_version is not None and expected_version != game.version:
        raise StaleVersion(expected_version, game.version)
    state = _running_state(game)
    if state.to_move != seat:
        raise Forbidden("not_your_turn", gettext("It is not your turn: wait for your opponent's play."))
    return state


def play_fingerprint(*, game_id: str, cards: list[str], choice: str | None, expected_version: int) -> str:
    """What makes two requests the same play, for Idempotency-Key checks."""
    play = json.dumps([game_id, cards, choice, expected_version])
    return hashlib.sha256(play.encode()).hexdigest()


def previous_play(*, user: Any, idempotency_key: str) -> IdempotentPlay | None:
    return IdempotentPlay.objects.filter(user=user, key=idempotency_key).first()


def game_resign(*, game: Game, user: Any) -> State:
    seat = _seat(game, user)
    for _ in range(5):  # a resignation wins a race with a play: retry on a moved version
        state = _running_state(game)
        events = decide(state, Resign(seat))
        apply_events(state, events)
        try:
            _append_with_follow_ups(game, events, expected_version=game.version, state=state, actor=user)
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
    _append_with_follow_ups(game, events, expected_version=game.version, state=state)
    return state


def _seat(game: Game, user: Any) -> str:
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
        _append_with_follow_ups(game, events, expected_version=game.version, state=state)
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


def _append_with_follow_ups(
    game: Game,
    events: list[Event],
    *,
    expected_version: int,
    state: State,
    actor: Any = None,
    companions: Sequence[Model] = (),
    bot_turn_queued: bool = True,
    **extra: Any,
) -> None:
    """Append ``events`` (applied to ``state``) and what follows from them, all or nothing. A
    change that hands the turn on is one statement on PostgreSQL (event_log.append), its "your
    turn" outbox row included; the end of a game writes more (its emails, the series' next
    game) in a transaction. The bot's move is queued once the change has committed."""
    note = (
        outbox.turn_note(game=game, seat=state.to_move, version=state.version)
        if state.to_move is not None and not state.over
        else None
    )
    with transaction.atomic() if state.over else nullcontext():
        event_log.append(
            game,
            events,
            expected_version=expected_version,
            state=state,
            actor=actor,
            companions=[*companions, note] if note is not None else companions,
            **extra,
        )
        if state.over:
            for user_id in (game.player_a_id, game.player_b_id):
                if user_id is not None:
                    outbox.game_notification(game=game, user_id=user_id, kind="game_over")
            if game.series_id is not None:
                _series_progress(game)
    if note is not None:
        outbox.announce(note)
    if not state.over and game.bot and state.to_move == BOT_SEAT and bot_turn_queued:
        transaction.on_commit(lambda: _queue_bot_turn(game.pk))


def bot_turn_due_for_page(turn_started_at: datetime | None) -> bool:
    """Whether the game page's poll should play the bot's turn now: only when tasks run
    in-process (a worker plays it on its own countdown) and once the bot has waited its
    BOT_MOVE_DELAY_SECONDS since the turn became its own."""
    from django.conf import settings

    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    if turn_started_at is None:
        return True
    return timezone.now() - turn_started_at >= timedelta(seconds=settings.BOT_MOVE_DELAY_SECONDS)


def bot_turn_by_poll() -> bool:
    """Whether a play from the game page leaves the bot's reply to the page's poll
    (views.game_poll, which plays it once bot_turn_due_for_page): when tasks run in-process, a
    queued bot turn would be played at once inside the player's request, whatever its
    countdown, and the player would never see the board between their play and the bot's. A
    delay of 0 asks for the reflex (tests of whole games use it); with a worker the countdown
    already delays the reply. A page closed meanwhile leaves the turn to its next visit."""
    from django.conf import settings

    return bool(settings.CELERY_TASK_ALWAYS_EAGER) and settings.BOT_MOVE_DELAY_SECONDS > 0


def _queue_bot_turn(game_id: str) -> None:
    from django.conf import settings

    try:
        # By name: games.tasks calls these services (GamesConfig.ready registers it).
        current_app.signature(BOT_TURN_TASK, (game_id,)).apply_async(
            countdown=settings.BOT_MOVE_DELAY_SECONDS
        )
    except Exception:  # the broker is down: the play stands, the sweep will queue it later
        log.exception("could not queue the bot's turn in game %s", game_id)


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
        days_per_turn=game.days_per_turn,
        bot=series.bot,
        options=series.options,
        series=series,
        number=now.games + 1,
    )
    _start(following, first=next_first(results, options.match_first_player, _table_rng))


@transaction.atomic
def game_rematch(*, game: Game, user: Any) -> Game:
    """A new game against the same opponent with the same rules: a challenge they accept, or
    at once against a bot. Asking twice returns the same rematch."""
    _seat(game, user)
    if game.status != Game.Status.FINISHED:
        raise Conflict("game_not_over", gettext("A rematch can be asked once the game is over."))
    existing = Game.objects.filter(rematch_of=game).first()
    if existing is not None:
        return existing
    opponent = game.player_b if game.player_a_id == user.pk else game.player_a
    assert game.bot or opponent is not None, "a finished game has two players"
    rematch = game_create(
        creator=user,
        opponent=f"bot:{game.bot}" if game.bot or opponent is None else opponent.username,
        rules=game.options,
        days_per_turn=game.days_per_turn,
    )
    Game.objects.filter(pk=rematch.pk).update(rematch_of=game)
    rematch.rematch_of = game
    return rematch
