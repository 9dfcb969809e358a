"""What every page may need from this app: the key a browser subscribes to push with, so that
the profile and the game page can both offer to turn notifications on
(templates/notifications/_push_device.html)."""

from __future__ import annotations

from django.http import HttpRequest

from notifications import push


def push_key(request: HttpRequest) -> dict[str, str]:
    """``push_key``: the applicationServerKey, "" when the site sends no push."""
    return {"push_key": push.public_key()}
