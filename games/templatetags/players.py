"""What the lobby and the waiting page say about the players of a game: names as pages show
them (a bot as "Computer (medium)") with the BOT badge beside a bot's, the viewer's opponent,
the clock and times as people say them, and, for a finished game, how it went for the viewer."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import template
from django.contrib.humanize.templatetags.humanize import naturaltime
from django.utils import timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timesince import timeuntil
from django.utils.translation import gettext, ngettext

from accounts import bots as bot_accounts
from games.challenges import rating_range_label
from games.history import end_reason
from games.models import Game, shown_name
from ratings.selectors import Shown

register = template.Library()


@register.filter
def player(name: str | None) -> str | None:
    """``{{ p.username|player }}``: a name from ``Game.player_name`` or a view's ``username``
    as pages show it; see games.models.shown_name."""
    return shown_name(name)


# What an email's text says beside a bot's name, where no badge can show: "BOT" is the mark
# every language's players know (lichess's too), so it is not translated; the badge's
# title, which explains it, is.
BOT_MARK = "BOT"


def bot_marked(name: str, is_bot: bool) -> str:
    """``name`` as an email or a push says it: "botty (BOT)" for a bot, else as it is."""
    return f"{name} ({BOT_MARK})" if is_bot else name


@register.filter
def bot_badge(is_bot: bool) -> SafeString:
    """``{{ p.is_bot|bot_badge }}``: the BOT badge (with the space before it) for a bot, else
    nothing. One place for its markup: an abbreviation whose title says what it means."""
    if not is_bot:
        return mark_safe("")
    title = gettext("Bot: a program makes this player's plays")
    return format_html(' <abbr class="bot-badge" title="{}">{}</abbr>', title, BOT_MARK)


@register.filter
def badged(name: str | None, is_bot: bool) -> SafeString:
    """``{{ p.username|player|badged:p.is_bot }}``: the name, escaped, and the badge beside it
    for a bot; "" for no name (an open seat), so that ``|default:`` still applies."""
    if not name:
        return mark_safe("")
    return mark_safe(conditional_escape(name) + bot_badge(is_bot))


@register.filter
def badged_seat(game: Game, seat: str) -> SafeString:
    """``{{ game|badged_seat:"a" }}``: the seat's player as pages show it, badged if a bot."""
    return badged(game.shown_player_name(seat), game.seat_is_bot(seat))


@register.filter
def user_badge(user: Any) -> SafeString:
    """``{{ player|user_badge }}``: the badge beside an account's own name, if it is a bot
    account (load the user with ``select_related("bot_account")`` to ask no query)."""
    return bot_badge(bot_accounts.is_bot(user))


@register.filter
def seat_badge(game: Game, seat: str) -> SafeString:
    """``{{ game|seat_badge:s.seat }}``: the badge alone, beside a seat's name shown already."""
    return bot_badge(game.seat_is_bot(seat))


@register.filter
def badged_opponent_of(game: Game, user: Any) -> SafeString:
    """``opponent_of`` with the badge beside a bot's name."""
    return badged_seat(game, "b" if game.seat_of(user) == "a" else "a")


@register.filter
def outcome_for(game: Game, user: Any) -> str:
    """For ``user`` in a finished game: "won", "lost" or "draw"; "" for anyone else (a game
    they watch, or one not finished)."""
    seat = game.seat_of(user)
    return "" if seat is None else game.outcome_of(seat)


@register.filter
def rating_range(game: Game) -> str:
    """An open challenge's rating range as the lobby shows it: "1400–1700", "1400 or more"."""
    return rating_range_label(game)


@register.filter
def in_range_of(game: Game, rating: Shown | None) -> bool:
    """Whether a player of ``rating`` may accept the open challenge ``game`` (Game.accepts_rating;
    games.challenges checks it again on accepting)."""
    return rating is None or game.accepts_rating(rating.rating)


@register.filter
def end_reason_label(reason: str) -> str:
    """How a game ended, in words ("by resignation"): games.history.end_reason."""
    return end_reason(reason)


@register.filter
def opponent_of(game: Game, user: Any) -> str | None:
    """The name of ``user``'s opponent in ``game`` as pages show it (the creator's, for
    anyone who does not play it); None for an open seat."""
    return shown_name(game.name_b if game.seat_of(user) == "a" else game.name_a)


@register.filter
def clock_words(game: Game) -> str:
    """The time a player has for each turn, as people say it: "3 days a turn", "no time limit"."""
    if not game.days_per_turn:
        return gettext("no time limit")
    return ngettext("%(n)d day a turn", "%(n)d days a turn", game.days_per_turn) % {"n": game.days_per_turn}


@register.filter
def ago(moment: datetime | None) -> str:
    """When something happened, as people say it: "just now", "5 minutes ago", "2 days ago"
    (Django's timesince says "0 minutes" of the last minute)."""
    if moment is None:
        return ""
    if timezone.now() - moment < timedelta(minutes=1):
        return gettext("just now")
    return naturaltime(moment)


@register.filter
def time_left(deadline: datetime | None) -> str:
    """ "2 days left", "3 hours left"; "" without a clock."""
    if deadline is None:
        return ""
    if deadline <= timezone.now():
        return gettext("time is up")
    return gettext("%(time)s left") % {"time": timeuntil(deadline, depth=2)}
