"""Playing by reply: a "your turn" email's Reply-To carries a signed address for its reader and
turn (play+NOTE-SIGNATURE@INBOUND_EMAIL_DOMAIN); the reply's first lines, above the quoted
email, are read as a play (games.play_words) and played through services.game_play. Both ways
mail comes in, the SMTP server (manage.py inbound_smtp) and the provider's webhook (anymail),
hand the message to ``receive``; nothing else plays from mail.

Every reply that could be read gets an answer: the play made, or what was wrong with the reader's
legal plays, nothing changed. Automatic replies (out of office) are never read and never
answered, a reply delivered twice is handled once (its Message-ID), and a flood from one
sender is dropped.

No reply is lost between servers: its row (``InboundMail``) is first a claim, committed at
once so that another server given the same message (the sender's retry, a second MX) sees it
and asks to be tried later (``Busy``: SMTP 451), and it is marked done in the transaction of
the play, so both commit or neither. A reply whose handling failed gives its claim back; one
whose server died keeps it until it is stale, and either way the next delivery handles it.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q
from django.utils.crypto import constant_time_compare
from mailparser_reply import EmailReplyParser

from accounts import bots as bot_accounts
from core.cache import count_hit
from core.dbclock import db_ago, db_now
from core.errors import ServiceError
from engine.rules import legal_plays
from engine.state import State
from games import event_log, play_links, play_words, services
from games.bot_guard import bot_refusal
from games.errors import StaleVersion
from games.models import Game
from notifications import answers
from notifications.models import InboundMail
from notifications.reply_addresses import ADDRESS, reply_address, signature
from outbox.models import Notification

log = logging.getLogger(__name__)
_REPLY_LANGUAGES = ["en", "de", "fr", "es"]  # what mail-parser-reply knows; Ukrainian quotes start with ">"
RECEIVED = "received"  # the outcome of a reply claimed and not yet handled
# Handling a reply takes a second or so: a claim older than this belongs to a server that died
# with it, and the sender's next delivery takes it over (SMTP retries come minutes apart).
CLAIM_TIMEOUT = timedelta(minutes=2)


class Busy(Exception):
    """Another server is handling the same message now: the sender should try again later,
    when it finds the reply handled (a duplicate), or that server's claim stale."""


@dataclass(frozen=True)
class Outcome:
    status: str  # played | refused | ignored | duplicate
    detail: str = ""


def receive(message: Message, recipients: list[str] | None = None) -> Outcome:
    """Handle one incoming email (``recipients``: the envelope's, else its To and Cc)."""
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    if _automatic(message):
        return Outcome("ignored", "automatic reply")
    if count_hit(f"inbound:{sender}", 3600) > settings.INBOUND_REPLIES_PER_HOUR:
        log.warning("inbound mail from %s dropped: too many this hour", sender)
        return Outcome("ignored", "too many")
    message_id = str(message.get("Message-ID", "")).strip() or _digest(message)
    if not _claim(message_id[:255], sender[:254]):
        if InboundMail.objects.filter(message_id=message_id[:255], outcome=RECEIVED).exists():
            raise Busy(message_id)
        return Outcome("duplicate")
    try:
        with transaction.atomic():
            outcome = _handle(message, sender, recipients or _addressees(message), message_id)
            InboundMail.objects.filter(message_id=message_id[:255]).update(
                outcome=outcome.status, detail=outcome.detail[:2000]
            )
    except BaseException:
        _release(message_id[:255])
        raise
    return outcome


def _claim(message_id: str, sender: str) -> bool:
    """Record the reply as being handled here; False if it is handled already, or another
    server holds a fresh claim on it. Times are the database's: servers' clocks differ."""
    try:
        with transaction.atomic():
            InboundMail.objects.create(
                message_id=message_id, sender=sender, outcome=RECEIVED, claimed_at=db_now()
            )
        return True
    except IntegrityError:
        unhandled = InboundMail.objects.filter(message_id=message_id, outcome=RECEIVED)
        free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=db_ago(CLAIM_TIMEOUT))
        return bool(unhandled.filter(free).update(claimed_at=db_now()))


def _release(message_id: str) -> None:
    """Give back the claim of a reply whose handling failed, for its next delivery to take at
    once; if the database is what failed, the claim goes stale instead."""
    try:
        InboundMail.objects.filter(message_id=message_id, outcome=RECEIVED).update(claimed_at=None)
    except DatabaseError:
        log.warning("could not give back the claim on inbound mail %s", message_id, exc_info=True)


def _automatic(message: Message) -> bool:
    auto = str(message.get("Auto-Submitted", "no")).strip().lower()
    precedence = str(message.get("Precedence", "")).strip().lower()
    return (
        auto != "no"
        or precedence in ("auto_reply", "bulk", "junk", "list")
        or any(message.get(h) for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"))
    )


def _digest(message: Message) -> str:
    return "sha256:" + hashlib.sha256(message.as_bytes()).hexdigest()


def _addressees(message: Message) -> list[str]:
    return [address for _name, address in getaddresses(message.get_all("To", []) + message.get_all("Cc", []))]


def _note_of(recipients: list[str]) -> Notification | None:
    for address in recipients:
        match = ADDRESS.match(address.strip())
        if match is None:
            continue
        note = Notification.objects.select_related("user", "game").filter(pk=int(match[1])).first()
        if note is not None and constant_time_compare(match[2].lower(), signature(note.pk, note.user_id)):
            return note
    return None


def _handle(message: Message, sender: str, recipients: list[str], message_id: str) -> Outcome:
    note = _note_of(recipients)
    if note is None or note.game is None:
        answers.send_unknown(sender)
        return Outcome("refused", "no turn of ours in the address")
    user, game = note.user, note.game
    if sender != user.email.lower():
        answers.send_refusal(user, game, "foreign_sender")
        return Outcome("refused", f"from {sender}, not the reader")
    if bot_accounts.is_bot(user):  # a bot account plays only through the API
        answers.send_refusal(user, game, "illegal", detail=bot_refusal().detail)
        return Outcome("refused", "bot_api_only")
    version = int(note.key.rpartition(":")[2])
    if game.version != version:
        answers.send_refusal(user, game, "stale")
        return Outcome("refused", "stale")
    state = event_log.load_state(game)
    text = _reply_text(message)
    play, why = _chosen_play(text, user, game, state)
    if play is None:
        answers.send_refusal(user, game, why, said=text, reply_to=reply_address(note))
        return Outcome("refused", f"{why}: {text[:200]}")
    cards, choice = play
    key = "mail-reply:" + hashlib.sha256(message_id.encode()).hexdigest()[:32]
    try:
        # A savepoint: a refused play leaves the reply's transaction usable for its record.
        with transaction.atomic():
            services.game_play(
                game=game,
                user=user,
                cards=cards,
                choice=choice,
                expected_version=version,
                idempotency_key=key,
            )
    except StaleVersion:
        answers.send_refusal(user, game, "stale")
        return Outcome("refused", "stale")
    except ServiceError as exc:
        answers.send_refusal(
            user, game, "illegal", said=text, detail=exc.detail, reply_to=reply_address(note)
        )
        return Outcome("refused", exc.code)
    answers.send_played(user, game, cards, choice)
    return Outcome("played", play_links.play_label(cards, choice, state.values))


def _reply_text(message: Message) -> str:
    """The first lines the reader wrote, above the quoted email."""
    body = message.get_body(("plain",)) if isinstance(message, EmailMessage) else None
    raw = body.get_content() if body is not None else _plain_part(message)
    reply = EmailReplyParser(languages=_REPLY_LANGUAGES).parse_reply(text=raw)
    lines = [line.strip() for line in reply.splitlines() if line.strip() and not line.startswith(">")]
    return " ".join(lines[:3])


def _plain_part(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload.decode(part.get_content_charset() or "utf-8", "replace")
    return ""


def _chosen_play(
    text: str, user: User, game: Game, state: State
) -> tuple[tuple[list[str], str | None] | None, str]:
    """The one legal play the words name (a listed number, or the cards), or None and why:
    "unclear" when they name no play or several, "illegal" when what they name is not legal."""
    reading = play_words.read(text)
    if reading is None:
        return None, "unclear"
    plays = legal_plays(state)
    if reading.number is not None:
        listed = play_links.listed_plays(user=user, game=game, state=state)
        if not 1 <= reading.number <= len(listed):
            return None, "illegal"
        play = plays[listed[reading.number - 1][1]]
        return (list(play.cards), play.choice), ""
    fits = play_words.matching(reading, plays, state.values)
    if len(fits) != 1:
        return None, "illegal" if not fits else "unclear"
    return (list(fits[0].cards), fits[0].choice), ""
