"""Web Push: the browsers' subscriptions (RFC 8030), the payload of a notice in its reader's
language, and sending it encrypted (RFC 8291, ``aes128gcm``) and signed (VAPID, RFC 8292)
through pywebpush.

Push is on only with a VAPID key pair and subject in the environment (settings.VAPID_*;
``manage.py vapid_keys`` makes a pair). An endpoint must be ``https://`` on a public address,
unless settings.PUSH_ALLOW_INSECURE_ENDPOINTS (tests and local runs), so that a subscription
cannot make the workers post to the machines beside them; a name is resolved again before each
push, and one that points inside is forgotten. A push service's 404 or 410 says the
subscription is gone: it is deleted. The payload says what the turn email says in its subject
and its "since your last turn" lines, drawn from the reader's own view of the game: never a
card the reader may not see.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import re
import socket
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from py_vapid import Vapid, Vapid01
from pywebpush import WebPushException, webpush

from notifications.emails import notice_context, turn_context
from notifications.models import PushSubscription
from notifications.preferences import preferences_of
from outbox.models import Notification

log = logging.getLogger(__name__)
TURN_KINDS = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)
# The outbox kinds a push may announce, and the preference (API name) that chooses its channel.
PREFERENCE_OF_KIND: dict[str, str] = {
    Notification.Kind.YOUR_TURN: "turn",
    Notification.Kind.REMINDER: "reminder",
    Notification.Kind.CHALLENGE: "challenge",
    Notification.Kind.ACCEPTED: "challenge",
    Notification.Kind.GAME_OVER: "game_over",
}
BODY_MAX = 300  # characters: a phone shows two or three lines of it anyway
MAX_ENDPOINT = 2000
_B64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")
_LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".localdomain")


class InvalidSubscription(ValueError):
    """A PushSubscription body that is not one; ``field`` names the part at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class PushServiceBusy(OSError):
    """The push service answered 429 or 5xx: worth trying again later (an OSError, as a
    network failure is, so that the task's retries take both)."""


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


def enabled() -> bool:
    """Whether this site sends pushes: only with a VAPID key pair and subject."""
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY and settings.VAPID_SUBJECT)


def public_key() -> str:
    """The browsers' applicationServerKey ("" when push is off)."""
    return str(settings.VAPID_PUBLIC_KEY) if enabled() else ""


def b64url_decode(value: str) -> bytes:
    """Strict base64url (the padding optional): anything else raises ValueError."""
    if not _B64URL.match(value):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not base64url") from exc


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def endpoint_problem(url: str) -> str:
    """Why a push may not be posted to ``url`` ("" if it may)."""
    parts = urlsplit(url)
    insecure_allowed = bool(settings.PUSH_ALLOW_INSECURE_ENDPOINTS)
    schemes = ("https", "http") if insecure_allowed else ("https",)
    if parts.scheme not in schemes or not parts.hostname:
        return "The endpoint must be an https:// URL."
    if parts.username or parts.password:
        return "The endpoint must not carry credentials."
    if insecure_allowed:
        return ""
    host = parts.hostname.lower().rstrip(".")
    if host == "localhost" or host.endswith(_LOCAL_NAMES):
        return "The endpoint must be on a public address."
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return ""  # a name: the push services are named hosts
    return "" if address.is_global else "The endpoint must be on a public address."


def _resolves_inside(url: str) -> str:
    """Why a named endpoint may not be posted to: its name resolves to a loopback, private or
    otherwise non-public address ("" if not, or if such endpoints are allowed). A name that
    does not resolve raises (an OSError: the task tries again)."""
    host = urlsplit(url).hostname or ""
    if settings.PUSH_ALLOW_INSECURE_ENDPOINTS:
        return ""
    try:
        ipaddress.ip_address(host)
        return ""  # a literal address: endpoint_problem judged it
    except ValueError:
        pass
    addresses = {info[4][0] for info in socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)}
    if all(ipaddress.ip_address(str(address).split("%")[0]).is_global for address in addresses):
        return ""
    return "The endpoint's name resolves to an address that is not public."


def parse_subscription(data: Any) -> Subscription:
    """The browser's PushSubscription JSON (``endpoint``, ``keys.p256dh``, ``keys.auth``,
    and ``expirationTime`` which is ignored), checked to the byte: the key a point on P-256,
    the secret 16 bytes. Raises InvalidSubscription."""
    if not isinstance(data, dict):
        raise InvalidSubscription("non_field_errors", "Send the PushSubscription as a JSON object.")
    unknown = set(data) - {"endpoint", "keys", "expirationTime"}
    if unknown:
        raise InvalidSubscription(sorted(unknown)[0], "Unknown field.")
    endpoint = data.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > MAX_ENDPOINT:
        raise InvalidSubscription(
            "endpoint", f"Give the endpoint, a URL of at most {MAX_ENDPOINT} characters."
        )
    if problem := endpoint_problem(endpoint):
        raise InvalidSubscription("endpoint", problem)
    keys = data.get("keys")
    if not isinstance(keys, dict) or set(keys) != {"p256dh", "auth"}:
        raise InvalidSubscription("keys", "Give keys.p256dh and keys.auth, and nothing else.")
    return Subscription(endpoint=endpoint, p256dh=_p256dh(keys["p256dh"]), auth=_auth(keys["auth"]))


def _p256dh(value: Any) -> str:
    try:
        raw = b64url_decode(value) if isinstance(value, str) and len(value) <= 100 else b""
        if len(raw) != 65 or raw[0] != 4:
            raise ValueError("not an uncompressed point")
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)  # on the curve
    except ValueError:
        raise InvalidSubscription("keys.p256dh", "Give the browser's P-256 public key, base64url.") from None
    return b64url_encode(raw)


def _auth(value: Any) -> str:
    try:
        raw = b64url_decode(value) if isinstance(value, str) and len(value) <= 40 else b""
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise InvalidSubscription("keys.auth", "Give the 16-byte authentication secret, base64url.")
    return b64url_encode(raw)


def subscribe(user: User, subscription: Subscription) -> bool:
    """Keep the browser's subscription for ``user``; True if it is new. An endpoint is one
    browser's: subscribed again by another account (the browser's new player), it moves."""
    _, created = PushSubscription.objects.update_or_create(
        endpoint=subscription.endpoint,
        defaults={"user": user, "p256dh": subscription.p256dh, "auth": subscription.auth},
    )
    return created


def unsubscribe(user: User, subscription: Subscription) -> bool:
    """Forget ``user``'s subscription at that endpoint; False if they have none there."""
    deleted, _ = PushSubscription.objects.filter(user=user, endpoint=subscription.endpoint).delete()
    return bool(deleted)


def has_subscription(user_id: int) -> bool:
    return enabled() and PushSubscription.objects.filter(user_id=user_id).exists()


# --- The payload -----------------------------------------------------------------------------


def payload(note: Notification) -> dict[str, Any]:
    """``{"kind", "game_id", "title", "body", "url"}`` in the reader's language; ``url`` is the
    game's page (a path: the service worker opens it on its own origin)."""
    assert note.game is not None
    with translation.override(preferences_of(note.user).language):
        title, body = _turn_words(note) if note.kind in TURN_KINDS else _notice_words(note)
    return {
        "kind": PREFERENCE_OF_KIND.get(note.kind, note.kind),
        "game_id": note.game.pk,
        "title": title,
        "body": _shortened(body),
        "url": reverse("game", args=[note.game.pk]),
    }


def _turn_words(note: Notification) -> tuple[str, str]:
    # The turn email's own subject and its "since your last turn" lines, from the reader's view.
    assert note.game is not None
    context = turn_context(note.game, note.user)
    context["reminder"] = note.kind == Notification.Kind.REMINDER
    title = " ".join(render_to_string("emails/your_turn-subject.txt", context).split())
    since = " ".join(str(line) for line in context["since"])
    return title, since or gettext("%(opponent)s has played: it is your turn.") % {
        "opponent": context["opponent"]
    }


def _notice_words(note: Notification) -> tuple[str, str]:
    context = notice_context(note)
    title = " ".join(render_to_string("emails/notice-subject.txt", context).split())
    if note.kind == Notification.Kind.CHALLENGE:
        body = gettext("Open the game to accept or decline.")
    elif note.kind == Notification.Kind.ACCEPTED:
        body = gettext("%(opponent)s accepted your challenge; the cards are dealt.") % context
    elif context["winner"]:
        scores = context["scores"]
        body = gettext("%(winner)s won, %(a)s : %(b)s.") % {"winner": context["winner"], **scores}
    else:
        body = gettext("The game ended without a winner.")
    return title, body


def _shortened(text: str) -> str:
    return text if len(text) <= BODY_MAX else text[: BODY_MAX - 1].rstrip() + "…"


# --- Sending ---------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _vapid(private_key: str) -> Vapid01:
    return Vapid.from_string(private_key=private_key)


def send(note: Notification) -> int:
    """Push ``note`` to each of its reader's browsers; how many took it. A browser whose push
    service answers 404 or 410 is forgotten. Raises PushServiceBusy (or a network OSError)
    when none took it and one may later: the task tries again."""
    data = json.dumps(payload(note), ensure_ascii=False).encode()
    urgency = "high" if note.kind in TURN_KINDS else "normal"
    delivered, busy = 0, None
    for subscription in PushSubscription.objects.filter(user_id=note.user_id).order_by("pk"):
        try:
            _post(subscription, data, urgency)
            delivered += 1
        except (SubscriptionGone, PushRefused) as exc:
            log.info("push %s to subscription %s not taken: %s", note.pk, subscription.pk, exc)
        except OSError as exc:
            busy = exc
            log.warning("push %s to subscription %s failed: %s", note.pk, subscription.pk, exc)
    if not delivered and busy is not None:
        raise busy
    return delivered


def _post(subscription: PushSubscription, data: bytes, urgency: str) -> None:
    # The settings may have changed since it was kept, and a name may point anywhere.
    if problem := endpoint_problem(subscription.endpoint) or _resolves_inside(subscription.endpoint):
        subscription.delete()
        raise SubscriptionGone(problem)
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=data,
            vapid_private_key=_vapid(settings.VAPID_PRIVATE_KEY),
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            content_encoding="aes128gcm",
            ttl=settings.PUSH_TTL_SECONDS,
            headers={"Urgency": urgency},
            timeout=10,
        )
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in (404, 410):  # the browser unsubscribed, or the subscription expired
            subscription.delete()
            raise SubscriptionGone(str(status)) from None
        if status is None or status == 429 or status >= 500:
            raise PushServiceBusy(f"push service answered {status}") from None
        raise PushRefused(f"push service answered {status}") from None


class SubscriptionGone(Exception):
    """The push service no longer knows the subscription (404 or 410): it was deleted."""


class PushRefused(Exception):
    """The push service refused the push for good (a 4xx other than 404, 410 and 429)."""


def vapid_problem() -> str:
    """What is wrong with the VAPID settings ("" if nothing)."""
    if not enabled():
        return "VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY and VAPID_SUBJECT go together."
    if not str(settings.VAPID_SUBJECT).startswith(("mailto:", "https:")):
        return "VAPID_SUBJECT must be a mailto: or https: URL."
    try:
        raw = b64url_decode(settings.VAPID_PRIVATE_KEY)
        if len(raw) != 32:
            raise ValueError("not 32 bytes")
        private = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError:
        return "VAPID_PRIVATE_KEY must be the base64url of a raw 32-byte P-256 private key."
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    if b64url_encode(point) != str(settings.VAPID_PUBLIC_KEY).rstrip("="):
        return "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY."
    return ""


def make_vapid_keys() -> dict[str, str]:
    """A new VAPID key pair, as the environment takes it."""
    private = ec.generate_private_key(ec.SECP256R1())
    raw_private = private.private_numbers().private_value.to_bytes(32, "big")
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return {"VAPID_PRIVATE_KEY": b64url_encode(raw_private), "VAPID_PUBLIC_KEY": b64url_encode(point)}
