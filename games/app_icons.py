"""The app's icons: the header's dragon (templates/games/_dragon.html) on the site's red, drawn
as an SVG here and rendered to the PNGs a phone asks for by ``manage.py draw_app_icons``, which
writes them to static/icons/ (committed, so that serving them needs no drawing). The manifest
(games/views/app.py) lists ICONS, and tests/games/test_app.py checks each PNG has its size."""

from __future__ import annotations

from pathlib import Path
from typing import Final, NamedTuple

from django.conf import settings

from games.art import PALETTE

ICON_DIR: Final = Path(settings.BASE_DIR) / "static" / "icons"
# The brand's colours in the header: the dragon light on the accent red (site.css .brand).
BODY: Final = "#f3d9a4"
WING: Final = PALETTE["target"]
BACKGROUND: Final = PALETTE["accent"]

# _dragon.html's paths, in its 32-unit box; the figure spans x 1..30 and y 3..26.
_DRAGON: Final = (
    f'<path fill="{WING}" d="M12 12 C10 6 4 5 1 7 C5 8 6 11 6 14 Z"/>'
    f'<path fill="{BODY}" d="M4 24 C8 14 14 11 18 12 L24 5 L23 11 L30 10 L25 15 '
    'C27 20 23 26 16 26 L10 26 L12 22 Z"/>'
    f'<path fill="{WING}" d="M14 14 C16 7 22 4 27 3 C24 7 22 10 20 13 Z"/>'
    f'<circle fill="{BACKGROUND}" cx="22" cy="11" r="1.3"/>'
)
_CENTRE: Final = (15.5, 14.5)


class Icon(NamedTuple):
    file: str  # under static/icons/
    size: int  # pixels, square
    purpose: str  # the manifest's "any" or "maskable"


ICONS: Final = (
    Icon("icon-192.png", 192, "any"),
    Icon("icon-512.png", 512, "any"),
    Icon("maskable-192.png", 192, "maskable"),
    Icon("maskable-512.png", 512, "maskable"),
)
# iOS ignores the manifest's icons and fills transparency with black: a full square.
APPLE_TOUCH: Final = Icon("apple-touch-icon.png", 180, "maskable")
SVG_FILE: Final = "icon.svg"


def icon_svg(*, maskable: bool) -> str:
    """The icon as SVG. A maskable icon fills its square (the phone cuts its own shape) and
    keeps the dragon inside the safe zone, the centred circle of 40% of the size in radius:
    the figure's half-diagonal is 18.5 units, scaled by 0.66 it is 12.2 of the 12.8 allowed.
    The plain icon has rounded corners and a larger dragon."""
    scale = 0.66 if maskable else 0.86
    corner = 0 if maskable else 6
    cx, cy = _CENTRE
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
        f'<rect width="32" height="32" rx="{corner}" fill="{BACKGROUND}"/>'
        f'<g transform="translate(16 16) scale({scale}) translate({-cx} {-cy})">{_DRAGON}</g>'
        "</svg>"
    )


def render_png(icon: Icon) -> bytes:
    import resvg_py  # only the drawing command needs it

    svg = icon_svg(maskable=icon.purpose == "maskable")
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=icon.size, height=icon.size))


def draw_all(directory: Path = ICON_DIR) -> list[Path]:
    """Writes every PNG and the SVG; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for icon in (*ICONS, APPLE_TOUCH):
        path = directory / icon.file
        path.write_bytes(render_png(icon))
        written.append(path)
    svg_path = directory / SVG_FILE
    svg_path.write_text(icon_svg(maskable=False) + "\n")
    return [*written, svg_path]
