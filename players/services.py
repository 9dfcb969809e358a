"""Turning an account into a bot (POST /api/account/bot/). The switch is accounts.bots's; this
floor knows games, so it is the one that can say whether the account has played."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from accounts import bots as bot_accounts
from core.errors import Conflict
from games.models import Game

# A challenge declined or cancelled never was a game, and cannot be undone: it does not count.
# Every other game counts, a challenge still waiting too (it would become a game).
_NOT_PLAYED = (Game.Status.DECLINED, Game.Status.CANCELLED)
_WAITING = (Game.Status.CHALLENGE, Game.Status.OPEN)


class HasPlayed(Conflict):
    # The API's words (POST /api/account/bot/), in English as every API error.
    def __init__(self, *, only_waiting: bool) -> None:
        if only_waiting:
            detail = (
                "This account has a challenge waiting: cancel or decline it first, and the account "
                "can become a bot (only an account that has played no game can)."
            )
        else:
            detail = (
                "Only an account that has played no game can become a bot, and this one has played: "
                "sign up a new account for the bot."
            )
        super().__init__("has_played", detail)


def played_statuses(user: User) -> set[str]:
    """The statuses of the games ``user`` sits in, started or not (a waiting challenge counts);
    empty for an account that has played no game."""
    games = Game.objects.of_player(user).exclude(status__in=_NOT_PLAYED)
    return set(games.values_list("status", flat=True).distinct().order_by())


@transaction.atomic
def bot_account_create(*, user: User) -> User:
    """Make ``user`` a bot account, for good. Refused (409) when it is one already
    (accounts.bots.AlreadyBot) or sits in a game (HasPlayed). The user's row is locked first,
    so that two calls at once take turns: the second finds a bot."""
    list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
    if bot_accounts.is_bot(user):
        raise bot_accounts.AlreadyBot()
    statuses = played_statuses(user)
    if statuses:
        raise HasPlayed(only_waiting=statuses <= set(_WAITING))
    bot_accounts.make_bot(user)
    return user
