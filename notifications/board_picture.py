"""The board of a turn email as a picture: an SVG drawn with the pages' own card art and
colours (games/art.py: the card symbols, and the palette site.css's custom properties hold),
rendered to PNG by resvg and sent inline. It is drawn from the reader's view alone
(presenters.game_view): the spaces, the hold, the voyages, the Great Dragon, the draw piles and
the reader's own hand, so it can show no card the reader may not see."""

from __future__ import annotations

from html import escape
from typing import Any

import resvg_py
from django.utils.text import capfirst
from django.utils.translation import gettext

from engine.cards import other
from games.art import PALETTE, symbols
from games.history import type_name
from games.table import BOARD_ORDER
from games.templatetags.games_extras import card_label

WIDTH, COLUMN, ROW, CARD_W, CARD_H = 600, 196, 112, 30, 42
FONT = "DejaVu Sans, sans-serif"


def _text(
    x: float, y: float, words: str, size: int = 13, weight: str = "normal", anchor: str = "start"
) -> str:
    return (
        f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
        f'text-anchor="{anchor}" fill="{PALETTE["ink"]}">{escape(words)}</text>'
    )


def _card(x: float, y: float, card: dict[str, Any]) -> str:
    colour = PALETTE.get(card["type"], "#333")
    value = "" if card["type"] == "ship" else str(card["value"])
    return (
        f'<g transform="translate({x},{y})" style="color:{colour}">'
        f'<rect width="{CARD_W}" height="{CARD_H}" rx="4" fill="{PALETTE["panel"]}" '
        f'stroke="{colour}" stroke-width="1.5"/>'
        f'<use href="#sym-{card["type"]}" x="2" y="11" width="26" height="26"/>'
        f'<text x="4" y="11" font-family="{FONT}" font-size="10" font-weight="bold" '
        f'fill="{colour}">{value}</text>'
        "</g>"
    )


def _cards(x: float, y: float, cards: list[dict[str, Any]], width: float) -> str:
    step = min(CARD_W + 3, (width - CARD_W) / max(len(cards) - 1, 1))
    return "".join(_card(x + i * step, y, card) for i, card in enumerate(cards))


def _space(index: int, kind: str, cards: list[dict[str, Any]]) -> str:
    x, y = 6 + (index % 3) * (COLUMN + 2), 34 + (index // 3) * (ROW + 4)
    return (
        f'<rect x="{x}" y="{y}" width="{COLUMN}" height="{ROW}" rx="6" fill="{PALETTE["panel"]}" '
        f'stroke="{PALETTE["line"]}"/>'
        + _text(x + 8, y + 17, capfirst(type_name(kind, 2)), 12, "bold")
        + _cards(x + 8, y + 28, cards, COLUMN - 16)
    )


def board_svg(view: dict[str, Any], names: dict[str, str]) -> str:
    """The picture's SVG, from the reader's ``view`` and the players' ``names``."""
    board = view["board"] or {}
    seat = view["your_seat"]
    piles = {p["seat"]: p["pile_size"] for p in view["players"]}
    opponent = other(seat)
    dragon = names[view["dragon"]] if view["dragon"] else "–"
    top = (
        gettext("Voyages %(n)s/3") % {"n": view["voyages"]}
        + f" · {gettext('Great Dragon')}: {dragon}"
        + f" · {gettext('Draw pile')}: {gettext('you')} {piles.get(seat, 0)},"
        + f" {names[opponent]} {piles.get(opponent, 0)}"
    )
    grid = "".join(_space(i, kind, board.get(kind, [])) for i, kind in enumerate(BOARD_ORDER))
    below = 34 + 3 * (ROW + 4) + 6
    hold = _text(8, below + 14, gettext("Hold"), 12, "bold") + _cards(150, below, view["hold"] or [], 440)
    hand_y = below + CARD_H + 16
    hand = _text(8, hand_y + 14, gettext("Your hand:"), 12, "bold")
    hand += _cards(150, hand_y, view["hand"] or [], 440)
    height = hand_y + CARD_H + 10
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">{symbols()}'
        f'<rect width="{WIDTH}" height="{height}" fill="{PALETTE["paper"]}"/>'
        + _text(8, 22, top, 13, "bold")
        + grid
        + hold
        + hand
        + "</svg>"
    )


def board_png(view: dict[str, Any], names: dict[str, str]) -> bytes:
    return bytes(resvg_py.svg_to_bytes(svg_string=board_svg(view, names)))


def alt_text(view: dict[str, Any]) -> str:
    """The picture in words, for mail clients that show no images."""
    spaces = [
        f"{capfirst(type_name(kind, 2))}: {', '.join(card_label(c) for c in cards)}"
        for kind, cards in (view["board"] or {}).items()
        if cards
    ]
    return "; ".join(spaces) or gettext("The board is empty.")
