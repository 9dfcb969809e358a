from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class HealthApi(APIView):
    """Answers without touching the database: for load balancers, and the benchmarks' bare
    DRF baseline."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: inline_serializer("Health", {"ok": serializers.BooleanField()})}, auth=[])
    def get(self, request: Request) -> Response:
        return Response({"ok": True})
