"""The installable app: the web app manifest, the service worker (served at the root so that its
scope is the whole site) and the offline page it keeps. None of them reads the session or the
user: the worker caches the offline page and shows it to whoever is signed in on that browser.

The worker's logic is static/js/sw.js; this module puts its configuration above it (what to
precache, at which URLs, and a version made of their contents, so that a deploy that changes
any of them replaces the cache)."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any, Final

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import app_icons
from games.art import PALETTE

# What every page may need before it can draw (the pages' stylesheets and scripts, htmx, the
# icons), fetched when the worker installs. Other static files are cached as they are first used.
PRECACHED: Final = (
    "css/site.css",
    "css/front.css",
    "css/lobby.css",
    "css/end.css",
    "css/profile.css",
    "css/guide.css",
    "css/history.css",
    "css/players.css",
    "js/site.js",
    "js/turn.js",
    "js/history.js",
    "js/timezone.js",
    "django_htmx/htmx-2.min.js",
    "favicon.svg",
    f"icons/{app_icons.SVG_FILE}",
    *(f"icons/{icon.file}" for icon in app_icons.ICONS),
)
WORKER_SOURCE: Final = "js/sw.js"


def _language(request: HttpRequest) -> str:
    """``?language=xx`` when it names one of the site's languages (the worker keeps the offline
    page in each, and the page links the manifest in its own), else the request's language."""
    asked = request.GET.get("language", "")
    return asked if asked in dict(settings.LANGUAGES) else translation.get_language()


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    language = _language(request)
    with translation.override(language):
        body = manifest_body()
    response = JsonResponse(body, content_type="application/manifest+json")
    response["Content-Language"] = language
    return response


def manifest_body() -> dict[str, Any]:
    """The manifest in the active language."""
    icons: list[dict[str, str]] = [
        {
            "src": static(f"icons/{icon.file}"),
            "sizes": f"{icon.size}x{icon.size}",
            "type": "image/png",
            "purpose": icon.purpose,
        }
        for icon in app_icons.ICONS
    ]
    icons.append(
        {
            "src": static(f"icons/{app_icons.SVG_FILE}"),
            "sizes": "any",
            "type": "image/svg+xml",
            "purpose": "any",
        }
    )
    return {
        "id": "/",
        "name": _("Dragonheart by mail"),
        "short_name": _("Dragonheart"),
        "description": _("Dragonheart, one turn at a time"),
        "lang": translation.get_language(),
        "dir": "rtl" if translation.get_language_bidi() else "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": PALETTE["accent"],  # the header's red
        "background_color": PALETTE["paper"],  # the page's, shown while the app starts
        "icons": icons,
    }


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """The page the worker shows when a page cannot be reached. Drawn without the request, so
    without the user, the session or a CSRF token: it is cached and may be shown to anyone."""
    language = _language(request)
    response = HttpResponse(offline_page(language))
    response["Content-Language"] = language
    return response


def offline_page(language: str) -> str:
    with translation.override(language):
        return render_to_string("offline.html")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(worker_script(), content_type="text/javascript; charset=utf-8")
    # At /sw.js the scope is the whole site anyway; said outright so that it stays so.
    response["Service-Worker-Allowed"] = "/"
    # A new deploy's worker must be seen at the next visit, not when an HTTP cache expires.
    response["Cache-Control"] = "no-cache"
    return response


@cache
def worker_script() -> str:
    """static/js/sw.js with its configuration above it, made once per process."""
    config = {
        "version": _version(),
        "precache": [static(name) for name in PRECACHED],
        "offline": reverse("offline"),
        "languages": [code for code, _name in settings.LANGUAGES],
        "fallback": settings.LANGUAGE_CODE,
        "static": static(""),
    }
    source = _static_file(WORKER_SOURCE).read_text()
    return f"self.DRAGONHEART = {json.dumps(config)};\n{source}"


def _version() -> str:
    """A hash of everything the worker caches at install and of the worker itself: the same
    files give the same version on every process, and any change makes a new cache."""
    digest = hashlib.blake2b(digest_size=8)
    for name in (*PRECACHED, WORKER_SOURCE):
        digest.update(_static_file(name).read_bytes())
    for code, _name in settings.LANGUAGES:
        digest.update(offline_page(code).encode())
    return digest.hexdigest()


def _static_file(name: str) -> Path:
    found = finders.find(name)
    if not isinstance(found, str):
        raise FileNotFoundError(f"static file {name} not found")
    return Path(found)
