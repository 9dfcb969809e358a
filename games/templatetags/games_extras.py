from __future__ import annotations

from functools import cache
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from engine.cards import CAPACITY, CARD_TYPE
from games import art
from games.history import type_name
from games.models import shown_name
from games.templatetags.players import badged

register = template.Library()


@register.simple_tag
def card_art() -> SafeString:
    """The card art (games/art.py), drawn once a page for every ``<use href="#sym-…">``."""
    return mark_safe(art.sprite())


@register.filter
def voyage_marks(voyages: int) -> list[bool]:
    return [i < voyages for i in range(3)]


@register.filter
def type_label(kind: str) -> str:
    # capfirst, not str.capitalize: German keeps "Versteinerter Drache" as it is.
    return capfirst(type_name(kind))


@cache
def _label(kind: str, language: str | None) -> str:
    # A page names up to a hundred cards: one lookup per type and language, not per card.
    return type_label(kind)


@register.filter
def card_label(card: dict[str, Any]) -> str:
    """A card as the edition names it, with its value: "Treasure chest 4", "Schiff"."""
    name = _label(card["type"], get_language())
    return name if card["type"] == "ship" else f"{name} {card['value']}"


def card_name(card_id: str, values: dict[str, int]) -> str:
    return card_label({"type": CARD_TYPE[card_id], "value": values[card_id]})


@register.filter
def takes(kind: str) -> str:
    """What a space takes, in words (the arrows on the board say it in pictures)."""
    return {
        "chest": "",
        "fire_dragon": _("takes the chests"),
        "stone_dragon": "",
        "princess": _("takes the chests or the petrified dragons"),
        "troll": _("takes the princesses"),
        "huntress": _("3rd takes the fire dragons"),
        "hero": _("2nd takes the princesses or the trolls"),
        "dwarf": _("4th takes the dwarves"),
        "ship": _("3rd sails with the hold"),
    }[kind]


# The symbols of the prey each space takes, drawn even when the space is empty.
PREY = {
    "chest": (),
    "fire_dragon": ("chest",),
    "stone_dragon": (),
    "princess": ("chest", "stone_dragon"),
    "troll": ("princess",),
    "huntress": ("fire_dragon",),
    "hero": ("princess", "troll"),
    "dwarf": ("dwarf",),
    "ship": ("hold",),
}


@register.filter
def prey(kind: str) -> tuple[str, ...]:
    return PREY[kind]


@register.filter
def capacity(kind: str) -> int | None:
    return CAPACITY.get(kind)


@register.simple_tag
def count_cards(n: int) -> str:
    return ngettext("%(n)d card", "%(n)d cards", n) % {"n": n}


@register.simple_tag
def count_points(n: int) -> str:
    return ngettext("%(n)d point", "%(n)d points", n) % {"n": n}


@register.filter
def split_words(text: str) -> list[str]:
    return text.split()


@register.filter
def player_name(players: list[dict[str, Any]], seat: str) -> str:
    name = next((p["username"] for p in players if p["seat"] == seat), None)
    return shown_name(name) or ""


@register.filter
def badged_player_name(players: list[dict[str, Any]], seat: str) -> SafeString:
    """``player_name`` with the BOT badge beside a bot's name (a view's players say is_bot)."""
    entry = next((p for p in players if p["seat"] == seat), {})
    return badged(shown_name(entry.get("username")), bool(entry.get("is_bot")))
