"""The game page's link to its game's stream (templates/games/game.html, static/js/live.js).

``{% stream_triggers %}``: the poll element's ``hx-trigger`` for the stream, one ``sse:KIND`` per
event the stream may send (games/streams.py). An SSE event that has a name reaches only the
listeners of that name, so every name is listed; any of them fetches the poll's answer.

``{% fallback_poll_seconds %}``: how often the timed poll still goes while the stream is open.
"""

from __future__ import annotations

from typing import Final

from django import template
from django.conf import settings

from engine.events import KINDS
from games.streams import RESET, STATE

register = template.Library()

# The stream opens with ``state`` (or ``reset`` then ``state``), then sends the game's events.
STREAM_EVENTS: Final = (STATE, RESET, *KINDS)
# Seldom: the stream brings every change; the poll is there for a stream that went quiet.
FALLBACK_POLL_SECONDS: Final = 60


@register.simple_tag
def stream_triggers() -> str:
    return ", ".join(f"sse:{kind}" for kind in STREAM_EVENTS)


@register.simple_tag
def fallback_poll_seconds() -> int:
    """The poll also tells the server that the player is at the table (accounts/presence: no
    turn email while they watch), so it comes at least twice in each presence window."""
    return max(1, min(FALLBACK_POLL_SECONDS, int(settings.PRESENCE_WINDOW_SECONDS) // 2))
