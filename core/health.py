"""Liveness (``/api/health/``: the process answers) and readiness (``/api/health/ready/``: the
node reaches its database and Redis and is not draining, so a load balancer may send it
traffic)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError, connections
from django_redis import get_redis_connection
from drf_spectacular.utils import extend_schema, inline_serializer
from redis.exceptions import RedisError
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import drain

log = logging.getLogger(__name__)
HEALTH = inline_serializer("Health", {"ok": serializers.BooleanField()})


class HealthApi(APIView):
    """Answers without touching the database: for load balancers, and the benchmarks' bare
    DRF baseline."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: HEALTH}, auth=[])
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


def unready() -> tuple[str, str] | None:
    """Why this node should get no traffic, as an API error's code and detail; None if it may."""
    if drain.draining():
        return "draining", "The node is shutting down."
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        log.warning("not ready: database unavailable: %s", error)
        return "database_unavailable", "The node cannot reach its database."
    if settings.REDIS_URL:
        try:
            get_redis_connection("default").ping()
        except RedisError as error:
            log.warning("not ready: cache unavailable: %s", error)
            return "cache_unavailable", "The node cannot reach Redis."
    return None


class ReadinessApi(APIView):
    """200 while the node may take traffic; 503 with the reason otherwise (a load balancer's
    check: it takes the node out of rotation, and back once it answers 200 again)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: HEALTH}, auth=[])
    def get(self, request: Request) -> Response:
        reason = unready()
        if reason is None:
            return Response({"ok": True})
        code, detail = reason
        return Response({"code": code, "detail": detail}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
