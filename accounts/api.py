"""Sign-up and personal API tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.fields import empty
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import services
from accounts.models import ApiToken
from accounts.scopes import SCOPES, all_scopes, scopes_parse
from core.api_errors import ApiError


class UserCreateApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_scope = "signup"
    reads_body = frozenset({"POST"})  # see core.middleware.RequestBodyMiddleware

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        class Meta:
            ref_name = "SignupInput"

        username = serializers.RegexField(r"^[A-Za-z0-9_.-]{3,30}$", max_length=30)
        # Spaces belong to a password (the login page keeps them); a trimmed one would differ.
        password = serializers.CharField(write_only=True, max_length=200, trim_whitespace=False)
        email = serializers.EmailField(required=False, allow_blank=True, default="")

    class OutputSerializer(serializers.Serializer[dict[str, str]]):
        class Meta:
            ref_name = "SignupOutput"

        username = serializers.CharField()
        is_bot = serializers.BooleanField(help_text="False: an account becomes a bot only by asking.")

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer}, summary="Sign up")
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            user = services.user_create(**data.validated_data)
        except services.SignupError as exc:
            raise ApiError(status.HTTP_400_BAD_REQUEST, f"{exc.field}_invalid", exc.message) from None
        # A new account is a person: it becomes a bot only by POST /api/account/bot/.
        return Response({"username": user.username, "is_bot": False}, status=status.HTTP_201_CREATED)


SCOPES_HELP = (
    "What the token may do: read (every GET), play (plays, resign, accept and decline, notes, "
    "muting), challenge (create, cancel and rematch challenges). A change to the account needs all three."
)


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "string", "enum": list(SCOPES)},
        "minItems": 1,
        "uniqueItems": True,
        "description": f"{SCOPES_HELP} Absent: all three. Anything else: 400 invalid_scopes.",
    }
)
class ScopesField(serializers.JSONField):
    """Takes whatever JSON ``scopes`` holds: accounts.scopes.scopes_parse judges it, so that
    every bad list (null included) is refused with one code, ``invalid_scopes``."""

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if data is empty:
            return super().validate_empty_values(data)  # absent: skipped
        return False, data


class TokenOutputSerializer(serializers.ModelSerializer[ApiToken]):
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=SCOPES), help_text=SCOPES_HELP)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "created_at"]


class TokenListCreateApi(APIView):
    """POST with a username and password (no other credentials needed) creates a token; GET
    lists the requester's tokens (never their keys)."""

    reads_body = frozenset({"POST"})  # see core.middleware.RequestBodyMiddleware

    def get_permissions(self) -> Sequence[Any]:
        return [AllowAny()] if self.request.method == "POST" else super().get_permissions()

    def get_throttles(self) -> list[BaseThrottle]:
        self.throttle_scope = "tokens" if self.request.method == "POST" else ""
        return super().get_throttles()

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        class Meta:
            ref_name = "TokenCreateInput"

        # Not trimmed: a password keeps its spaces, as on the login page, and every field is as
        # long as the schema says (a trimmed "  " would be refused as blank).
        username = serializers.CharField(max_length=150, trim_whitespace=False)
        password = serializers.CharField(write_only=True, max_length=200, trim_whitespace=False)
        name = serializers.CharField(
            max_length=100, required=False, default="API token", trim_whitespace=False
        )
        scopes = ScopesField(required=False)

    class CreatedSerializer(TokenOutputSerializer):
        token = serializers.CharField(help_text="The key: shown this once, keep it secret.")

        class Meta(TokenOutputSerializer.Meta):
            fields = [*TokenOutputSerializer.Meta.fields, "token"]

    @extend_schema(responses={200: TokenOutputSerializer(many=True)}, summary="List your API tokens")
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.filter(user=request.user)  # type: ignore[misc]  # authenticated here
        return Response(TokenOutputSerializer(tokens, many=True).data)

    @extend_schema(
        request=InputSerializer, responses={201: CreatedSerializer}, summary="Create an API token", auth=[]
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        asked = data.validated_data
        # A malformed request is refused before the password is checked, as any bad body is.
        scopes = scopes_parse(asked["scopes"]) if "scopes" in asked else all_scopes()
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None:
            raise ApiError(status.HTTP_401_UNAUTHORIZED, "bad_credentials", "Wrong username or password.")
        token, key = services.token_create(user=user, name=data.validated_data["name"], scopes=scopes)
        body = TokenOutputSerializer(token).data
        body["token"] = key
        return Response(body, status=status.HTTP_201_CREATED)


class TokenRevokeApi(APIView):
    @extend_schema(responses={204: None}, summary="Revoke an API token")
    def delete(self, request: Request, token_id: int) -> Response:
        if not services.token_revoke(user=request.user, token_id=token_id):  # type: ignore[arg-type]
            raise ApiError(status.HTTP_404_NOT_FOUND, "not_found", "You have no token with that id.")
        return Response(status=status.HTTP_204_NO_CONTENT)
