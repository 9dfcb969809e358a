from __future__ import annotations

from django import template
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from games.history import type_name

register = template.Library()


@register.filter
def voyage_marks(voyages: int) -> list[bool]:
    return [i < voyages for i in range(3)]


@register.filter
def type_label(kind: str) -> str:
    # capfirst, not str.capitalize: German keeps "Versteinerter Drache" as it is.
    return capfirst(type_name(kind))


@register.filter
def takes(kind: str) -> str:
    return {
        "chest": "",
        "fire_dragon": "← " + _("takes the chests"),
        "stone_dragon": "",
        "princess": "↖ " + _("takes the chests or the petrified dragons"),
        "troll": "← " + _("takes the princesses"),
        "huntress": "← " + _("3rd takes the fire dragons"),
        "hero": "↖ " + _("2nd takes the princesses or the trolls"),
        "dwarf": _("4th takes the dwarves"),
        "ship": "↓ " + _("3rd sails with the hold"),
    }[kind]
