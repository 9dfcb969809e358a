from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, token_digest


class TokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <key>`` against the hashed personal tokens (one query)."""

    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace") != self.keyword:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: give 'Token <key>'.")
        try:
            key = header[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        try:
            token = ApiToken.objects.select_related("user").get(digest=token_digest(key))
        except ApiToken.DoesNotExist:
            token = None
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
