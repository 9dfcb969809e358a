"""The answers to replies by email (notifications/inbound.py): the play made, or what was
wrong and the reader's legal plays now, in the reader's language. An answer is sent once the
reply's work has committed; it is no outbox row (it answers a message, not a fact of a game),
so a send that fails is logged and the reader still has the game page."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from engine.cards import other
from games import event_log, history, play_links
from games.models import Game
from notifications import emails
from notifications.preferences import preferences_of

log = logging.getLogger(__name__)

REASONS = {  # gettext_noop: translated in the reader's language when the answer is written
    "stale": gettext_noop(
        "This turn is over: a play has been made since the email was sent. Nothing was played."
    ),
    "foreign_sender": gettext_noop(
        "This reply did not come from the address the email was sent to. Nothing was played."
    ),
    "unclear": gettext_noop("Your reply could not be read as one of your plays. Nothing was played."),
    "illegal": gettext_noop("That play is not possible now. Nothing was played."),
}


def send_played(user: User, game: Game, cards: list[str], choice: str | None) -> None:
    _after_commit(user, game, {"cards": cards, "choice": choice})


def send_refusal(
    user: User, game: Game, reason: str, *, said: str = "", detail: str = "", reply_to: str | None = None
) -> None:
    """What was wrong, with the legal plays; ``reply_to`` (the turn's own address) lets the
    reader answer the answer with another try."""
    _after_commit(user, game, {"reason": reason, "said": said, "detail": detail, "reply_to": reply_to})


def send_unknown(address: str) -> None:
    """A reply whose address names no turn of ours: say so to its sender, in English (no
    reader is known), with nothing about any game."""
    if not address:
        return
    body = gettext(
        "Your email reached Dragonheart by mail, but its address names no turn of a game. "
        "Reply to a turn email, keeping its Reply-To address, or play on the site."
    )
    message = EmailMultiAlternatives(gettext("Your email could not be read as a play"), body, to=[address])
    message.extra_headers["Auto-Submitted"] = "auto-replied"
    transaction.on_commit(partial(_send, message))


def _after_commit(user: User, game: Game, outcome: dict[str, Any]) -> None:
    transaction.on_commit(partial(_answer, user.pk, game.pk, outcome))


def _answer(user_id: int, game_id: str, outcome: dict[str, Any]) -> None:
    user = User.objects.get(pk=user_id)
    game = Game.objects.get(pk=game_id)
    prefs = preferences_of(user)
    with translation.override(prefs.language):
        context = _context(user, game, outcome)
        subject, text, html = emails.render_triplet("reply_answer", context, prefs.language)
    message = EmailMultiAlternatives(subject, text, to=[user.email])
    if outcome.get("reply_to"):
        message.reply_to = [outcome["reply_to"]]
    message.attach_alternative(html, "text/html")
    # An answer is automatic: a reader's own autoresponder must not answer it back.
    message.extra_headers["Auto-Submitted"] = "auto-replied"
    _send(message)


def _context(user: User, game: Game, outcome: dict[str, Any]) -> dict[str, Any]:
    state = event_log.load_state(game)
    names = history.names_of(game)
    seat = game.seat_of(user)
    assert seat is not None  # a reply address is one player's own, in their own game
    plays = play_links.legal_play_links(user=user, game=game, state=state)
    played = (
        play_links.play_label(outcome["cards"], outcome["choice"], state.values) if "cards" in outcome else ""
    )
    return {
        "user": user,
        "opponent": emails.marked_name(game, other(seat), names),
        **outcome,
        "played": played,
        "reason": gettext(REASONS[outcome["reason"]]) if "reason" in outcome else "",
        "plays": [[{**p, "url": emails.absolute(p["path"])} for p in group] for group in plays],
        "game_url": emails.absolute(reverse("game", args=[game.pk])),
    }


def _send(message: EmailMultiAlternatives) -> None:
    try:
        message.send()
    except Exception:  # the reader still has the game page; the reply's play (if any) stands
        log.exception("could not send the answer to a reply to %s", message.to)
