"""The installable app: the manifest and its icons, the service worker, the offline page, and
the count of games waiting for the player in every page's header and title."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from games import app_icons
from games.context_processors import your_games
from games.views import app
from tests.support.tables import start

STATIC = Path(settings.BASE_DIR) / "static"


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's header (its IHDR chunk, right after the signature)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _manifest(client: Any, **headers: Any) -> dict[str, Any]:
    response = client.get("/manifest.webmanifest", **headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest: dict[str, Any] = json.loads(response.content)
    return manifest


def _worker_config(client: Any) -> dict[str, Any]:
    source = client.get("/sw.js").content.decode()
    first_line = source.split("\n", 1)[0]
    match = re.fullmatch(r"self\.DRAGONHEART = (.*);", first_line)
    assert match, first_line
    config: dict[str, Any] = json.loads(match.group(1))
    return config


# --- the manifest --------------------------------------------------------------------------------


def test_it_serves_a_manifest_that_makes_the_site_an_app(client):
    manifest = _manifest(client)
    assert manifest["name"] == "Dragonheart by mail"
    assert manifest["short_name"] == "Dragonheart"
    assert manifest["start_url"] == "/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#8a1c12"
    assert manifest["background_color"] == "#f7f1e6"


def test_every_png_icon_has_the_size_the_manifest_says(client):
    pngs = [icon for icon in _manifest(client)["icons"] if icon["type"] == "image/png"]
    for icon in pngs:
        path = STATIC / icon["src"].removeprefix("/static/")
        width, height = _png_size(path)
        assert icon["sizes"] == f"{width}x{height}", icon["src"]
    sizes = {int(icon["sizes"].split("x")[0]) for icon in pngs}
    assert {192, 512} <= sizes


def test_one_icon_is_maskable_and_one_is_an_svg(client):
    icons = _manifest(client)["icons"]
    assert any(icon["purpose"] == "maskable" and icon["type"] == "image/png" for icon in icons)
    svg = [icon for icon in icons if icon["type"] == "image/svg+xml"]
    assert svg
    assert (STATIC / "icons" / app_icons.SVG_FILE).exists()


def test_the_committed_icons_are_the_ones_the_drawing_command_makes(tmp_path):
    written = app_icons.draw_all(tmp_path)
    for path in written:
        assert path.read_bytes() == (STATIC / "icons" / path.name).read_bytes(), (
            f"static/icons/{path.name} is stale: run manage.py draw_app_icons"
        )


def test_the_apple_touch_icon_is_a_full_square_of_its_size():
    assert _png_size(STATIC / "icons" / app_icons.APPLE_TOUCH.file) == (180, 180)
    assert 'rx="0"' in app_icons.icon_svg(maskable=True)  # iOS would fill round corners black


def test_the_manifest_speaks_the_pages_language(client):
    assert _manifest(client, HTTP_ACCEPT_LANGUAGE="de")["name"] == "Drachenherz per Post"
    by_link = _manifest(client, HTTP_ACCEPT_LANGUAGE="en", QUERY_STRING="language=de")
    assert by_link["lang"] == "de"
    assert by_link["short_name"] == "Drachenherz"


def test_every_page_links_the_manifest_the_icon_and_the_worker(client):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest?language=fr">' in page
    assert '<meta name="theme-color" content="#8a1c12">' in page
    assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page
    assert '<meta name="service-worker" content="/sw.js">' in page


# --- the service worker ----------------------------------------------------------------------------


def test_the_worker_is_javascript_allowed_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    assert 'addEventListener("fetch"' in response.content.decode()


def test_the_worker_precaches_only_static_files_and_the_offline_page(client):
    config = _worker_config(client)
    static_url = config["static"]
    assert all(url.startswith(static_url) for url in config["precache"])
    for name in (
        "css/site.css",
        "css/lobby.css",
        "js/site.js",
        "django_htmx/htmx-2.min.js",
        "icons/icon-512.png",
    ):
        assert static_url + name in config["precache"]
    assert config["offline"] == "/offline/"
    assert config["languages"] == ["en", "de", "es", "fr", "uk"]


def test_the_cache_version_changes_with_a_precached_file(monkeypatch, tmp_path):
    before = app._version()
    changed = tmp_path / "site.css"
    changed.write_text("body { color: red; }")
    real = app._static_file
    monkeypatch.setattr(app, "_static_file", lambda name: changed if name == "css/site.css" else real(name))
    assert app._version() != before
    monkeypatch.undo()
    assert app._version() == before


# --- the offline page ---------------------------------------------------------------------------


def test_the_offline_page_says_so_in_the_language_asked(client):
    response = client.get("/offline/?language=de")
    assert response.status_code == 200
    assert response["Content-Language"] == "de"
    assert '<html lang="de">' in response.content.decode()
    english = client.get("/offline/?language=en").content.decode()
    assert "You are offline" in english


def test_the_offline_page_is_the_same_for_everyone(client, alice, bob):
    start(alice, bob, rules={"first_player": "a"})
    anonymous = client.get("/offline/?language=en")
    client.force_login(alice)
    signed_in = client.get("/offline/?language=en")
    assert signed_in.content == anonymous.content
    page = signed_in.content.decode()
    assert "alice" not in page
    assert "csrf" not in page.lower()
    assert "Cookie" not in signed_in.get("Vary", "")
    assert not signed_in.cookies


# --- the count of games waiting -------------------------------------------------------------------


@pytest.fixture
def two_waiting(alice, bob, charlie):
    start(alice, bob, rules={"first_player": "a"})
    start(charlie, alice, rules={"first_player": "b"})
    start(alice, charlie, rules={"first_player": "b"})  # charlie's move: not waiting for alice


def test_the_header_and_the_title_count_the_games_waiting_on_every_page(client, alice, two_waiting):
    client.force_login(alice)
    for url in ("/", "/players/", "/how-to-play/", "/accounts/profile/"):
        page = client.get(url).content.decode()
        assert re.search(r'class="nav-games">Your games \(2\)</a>', page), url
        assert re.search(r"<title>\(2\) ", page), url


def test_the_lobby_says_its_count_once(client, alice, two_waiting):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "<title>(2) Lobby · Dragonheart by mail</title>" in page


def test_a_player_without_a_game_waiting_sees_no_count(client, bob, two_waiting):
    client.force_login(bob)  # alice is to move in their game
    page = client.get("/players/").content.decode()
    assert 'class="nav-games">Your games</a>' in page
    assert "<title>(" not in page


def test_a_visitor_sees_neither_link_nor_count(client, two_waiting):
    page = client.get("/players/").content.decode()
    assert "nav-games" not in page
    assert "<title>(" not in page


def test_the_count_costs_one_query_a_page(client, alice, two_waiting, settings):
    client.force_login(alice)
    client.get("/players/")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            client.get("/players/")
        return len(captured)

    with_count = queries()
    processors = settings.TEMPLATES[0]["OPTIONS"]["context_processors"]
    settings.TEMPLATES = [
        {
            **settings.TEMPLATES[0],
            "OPTIONS": {
                **settings.TEMPLATES[0]["OPTIONS"],
                "context_processors": [p for p in processors if p != "games.context_processors.your_games"],
            },
        }
    ]
    assert with_count == queries() + 1


def test_the_count_is_read_only_when_a_page_shows_it():
    # No database in this test: a query would raise.
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    assert your_games(request) == {}
    request.user = User(pk=1, username="alice")
    assert "your_games" in your_games(request)  # lazy: nothing read yet
