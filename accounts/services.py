from __future__ import annotations

import logging
from collections.abc import Sequence

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from accounts.authentication import forget_locally
from accounts.models import ApiToken, EmailStatus, token_digest
from accounts.scopes import all_scopes, scopes_parse
from accounts.signals import confirmation_requested
from accounts.signals import signed_up as signed_up_signal

log = logging.getLogger(__name__)
CONFIRM_SALT = "accounts.confirm-email"
CONFIRM_MAX_AGE = 14 * 24 * 3600


class SignupError(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def user_create(*, username: str, password: str, email: str = "", email_confirmed: bool = False) -> User:
    """A new player. An address is confirmed by a signed link (sent at once) before any game
    email goes to it; ``email_confirmed`` is for addresses confirmed another way (tests,
    imports)."""
    if User.objects.filter(username__iexact=username).exists():
        raise SignupError("username", gettext("That username is taken."))
    candidate = User(username=username, email=email)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as exc:
        raise SignupError("password", " ".join(exc.messages)) from None
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save()
        if email:
            EmailStatus.objects.create(
                user=candidate, address=email, confirmed_at=timezone.now() if email_confirmed else None
            )
    except IntegrityError:
        raise SignupError("username", gettext("That username is taken.")) from None
    signed_up(user=candidate, confirm=bool(email) and not email_confirmed)
    return candidate


def signed_up(*, user: User, confirm: bool) -> None:
    """A new player's row is written (by user_create, or the sign-up form): tell the floors
    above in which language they signed up, then ask for the address's confirmation."""
    signed_up_signal.send(sender=User, user=user, language=translation.get_language() or "")
    if confirm:
        confirmation_request(user=user)


def may_email(user: User) -> bool:
    """Whether game emails may go to the player's address: confirmed, and not bounced."""
    status = EmailStatus.objects.filter(user=user).first()
    return bool(user.email) and status is not None and status.may_receive(user.email)


def confirmation_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=CONFIRM_SALT)


@transaction.atomic
def confirmation_request(*, user: User) -> None:
    """Send the player a new confirmation link: the outbox's row for it is written in this
    transaction by the receiver of ``confirmation_requested`` (the outbox is a floor above),
    and delivered as every other email is, swept again if the broker is down at commit."""
    if not user.email:
        return
    status, _ = EmailStatus.objects.get_or_create(user=user, defaults={"address": user.email})
    if status.address.lower() != user.email.lower():  # a new address starts over
        EmailStatus.objects.filter(user=user).update(
            address=user.email, confirmed_at=None, bounced_at=None, bounce_reason=""
        )
    confirmation_requested.send(sender=User, user=user)


@transaction.atomic
def email_change(*, user: User, email: str) -> bool:
    """Give the player a new address, and send a confirmation link to it: no game email goes
    there before it is opened (confirmation_request starts its status over). False, and
    nothing changed, if it is the address they have."""
    address = User.objects.normalize_email(email.strip())
    if address.lower() == user.email.lower():
        return False
    user.email = address
    user.save(update_fields=["email"])
    confirmation_request(user=user)
    return True


def email_confirm(*, token: str) -> User | None:
    """Confirm the address a link names; None if the link is not ours, too old, or names an
    address the player no longer has."""
    try:
        data = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except signing.BadSignature:
        return None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or user.email.lower() != data.get("e"):
        return None
    EmailStatus.objects.update_or_create(
        user=user,
        defaults={
            "address": user.email,
            "confirmed_at": timezone.now(),
            "bounced_at": None,
            "bounce_reason": "",
        },
    )
    return user


def email_bounced(*, address: str, reason: str) -> int:
    """Stop game emails to an address the provider reports as bouncing or complained about."""
    return EmailStatus.objects.filter(address__iexact=address).update(
        bounced_at=timezone.now(), bounce_reason=reason[:200]
    )


def token_create(*, user: User, name: str, scopes: Sequence[str] | None = None) -> tuple[ApiToken, str]:
    """A new token and its key; the key exists only in this return value. ``scopes``: of
    accounts.scopes.SCOPES (400 ``invalid_scopes`` otherwise); None gives all of them."""
    kept = all_scopes() if scopes is None else scopes_parse(list(scopes))
    key = ApiToken.new_key()
    token = ApiToken.objects.create(
        user=user, name=name, digest=token_digest(key), prefix=key[:8], scopes=kept
    )
    return token, key


def token_revoke(*, user: User, token_id: int) -> bool:
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        return False
    token.delete()
    # Revocation is immediate in this process; other server processes may still accept the
    # token for up to LOCAL_SECONDS (see accounts.authentication).
    forget_locally(token.digest)
    return True
