from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from notifications import services


@csrf_exempt  # RFC 8058 one-click: mail clients POST without a session or a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link scanners must not unsubscribe anyone); POST does it."""
    if request.method == "GET":
        return render(request, "notifications/unsubscribe.html", {"token": token, "done": False})
    if not services.unsubscribe(token):
        return render(request, "notifications/unsubscribe.html", {"bad": True}, status=400)
    return render(request, "notifications/unsubscribe.html", {"done": True})
