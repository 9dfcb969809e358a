from __future__ import annotations

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from accounts.authentication import forget_locally
from accounts.models import ApiToken, token_digest


class SignupError(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def user_create(*, username: str, password: str, email: str = "") -> User:
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
    except IntegrityError:
        raise SignupError("username", gettext("That username is taken.")) from None
    return candidate


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its key; the key exists only in this return value."""
    key = ApiToken.new_key()
    token = ApiToken.objects.create(user=user, name=name, digest=token_digest(key), prefix=key[:8])
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
