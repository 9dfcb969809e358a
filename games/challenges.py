"""Challenges: creating a game (a challenge to a player, an open challenge, or a game against a
bot), accepting, declining or cancelling it, and asking for a rematch. A challenge accepted
becomes a game through services.game_start."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts import bots as bot_accounts
from core.errors import Conflict, Forbidden, InvalidRequest
from engine import MalformedRecord, Options, resolve_options
from engine.bots import BOTS
from games import services, stream_events
from games.errors import StaleVersion
from games.models import DAYS_PER_TURN, MAX_RATING, MIN_RATING, Game, Series
from outbox import account_events
from outbox import services as outbox
from ratings import selectors as rating_selectors

MAX_SERIES_TARGET = 25


def _options(rules: dict[str, Any] | None) -> Options:
    try:
        return resolve_options(rules or {})
    except MalformedRecord as exc:
        raise InvalidRequest("invalid_rules", exc.message) from None


def _opponent(creator: User, opponent: str | None) -> tuple[User | None, str]:
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


def _check_clock(days_per_turn: int | None) -> None:
    if days_per_turn is not None and days_per_turn not in DAYS_PER_TURN:
        raise InvalidRequest(
            "invalid_clock",
            gettext("Days per turn is one of %(days)s, or none.")
            % {"days": ", ".join(map(str, DAYS_PER_TURN))},
        )


def _rated(rated: bool | None, *, bot: str, days_per_turn: int | None, apart: bool = False) -> bool:
    """Whether a new game is rated. Never against the site's bot; never between a bot account
    and a person (``apart``): bots are rated apart from people, each kind on its own board."""
    if bot:
        if rated:
            raise InvalidRequest("bot_not_rated", gettext("Games against the computer are never rated."))
        return False
    if apart:
        if rated:
            raise InvalidRequest("rated_apart", str(_RATED_APART))
        return False
    return days_per_turn is not None if rated is None else rated


_RATED_APART = gettext_lazy(
    "Bot accounts are rated apart from people: a game between a bot account and a person is never rated."
)


def _check_rated_apart(game: Game, user_is_bot: bool) -> None:
    """A rated challenge is accepted only by the creator's kind (a bot account or a person):
    the game would otherwise rate a bot against a person. An open challenge is where this
    bites; a challenge to a named player was made casual at its creation (``_rated``), unless
    that player became a bot while it was being made."""
    if game.rated and game.player_a_is_bot != user_is_bot:
        raise Forbidden("rated_apart", str(_RATED_APART))


def _rating_range(bounds: tuple[int | None, int | None], *, is_open: bool) -> tuple[int | None, int | None]:
    low, high = bounds
    if low is None and high is None:
        return None, None
    if not is_open:
        raise InvalidRequest(
            "invalid_rating_range", gettext("Only an open challenge can ask for a rating range.")
        )
    if any(b is not None and not MIN_RATING <= b <= MAX_RATING for b in bounds) or (
        low is not None and high is not None and low > high
    ):
        raise InvalidRequest(
            "invalid_rating_range",
            gettext("A rating range runs from %(low)d to %(high)d, its lower end first.")
            % {"low": MIN_RATING, "high": MAX_RATING},
        )
    return low, high


def _check_rating_range(game: Game, user: User) -> None:
    """An open challenge asking for a rating range is accepted only by a player within it."""
    if game.rating_min is None and game.rating_max is None:
        return
    rating = rating_selectors.shown_for([user.pk])[user.pk].rating
    if not game.accepts_rating(rating):
        raise Forbidden(
            "outside_rating_range",
            gettext("This challenge asks for a player rated %(range)s; your rating is %(rating)d.")
            % {"range": rating_range_label(game), "rating": rating},
        )


def rating_range_label(game: Game) -> str:
    """ "1400–1700", "1400 or more", "up to 1700", or "" for a challenge open to anyone."""
    low, high = game.rating_min, game.rating_max
    if low is not None and high is not None:
        return f"{low}–{high}"
    if low is not None:
        return gettext("%(low)d or more") % {"low": low}
    if high is not None:
        return gettext("up to %(high)d") % {"high": high}
    return ""


def _series_of(series: dict[str, Any]) -> tuple[str, int]:
    """The kind and target of a series as the API describes it, or an error."""
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
    return str(kind), target


@transaction.atomic
def game_create(
    *,
    creator: User,
    opponent: str | None,
    rules: dict[str, Any] | None = None,
    series: dict[str, Any] | None = None,
    private: bool = False,
    days_per_turn: int | None = None,
    rated: bool | None = None,
    rating_range: tuple[int | None, int | None] = (None, None),
) -> Game:
    """A challenge to a named player, an open challenge (``opponent`` None) or a game against a
    bot, which starts at once. The creator sits in seat a; who begins follows the options.
    A game between two people, or two bot accounts, is rated unless asked otherwise when it
    has a clock (a game without one may wait forever: a rating should not); a game against
    the site's bot, or between a bot account and a person, never is. An open challenge may
    ask for an opponent rated within ``rating_range``."""
    options = _options(rules)
    user, bot = _opponent(creator, opponent)
    _check_clock(days_per_turn)
    bot_ids = bot_accounts.bot_user_ids([creator.pk, user.pk if user is not None else None])
    apart = user is not None and (creator.pk in bot_ids) != (user.pk in bot_ids)
    rated = _rated(rated, bot=bot, days_per_turn=days_per_turn, apart=apart)
    rating_min, rating_max = _rating_range(rating_range, is_open=user is None and not bot)
    series_row = None
    if series is not None:
        kind, target = _series_of(series)
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
        player_a_is_bot=creator.pk in bot_ids,
        player_b_is_bot=user is not None and user.pk in bot_ids,
        bot=bot,
        private=private and is_open,
        invite_token=secrets.token_urlsafe(16) if is_open else None,
        options=options.to_json(),
        series=series_row,
        days_per_turn=days_per_turn,
        rated=rated,
        rating_min=rating_min,
        rating_max=rating_max,
    )
    if bot:
        services.game_start(game=game)
    else:
        account_events.write(stream_events.challenge_made(game))
        if user is not None:
            outbox.game_notification(game=game, user_id=user.pk, kind="challenge")
    return game


@transaction.atomic
def game_accept(*, game: Game, user: User) -> Game:
    # Who was told of the challenge: the challenger, and the challenged if it named one.
    challenged_id = game.player_b_id if game.status == Game.Status.CHALLENGE else None
    if game.status == Game.Status.CHALLENGE:
        if game.player_b_id != user.pk:
            raise Forbidden("not_challenged", gettext("This challenge is addressed to someone else."))
        _check_rated_apart(game, bot_accounts.is_bot(user))
    elif game.status == Game.Status.OPEN:
        if game.player_a_id == user.pk:
            raise InvalidRequest("own_challenge", gettext("You cannot accept your own challenge."))
        _check_rating_range(game, user)
        user_is_bot = bot_accounts.is_bot(user)
        _check_rated_apart(game, user_is_bot)
        # Claim the free seat with a conditional update: of two players accepting at once,
        # exactly one gets it.
        if not Game.objects.filter(pk=game.pk, status=Game.Status.OPEN, player_b__isnull=True).update(
            player_b=user, player_b_name=user.username, player_b_is_bot=user_is_bot
        ):
            raise Conflict("already_taken", gettext("Someone else accepted this challenge first."))
        game.player_b = user
        game.player_b_name = user.username
        game.player_b_is_bot = user_is_bot
        if game.series_id is not None:
            Series.objects.filter(pk=game.series_id).update(player_b=user)
    else:
        raise Conflict(
            "not_a_challenge",
            gettext("This game is %(status)s: there is nothing to accept.")
            % {"status": game.get_status_display()},
        )
    outbox.game_notification(game=game, user_id=game.created_by_id, kind="accepted")
    account_events.write(stream_events.challenge_gone(game, "accepted", challenged_id=challenged_id))
    try:
        services.game_start(game=game)
    except StaleVersion:
        raise Conflict("already_accepted", gettext("This challenge has already been accepted.")) from None
    return game


@transaction.atomic
def game_decline(*, game: Game, user: User) -> Game:
    if game.status != Game.Status.CHALLENGE or game.player_b_id != user.pk:
        raise Forbidden(
            "cannot_decline", gettext("Only the challenged player can decline a challenge that is waiting.")
        )
    _set_status(game, Game.Status.CHALLENGE, Game.Status.DECLINED)
    account_events.write(stream_events.challenge_gone(game, "declined", challenged_id=game.player_b_id))
    return game


@transaction.atomic
def game_cancel(*, game: Game, user: User) -> Game:
    if game.created_by_id != user.pk:
        raise Forbidden("cannot_cancel", gettext("Only the player who made the challenge can cancel it."))
    if game.status not in (Game.Status.CHALLENGE, Game.Status.OPEN):
        raise Conflict(
            "not_a_challenge",
            gettext("This game is %(status)s: only unanswered challenges can be cancelled.")
            % {"status": game.get_status_display()},
        )
    challenged_id = game.player_b_id if game.status == Game.Status.CHALLENGE else None
    _set_status(game, game.status, Game.Status.CANCELLED)
    account_events.write(stream_events.challenge_gone(game, "cancelled", challenged_id=challenged_id))
    return game


def _set_status(game: Game, old: str, new: str) -> None:
    if not Game.objects.filter(pk=game.pk, status=old, version=0).update(
        status=new, finished_at=timezone.now()
    ):
        raise Conflict("challenge_answered", gettext("This challenge has just been answered."))
    game.status = new


@transaction.atomic
def game_rematch(*, game: Game, user: User) -> Game:
    """A new game against the same opponent with the same rules: a challenge they accept, or
    at once against a bot. Asking twice returns the same rematch."""
    services.player_seat(game, user)
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
        rated=game.rated,
    )
    Game.objects.filter(pk=rematch.pk).update(rematch_of=game)
    rematch.rematch_of = game
    return rematch
