"""The notifications API: the VAPID public key, the browsers' push subscriptions, and how each
kind of notice reaches the requester (GET/PATCH /api/account/notifications/)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ApiError
from notifications import channels, push
from notifications.models import Channel


class BodiedDeleteSchema(AutoSchema):
    """drf-spectacular documents a body for POST, PUT and PATCH only; this DELETE takes one
    (the subscription to forget), as the Push API's own unsubscribe does."""

    def _get_request_body(self, direction: str = "request") -> Any:
        if self.method != "DELETE":
            return super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        self.method = "POST"
        try:
            return super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        finally:
            self.method = "DELETE"


class PushKeyApi(APIView):
    """The key a browser subscribes with (its ``applicationServerKey``), open to everyone."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        responses={
            200: inline_serializer(
                "PushKey",
                {
                    "enabled": serializers.BooleanField(help_text="False: this site sends no pushes."),
                    "public_key": serializers.CharField(
                        help_text='The VAPID public key, base64url ("" if off).'
                    ),
                },
            )
        },
        summary="The VAPID public key for push subscriptions",
    )
    def get(self, request: Request) -> Response:
        return Response({"enabled": push.enabled(), "public_key": push.public_key()})


class SubscriptionSerializer(serializers.Serializer[dict[str, Any]]):
    """For the schema: the body is checked by notifications.push.parse_subscription."""

    class Keys(serializers.Serializer[dict[str, str]]):
        p256dh = serializers.CharField(help_text="The browser's P-256 public key (65 bytes), base64url.")
        auth = serializers.CharField(help_text="The 16-byte authentication secret, base64url.")

    endpoint = serializers.URLField(max_length=push.MAX_ENDPOINT, help_text="https://, a public address.")
    expirationTime = serializers.IntegerField(required=False, allow_null=True)
    keys = Keys()


def _subscription(request: Request) -> push.Subscription:
    if not isinstance(request.data, dict):
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", "Send the PushSubscription as a JSON object.")
    try:
        return push.parse_subscription(request.data)
    except push.InvalidSubscription as exc:
        raise ApiError(
            status.HTTP_400_BAD_REQUEST, "invalid_subscription", f"{exc.field}: {exc.message}"
        ) from None


class PushSubscriptionApi(APIView):
    """The browser's PushSubscription JSON, kept for the requester (POST) or forgotten (DELETE,
    the same body). Kept even while the server has no VAPID keys (GET /api/push/key/ says
    whether it sends pushes): they go once it has."""

    reads_body = frozenset({"POST", "DELETE"})  # see core.middleware.RequestBodyMiddleware
    schema = BodiedDeleteSchema()

    @extend_schema(
        request=SubscriptionSerializer,
        responses={201: None, 200: None},
        summary="Subscribe this browser to push notifications",
    )
    def post(self, request: Request) -> Response:
        subscription = _subscription(request)
        created = push.subscribe(request.user, subscription)  # type: ignore[arg-type]  # authenticated
        return Response(status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=SubscriptionSerializer, responses={204: None}, summary="Unsubscribe this browser")
    def delete(self, request: Request) -> Response:
        subscription = _subscription(request)
        if not push.unsubscribe(request.user, subscription):  # type: ignore[arg-type]  # authenticated
            raise ApiError(
                status.HTTP_404_NOT_FOUND, "not_found", "You have no subscription at that endpoint."
            )
        return Response(status=status.HTTP_204_NO_CONTENT)


def _channels_serializer(name: str, *, required: bool) -> serializers.Serializer[dict[str, str]]:
    fields: dict[str, serializers.Field[Any, Any, Any, Any]] = {
        kind: serializers.ChoiceField(choices=Channel.choices, required=required, help_text=str(label))
        for kind, label in channels.KINDS.items()
    }
    return inline_serializer(name, fields)


CHANNELS_OUT = _channels_serializer("NotificationChannels", required=True)
CHANNELS_IN = _channels_serializer("NotificationChannelsPatch", required=False)


class ChannelsApi(APIView):
    """How each kind of notice reaches the requester: ``push``, ``email``, ``both`` or
    ``push_then_email`` (the default: a push at once, the email EMAIL_HOLD_SECONDS later if the
    turn is still open). Without a subscribed browser every notice goes by email."""

    reads_body = frozenset({"PATCH"})

    @extend_schema(responses={200: CHANNELS_OUT}, summary="Your channels")
    def get(self, request: Request) -> Response:
        return Response(channels.channels_of(request.user))  # type: ignore[arg-type]  # authenticated

    @extend_schema(
        request=CHANNELS_IN,
        responses={200: CHANNELS_OUT},
        summary="Choose your channels",
    )
    def patch(self, request: Request) -> Response:
        choices = _checked_choices(request.data)
        return Response(channels.set_channels(request.user, choices))  # type: ignore[arg-type]


def _checked_choices(data: Any) -> dict[str, str]:
    if not isinstance(data, dict):
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", "Send a JSON object of kinds and channels.")
    for kind, channel in data.items():
        if kind not in channels.KINDS:
            known = ", ".join(channels.KINDS)
            raise ApiError(status.HTTP_400_BAD_REQUEST, "unknown_kind", f"{kind}: the kinds are {known}.")
        if channel not in channels.CHANNELS:
            known = ", ".join(channels.CHANNELS)
            raise ApiError(
                status.HTTP_400_BAD_REQUEST, "unknown_channel", f"{kind}: the channels are {known}."
            )
    return dict(data)
