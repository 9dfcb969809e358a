"""The site's colours and its card art, in one place, for the pages, the guide and the turn
email's picture alike.

PALETTE is site.css's custom properties (``--ink``, ``--chest``, …), by name: the stylesheet
colours the pages with them, the email's picture (notifications/board_picture.py) with these
values, and tests/games/test_art.py checks that the two agree.

SYMBOLS are the pictures of the nine card types, the hold and the capture arrow: drawings of
our own (no art of the published game) in a 40-unit square around the origin (the arrow in a
24-unit one). What follows the card's type is drawn in ``currentColor``, which a page sets by
type (``.card-chest`` and the like in site.css) and the email's picture from PALETTE; the rest
is fixed. A page includes them once (``{% card_art %}``, games_extras) and each card uses one:
``<use href="#sym-chest"/>``. No path holds a lower-case command followed by two digits, such
as "a10", which would read as a card id to the hidden-card scans of the tests."""

from __future__ import annotations

from functools import cache
from typing import Final

PALETTE: Final = {
    "ink": "#1e1b18",
    "muted": "#5f5750",
    "paper": "#f7f1e6",
    "panel": "#fffaf1",
    "line": "#d8cbb5",
    "accent": "#8a1c12",
    "accent-ink": "#fff",
    "target": "#e9b949",
    "ok": "#2f6b2f",
    "chest": "#b7862b",
    "fire_dragon": "#c2361b",
    "stone_dragon": "#6e6a64",
    "princess": "#a23b83",
    "troll": "#4f6b2a",
    "dwarf": "#8a5a2b",
    "hero": "#2d5d9f",
    "huntress": "#1f7a6b",
    "ship": "#34495e",
}

CARD_VIEW_BOX: Final = "-20 -20 40 40"
VIEW_BOXES: Final = {"arrow": "-12 -12 24 24"}

SYMBOLS: Final = {
    "chest": (
        '<circle cx="-6" cy="-12" r="3.5" fill="#f1c232" stroke="#a67c00"/>'
        '<circle cx="3" cy="-13" r="3.5" fill="#f1c232" stroke="#a67c00"/>'
        '<path d="M-16 -2 V-7 Q0 -19 16 -7 V-2 Z" fill="currentColor" opacity=".75"/>'
        '<rect x="-16" y="-2" width="32" height="17" rx="2" fill="currentColor"/>'
        '<rect x="-11" y="-13" width="3" height="28" fill="#f3d9a4"/>'
        '<rect x="8" y="-13" width="3" height="28" fill="#f3d9a4"/>'
        '<rect x="-3.5" y="-5" width="7" height="8" rx="1" fill="#f3d9a4"/>'
        '<circle cx="0" cy="-1.5" r="1.3" fill="#3b2a10"/>'
    ),
    "fire_dragon": (
        '<path d="M-19 3 C-22 -2 -20 -8 -16 -10 C-17 -5 -15 -3 -12 -2 C-14 -6 -11 -9 -8 -9 L-9 4 Z"'
        ' fill="#f6a623"/>'
        '<path d="M-10 8 C-10 -4 -2 -11 6 -10 L11 -17 L11 -9 L18 -8 L13 -3 C16 4 10 12 1 12 L-6 12 L-2 7 Z"'
        ' fill="currentColor"/>'
        '<path d="M-10 8 L-4 3 L-2 7 Z" fill="#fff"/>'
        '<circle cx="5" cy="-4" r="1.8" fill="#fff3c4"/>'
        '<path d="M0 12 L2 18 L6 12 M8 11 L11 17 L12 9" fill="none" stroke="currentColor"'
        ' stroke-width="2"/>'
    ),
    "stone_dragon": (
        '<path d="M-17 12 L-17 16 L17 16 L17 12 Z" fill="#9e9a93"/>'
        '<path d="M-12 12 C-12 -2 -4 -10 5 -9 L10 -16 L10 -8 L17 -7 L12 -2 C15 5 9 12 1 12 Z"'
        ' fill="currentColor"/>'
        '<path d="M-4 -4 L0 1 L-3 6 M6 -2 L3 4 L7 8 M12 -2 L9 1" fill="none" stroke="#e8e4dc"'
        ' stroke-width="1.2"/>'
        '<path d="M2 -4 h4" stroke="#2b2a28" stroke-width="1.6"/>'
    ),
    "princess": (
        '<path d="M-14 19 Q-12 2 0 2 Q12 2 14 19 Z" fill="currentColor"/>'
        '<path d="M-9 -2 Q-11 -12 0 -12 Q11 -12 9 -2 L9 8 L-9 8 Z" fill="#7a3b12"/>'
        '<circle cx="0" cy="-2" r="7" fill="#f5d0b0"/>'
        '<path d="M-7 -10 L-7 -17 L-3.5 -13 L0 -19 L3.5 -13 L7 -17 L7 -10 Z" fill="#f1c232"'
        ' stroke="#a67c00" stroke-width=".6"/>'
        '<circle cx="-2.5" cy="-3" r=".9" fill="#3b2a10"/>'
        '<circle cx="2.5" cy="-3" r=".9" fill="#3b2a10"/>'
        '<path d="M-2 1 Q0 2.5 2 1" fill="none" stroke="#b0413e" stroke-width=".9"/>'
    ),
    "troll": (
        '<path d="M9 -16 L16 -18 L18 -12 L12 -9 Z" fill="#7b5a36"/>'
        '<path d="M12 -10 L4 14" stroke="#7b5a36" stroke-width="3.5" stroke-linecap="round"/>'
        '<path d="M-16 -6 L-11 -4 M16 -6" stroke="currentColor" stroke-width="3"/>'
        '<ellipse cx="-2" cy="0" rx="12" ry="13" fill="currentColor"/>'
        '<path d="M-14 -4 L-19 -8 L-13 -9 Z M10 -4 L14 -9 L9 -8 Z" fill="currentColor"/>'
        '<circle cx="-6" cy="-3" r="2" fill="#fff3c4"/>'
        '<circle cx="2" cy="-3" r="2" fill="#fff3c4"/>'
        '<path d="M-8 6 Q-2 10 4 6" fill="none" stroke="#1e1b18" stroke-width="1.4"/>'
        '<path d="M-7 6 L-6 3 L-5 6.6 M2 6.6 L3 3 L4 6" fill="#fff"/>'
    ),
    "dwarf": (
        '<path d="M8 -17 Q18 -14 19 -6 Q14 -12 9 -12 Z" fill="#9aa3a8"/>'
        '<path d="M10 -14 L14 16" stroke="#7b5a36" stroke-width="2.5" stroke-linecap="round"/>'
        '<path d="M-11 -6 Q-11 -16 -1 -16 Q9 -16 9 -6 Z" fill="#8f979c"/>'
        '<rect x="-12" y="-7" width="22" height="3" rx="1" fill="#6b7378"/>'
        '<circle cx="-1" cy="-1" r="6.5" fill="#f5d0b0"/>'
        '<path d="M-9 0 Q-10 16 -1 18 Q8 16 7 0 Q4 6 -1 6 Q-6 6 -9 0 Z" fill="currentColor"/>'
        '<circle cx="-3.5" cy="-2" r=".9" fill="#3b2a10"/>'
        '<circle cx="1.5" cy="-2" r=".9" fill="#3b2a10"/>'
    ),
    "hero": (
        '<path d="M-4 -19 L0 -23 L4 -19 L4 6 L-4 6 Z" transform="translate(9 4) rotate(20)" fill="#cfd8dc"'
        ' stroke="#78909c" stroke-width=".8"/>'
        '<path d="M-15 -11 L3 -11 L3 2 Q3 13 -6 17 Q-15 13 -15 2 Z" fill="currentColor" stroke="#1b3558"'
        ' stroke-width="1"/>'
        '<path d="M-7.5 -8 V13 M-13 -1 H1" stroke="#f1c232" stroke-width="3"/>'
        '<rect x="5" y="7" width="11" height="3" rx="1" transform="rotate(20 10 8)" fill="#a67c00"/>'
    ),
    "huntress": (
        '<path d="M-8 -18 Q14 0 -8 18" fill="none" stroke="currentColor" stroke-width="3.2"'
        ' stroke-linecap="round"/>'
        '<path d="M-8 -18 L-8 18" stroke="#5f5750" stroke-width=".9"/>'
        '<path d="M-16 0 L15 0" stroke="#7b5a36" stroke-width="2"/>'
        '<path d="M18 0 L12 -4 L13 0 L12 4 Z" fill="#9aa3a8"/>'
        '<path d="M-16 0 L-19 -4 M-16 0 L-19 4 M-13 0 L-16 -4 M-13 0 L-16 4" stroke="currentColor"'
        ' stroke-width="1.4"/>'
    ),
    "ship": (
        '<path d="M-2 -19 L-2 8" stroke="#5b3b1c" stroke-width="2"/>'
        '<path d="M-2 -19 L8 -17 L-2 -15 Z" fill="#b83b2b"/>'
        '<path d="M0 -14 Q14 -6 0 4 Z" fill="#fffaf1" stroke="#5f5750" stroke-width=".8"/>'
        '<path d="M-4 -12 Q-16 -4 -4 4 Z" fill="#fffaf1" stroke="#5f5750" stroke-width=".8"/>'
        '<path d="M-18 7 L18 7 L12 16 L-13 16 Z" fill="currentColor"/>'
        '<path d="M-19 18 Q-14 15 -9 18 T1 18 T11 18 T20 18" fill="none" stroke="#3f7fbf"'
        ' stroke-width="1.3"/>'
    ),
    "hold": (
        '<path d="M-16 -6 L16 -6 L12 14 L-12 14 Z" fill="none" stroke="currentColor" stroke-width="2.5"/>'
        '<path d="M-8 -6 L-8 -14 L8 -14 L8 -6" fill="none" stroke="currentColor" stroke-width="2"/>'
        '<path d="M-8 4 H8" stroke="currentColor" stroke-width="2"/>'
    ),
    "arrow": (
        '<path d="M9 0 H-6 M-1 -6 L-7 0 L-1 6" fill="none" stroke="currentColor" stroke-width="2.6"'
        ' stroke-linecap="round" stroke-linejoin="round"/>'
    ),
}


@cache
def symbols() -> str:
    """Every drawing as an SVG ``<symbol id="sym-KIND">``, one a line, inside ``<defs>``: what a
    page or a picture holds once for its cards to use."""
    defined = "".join(
        f'<symbol id="sym-{kind}" viewBox="{VIEW_BOXES.get(kind, CARD_VIEW_BOX)}">{body}</symbol>\n'
        for kind, body in SYMBOLS.items()
    )
    return f"<defs>\n{defined}</defs>"


@cache
def sprite() -> str:
    """The drawings for a page: an SVG that shows nothing itself (site.css hides ``.sprite``)."""
    return f'<svg class="sprite" aria-hidden="true" focusable="false">{symbols()}</svg>'
