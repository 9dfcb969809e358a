"""Emails as template triplets (``<name>-subject.txt``, ``-body.txt``, ``-body.html``), built
from the recipient's own view of the game: presenters and engine.visibility decide what shows."""

from __future__ import annotations

from email.mime.image import MIMEImage
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import capfirst
from django.utils.translation import gettext

from accounts import services as account_services
from engine.cards import Seat, as_seat, other
from games import event_log, history, play_links, presenters
from games.models import Game
from games.templatetags.games_extras import card_label
from games.templatetags.players import bot_marked
from notifications import board_picture
from notifications.models import Preferences
from notifications.preferences import preferences_of, unsubscribe_token
from notifications.reply_addresses import reply_address
from notifications.selectors import waiting_games
from outbox.models import Notification


def absolute(path: str) -> str:
    return str(settings.SITE_URL).rstrip("/") + path


def render_triplet(name: str, context: dict[str, Any], language: str) -> tuple[str, str, str]:
    with translation.override(language):
        subject = render_to_string(f"emails/{name}-subject.txt", context).strip()
        text = render_to_string(f"emails/{name}-body.txt", context)
        html = render_to_string(f"emails/{name}-body.html", context)
    return " ".join(subject.split()), text, html


RECENT_EVENTS = 40


def marked_name(game: Game, seat: Seat, names: dict[str, str]) -> str:
    """A seat's player as an email or a push names them: "botty (BOT)" for a bot (a bot
    account or the site's own), which must say it is one wherever it is named."""
    return bot_marked(names[seat], game.seat_is_bot(seat))


def turn_context(game: Game, user: User) -> dict[str, Any]:
    """What the player needs to decide, in the active language: the opponent's moves since
    their last turn (as they may see them), the board with the hold, the voyages, the Great
    Dragon, both draw piles, their hand as the page groups it, and links."""
    state = event_log.load_state(game)
    view = presenters.game_view(game, state, user)
    seat = view["your_seat"]
    names = history.names_of(game)
    opponent_seat = other(seat)
    piles = {p["seat"]: p["pile_size"] for p in view["players"]}
    return {
        "user": user,
        "game": game,
        "view": view,
        "opponent": marked_name(game, opponent_seat, names),
        "opponent_name": names[opponent_seat],  # unmarked, where "opponent" said it already
        "names": names,
        "since": _since_your_last_turn(game, user, seat, names, state.values),
        "hand": [[card_label(card) for card in group] for group in presenters.hand_groups(view["hand"])],
        "board": _board_lines(view),
        "plays": [
            [{**play, "url": absolute(play["path"])} for play in group]
            for group in play_links.legal_play_links(user=user, game=game, state=state)
        ],
        "voyages": view["voyages"],
        "dragon": names[view["dragon"]] if view["dragon"] else "",
        "dragon_is_yours": view["dragon"] == seat,
        "your_pile": piles.get(seat, 0),
        "their_pile": piles.get(opponent_seat, 0),
        "game_url": absolute(reverse("game", args=[game.pk])),
        "unsubscribe_url": absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }


def _since_your_last_turn(
    game: Game, user: User, seat: str | None, names: dict[str, str], values: dict[str, int]
) -> list[str]:
    # The opponent's turn is a handful of events: read the log's tail, and all of it only
    # when the reader's last turn lies further back (reading every event was two thirds of
    # the cost of an email in a long game).
    rows = event_log.read_events(game, after=max(0, game.version - RECENT_EVENTS))
    since = history.first_unseen_step([row.as_engine_event() for row in rows], seat)
    if since == 1 and rows and rows[0].seq > 1:
        rows = event_log.read_events(game)
        since = history.first_unseen_step([row.as_engine_event() for row in rows], seat)
    lines = [
        history.describe(presenters.event_view(row, game, user), names, values) for row in rows[since - 1 :]
    ]
    return [line for line in lines if line]


def _board_lines(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Each space with cards on it, then the hold, as the edition names them."""
    spaces = [
        {"label": capfirst(history.type_name(kind, 2)), "cards": [card_label(card) for card in cards]}
        for kind, cards in (view["board"] or {}).items()
        if cards
    ]
    if view.get("hold"):
        hold = [card_label(card) for card in view["hold"]]
        spaces.append({"label": gettext("Hold"), "cards": hold})
    return spaces


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
    opponent = marked_name(game, other(seat) if seat else "a", names)
    result = ""
    if note.kind == Notification.Kind.GAME_OVER and game.scores:
        result = history.end_reason(game.end_reason)
    return {
        "user": user,
        "game": game,
        "kind": note.kind,
        "opponent": opponent,
        "scores": game.scores,
        "winner": marked_name(game, as_seat(game.winner), names) if game.winner else None,
        "reason": result,
        "game_url": absolute(reverse("game", args=[game.pk])),
        "unsubscribe_url": absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }


def digest_email(note: Notification, prefs: Preferences) -> EmailMultiAlternatives:
    user = note.user
    games = [
        {
            # A waiting game is one where the reader is to move: the opponent is the other seat.
            "opponent": marked_name(game, other(as_seat(game.to_move)), history.names_of(game)),
            "since": game.turn_started_at,
            "deadline": _local_deadline(game, prefs.time_zone),
            "url": absolute(reverse("game", args=[game.pk])),
        }
        for game in waiting_games(user)
    ]
    context = {
        "user": user,
        "games": games,
        "lobby_url": absolute(reverse("home")),
        "unsubscribe_url": absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
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
    # Everything in the reader's language: the history lines and card names as well as the
    # templates (a worker's own language is the site's default).
    with translation.override(prefs.language):
        return _email_in_language(note, prefs)


def _email_in_language(note: Notification, prefs: Preferences) -> EmailMultiAlternatives:
    if note.kind == Notification.Kind.DIGEST:
        return digest_email(note, prefs)
    if note.kind == Notification.Kind.CONFIRM_EMAIL:
        return confirmation_email(note.user, prefs)
    assert note.game is not None
    user = note.user
    reply_to = None
    if note.kind in (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER):
        context = turn_context(note.game, user)
        context["reminder"] = note.kind == Notification.Kind.REMINDER
        reply_to = reply_address(note) if context["plays"] else None
        context["by_reply"] = reply_to is not None
        context["board_cid"] = f"board-{note.pk}"
        context["board_alt"] = board_picture.alt_text(context["view"])
        name = "your_turn"
    else:
        context = notice_context(note)
        name = "notice"
    context["deadline"] = _local_deadline(note.game, prefs.time_zone)
    message = _message(user, name, context, prefs)
    if reply_to is not None:
        message.reply_to = [reply_to]
    if "board_cid" in context:
        _attach_board(message, context)
    return message


def _attach_board(message: EmailMultiAlternatives, context: dict[str, Any]) -> None:
    """The board as a picture inside the HTML part (cid:), the text part keeps it in words."""
    image = MIMEImage(board_picture.board_png(context["view"], context["names"]), "png")
    image.add_header("Content-ID", f"<{context['board_cid']}>")
    image.add_header("Content-Disposition", "inline", filename="board.png")
    message.mixed_subtype = "related"
    message.attach(image)


def message_id(note: Notification) -> str:
    """The same for every attempt to send one notification: a worker that dies after the SMTP
    server accepted the email, before recording it, makes the next one send it again (at least
    once), and the reader's mail system shows two messages with one Message-ID once."""
    domain = urlsplit(str(settings.SITE_URL)).hostname or "dragonheart.invalid"
    return f"<notification-{note.pk}@{domain}>"


def confirmation_email(user: User, prefs: Preferences) -> EmailMultiAlternatives:
    """The link that confirms a player's address (an outbox row of kind CONFIRM_EMAIL). The
    link asks before it confirms (accounts.views.email_confirm): link scanners open links."""
    token = account_services.confirmation_token(user)
    context = {
        "user": user,
        "confirm_url": absolute(reverse("email-confirm", args=[token])),
        "unsubscribe_url": absolute(reverse("unsubscribe", args=[unsubscribe_token(user)])),
    }
    return _message(user, "confirm_email", context, prefs)


def send_confirmation(user_id: int) -> bool:
    """A confirmation task queued on the broker by an earlier release (they now go through
    the outbox); False if there is nothing to confirm (no address, or confirmed already)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or account_services.may_email(user):
        return False
    confirmation_email(user, preferences_of(user)).send()
    return True
