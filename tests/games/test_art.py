"""One source for the colours and the card art (games/art.py): site.css's custom properties
are the palette, and the game page and the guide draw every picture from the same symbols."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

from engine.cards import TYPES
from games import art
from tests.support.tables import start

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "site.css"


def _custom_properties(css: str) -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", css, re.S)
    assert root is not None
    return dict(re.findall(r"--([\w-]+):\s*([^;]+);", root[1]))


def _used_and_defined(html: str) -> tuple[set[str], set[str]]:
    used = set(re.findall(r'<use href="#([\w-]+)"', html))
    defined = set(re.findall(r'<symbol id="([\w-]+)"', html))
    return used, defined


def test_it_colours_the_site_css_with_the_palette() -> None:
    assert _custom_properties(SITE_CSS.read_text()) == art.PALETTE


def test_it_reads_a_changed_colour_as_a_difference() -> None:
    # The comparison above would see a stylesheet that drifted from the palette.
    css = SITE_CSS.read_text().replace(art.PALETTE["troll"], "#000001", 1)
    assert _custom_properties(css) != art.PALETTE


def test_it_draws_every_card_type_and_the_hold() -> None:
    assert set(art.SYMBOLS) == {*TYPES, "hold", "arrow"}
    assert art.sprite().count("<symbol ") == len(art.SYMBOLS)


def test_the_guide_draws_its_pictures_from_the_card_art(client: Client, db: None) -> None:
    html = client.get("/how-to-play/").content.decode()
    used, defined = _used_and_defined(html)
    assert html.count(art.symbols()) == 1
    assert {f"sym-{kind}" for kind in TYPES} <= used
    assert used <= defined == {f"sym-{kind}" for kind in art.SYMBOLS}


def test_the_game_page_draws_its_cards_from_the_same_art(client: Client, alice, bob) -> None:
    game = start(alice, bob)
    client.force_login(alice)
    html = client.get(f"/games/{game.pk}/").content.decode()
    used, defined = _used_and_defined(html)
    assert html.count(art.symbols()) == 1
    assert used <= defined == {f"sym-{kind}" for kind in art.SYMBOLS}
