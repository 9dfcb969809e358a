"""How to play: the rules in words and pictures, for everyone, signed in or not."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from engine.cards import TYPES
from games import guide, history


@require_GET
def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules in words and pictures, for the options of ``?game=ID`` or of the link."""
    rules = guide.rules_for(request.GET)
    context = {
        "rules": rules,
        "options": rules.options,
        "deck": guide.deck(rules.options),
        "deck_points": guide.deck_points(rules.options),
        "from_game": rules.game,
        "boxes": guide.chain(
            {**{kind: capfirst(history.type_name(kind)) for kind in TYPES}, "hold": _("Hold")}
        ),
        "arrows": guide.ARROWS,
    }
    return render(request, "how_to_play.html", context)
