"""Draws the app's icons (games/app_icons.py) into static/icons/: run after changing the dragon
or the palette, and commit the files it writes."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import app_icons


class Command(BaseCommand):
    help = "Draw the web app's icons (PNG and SVG) into static/icons/."

    def handle(self, *args: Any, **options: Any) -> None:
        for path in app_icons.draw_all():
            self.stdout.write(str(path))
