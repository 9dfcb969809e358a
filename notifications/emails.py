"""Emails as template triplets (``<name>-subject.txt``, ``-body.txt``, ``-body.html``), built
from the recipient's own view of the game: presenters and engine.visibility decide what shows."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from games import event_log, history, presenters
from games.models import Game
from notifications.models import Preferences
from notifications.preferences import preferences_of, unsubscribe_token
from notifications.selectors import waiting_games
from outbox.models import Notification


def _absolute(path: str) -> str:
    return str(settings.SITE_URL).rstrip("/") + path


def render_triplet(name: str, context: dict[str, Any], language: str) -> tuple[str, str, str]:
    with translation.override(language):
        subject = render_to_string(f"emails/{name}-subject.txt", context).strip()
        text = render_to_string(f"emails/{name}-body.txt", context)
        html = render_to_string(f"emails/{name}-body.html", context)
    return " ".join(subject.split()), text, html


RECENT_EVENTS = 40


def turn_context(game: Game, user: User) -> dict[str, Any]:
    """What the player needs to decide: the opponent's moves since their last turn (as they
    may see them), their hand, the board in short, and links."""
    state = event_log.load_state(game)
    view = presenters.game_view(game, state, user)
    seat = view["your_seat"]
    # The opponent's turn is a handful of events: read the log's tail, and all of it only
    # when the reader's last turn lies further back (reading every event was two thirds of
    # the cost of an email in a long game).
    rows = event_log.read_events(game, after=max(0, game.version - RECENT_EVENTS))
    since = history.first_unseen_step([row.as_engine_event() for row in rows], seat)
    if since == 1 and rows and rows[0].seq > 1:
        rows = event_log.read_events(game)
        since = history.first_unseen_step([row.as_engine_event() for row in rows], seat)
    names = history.names_of(game)
    lines = [
        history.describe(presenters.event_view(row, game, user), names, state.values)
        for row in rows[since - 1 :]
    ]
    board = [
        {"label": history.type_name(kind, 2).capitalize(), "cards": cards}
        for kind, cards in (view["board"] or {}).items()
        if cards
    ]
    opponent = names["b" if seat == "a" else "a"]
    return {
        "user": user,
        "game": game,
        "view": view,
        "opponent": opponent,
        "since": [line for line in lines if line],
        "hand": view["hand"] or [],
        "board": board,
        "game_url": _absolute(reverse("game", args=[game.pk])),
        "unsubscribe_url": _absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }


def _local_deadline(game: Game, time_zone: str) -> str:
    if game.deadline is None:
        return ""
    return timezone.localtime(game.deadline, ZoneInfo(time_zone)).strftime("%Y-%m-%d %H:%M %Z")


def notice_context(note: Notification) -> dict[str, Any]:
    """The short emails: a challenge received, a challenge accepted, a game over."""
    game, user = note.game, note.user
    assert game is not None
    seat = game.seat_of(user)
    names = history.names_of(game)
    other = names["b" if seat == "a" else "a"] if seat else names["a"]
    result = ""
    if note.kind == Notification.Kind.GAME_OVER and game.scores:
        result = history.end_reason(game.end_reason)
    return {
        "user": user,
        "game": game,
        "kind": note.kind,
        "opponent": other,
        "scores": game.scores,
        "winner": game.player_name(game.winner) if game.winner else None,
        "reason": result,
        "game_url": _absolute(reverse("game", args=[game.pk])),
        "unsubscribe_url": _absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }


def digest_email(note: Notification, prefs: Preferences) -> EmailMultiAlternatives:
    user = note.user
    games = [
        {
            "opponent": game.player_name("b" if game.seat_of(user) == "a" else "a"),
            "since": game.turn_started_at,
            "deadline": _local_deadline(game, prefs.time_zone),
            "url": _absolute(reverse("game", args=[game.pk])),
        }
        for game in waiting_games(user)
    ]
    context = {
        "user": user,
        "games": games,
        "lobby_url": _absolute(reverse("home")),
        "unsubscribe_url": _absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }
    return _message(user, "digest", context, prefs)


def _message(user: User, name: str, context: dict[str, Any], prefs: Preferences) -> EmailMultiAlternatives:
    subject, text, html = render_triplet(name, context, prefs.language)
    message = EmailMultiAlternatives(
        subject,
        text,
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def email_for(note: Notification) -> EmailMultiAlternatives:
    message = _email_of(note)
    message.extra_headers["Message-ID"] = message_id(note)
    return message


def _email_of(note: Notification) -> EmailMultiAlternatives:
    prefs = preferences_of(note.user)  # read once: language, time zone
    if note.kind == Notification.Kind.DIGEST:
        return digest_email(note, prefs)
    assert note.game is not None
    user = note.user
    if note.kind in (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER):
        context = turn_context(note.game, user)
        context["reminder"] = note.kind == Notification.Kind.REMINDER
        name = "your_turn"
    else:
        context = notice_context(note)
        name = "notice"
    context["deadline"] = _local_deadline(note.game, prefs.time_zone)
    return _message(user, name, context, prefs)


def message_id(note: Notification) -> str:
    """The same for every attempt to send one notification: a worker that dies after the SMTP
    server accepted the email, before recording it, makes the next one send it again (at least
    once), and the reader's mail system shows two messages with one Message-ID once."""
    domain = urlsplit(str(settings.SITE_URL)).hostname or "dragonheart.invalid"
    return f"<notification-{note.pk}@{domain}>"
