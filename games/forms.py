from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from engine.bots import BOTS
from games.models import DAYS_PER_TURN, MAX_RATING, MIN_RATING, NOTE_MAX_CHARS

BOT_LABELS = {
    "random": _("random: plays any legal move"),
    "greedy": _("greedy: takes the most points"),
    "medium": _("medium: looks a move ahead"),
    "strong": _("strong: thinks hard about what you may hold"),
}


def _days(days: int) -> str:
    return ngettext("%(days)d day", "%(days)d days", days) % {"days": days}


# Translated when a page shows it, in that page's language: a label built when this module
# loads would stay in the language of that moment (English) for every page.
_days_lazy = lazy(_days, str)


class CreateGameForm(forms.Form):
    # Which opponent (the ``against`` choice) each field is for; the others are for every game.
    # The page shows a field only while its opponent is chosen (pure CSS, so the form still
    # works without a script), and clean() judges a field only when it applies.
    FOR_OPPONENT = {
        "username": "user",
        "private": "open",
        "rating_min": "open",
        "rating_max": "open",
        "bot": "bot",
        "rated": "people",
    }
    field_order = [
        "against",
        "username",
        "bot",
        "private",
        "rating_min",
        "rating_max",
        "preset",
        "series",
        "target",
        "days_per_turn",
        "rated",
    ]

    # The computer and a friend first, as equal choices (home.html draws them as two tiles);
    # a friend is the first chosen, as before, so that a form sent without a choice names one.
    OPPONENTS = [
        ("bot", _("the computer")),
        ("user", _("a friend")),
        ("open", _("anyone (open challenge)")),
    ]

    against = forms.ChoiceField(
        label=_("Play against"), choices=OPPONENTS, initial="user", widget=forms.RadioSelect
    )
    username = forms.CharField(label=_("Your friend's username"), required=False, max_length=150)
    bot = forms.ChoiceField(
        label=_("Computer"),
        choices=[(b, BOT_LABELS.get(b, b)) for b in BOTS],
        initial="medium",
        required=False,
    )
    private = forms.BooleanField(label=_("Only people with the link"), required=False)
    preset = forms.ChoiceField(
        label=_("Rules"),
        choices=[("official", _("Official (Kosmos)")), ("bsw", _("BrettspielWelt"))],
        initial="official",
    )
    series = forms.ChoiceField(
        label=_("Series"),
        choices=[
            ("", _("a single game")),
            ("match", _("first to X wins")),
            ("sumof", _("most points over X games")),
        ],
        required=False,
    )
    days_per_turn = forms.TypedChoiceField(
        label=_("Time for each turn"),
        choices=[("", _("no limit (casual)"))] + [(d, _days_lazy(d)) for d in DAYS_PER_TURN],
        coerce=int,
        empty_value=None,
        required=False,
        initial=3,
    )
    target = forms.IntegerField(label=_("X"), min_value=1, max_value=25, required=False, initial=3)
    rating_min = forms.IntegerField(
        label=_("Opponent rated at least"), min_value=MIN_RATING, max_value=MAX_RATING, required=False
    )
    rating_max = forms.IntegerField(
        label=_("Opponent rated at most"), min_value=MIN_RATING, max_value=MAX_RATING, required=False
    )
    rated = forms.ChoiceField(
        label=_("Rating"),
        choices=[
            ("", _("rated when the game has a time limit")),
            ("yes", _("rated")),
            ("no", _("casual (not rated)")),
        ],
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("against") == "user" and not data.get("username"):
            self.add_error("username", _("Name the player you challenge."))
        if data.get("series") and not data.get("target"):
            self.add_error("target", _("Give the number of games."))
        return data

    def add_error(self, field: str | None, error: Any) -> None:
        # Each error is shown beside its field (home.html); point the field at it, so that a
        # screen reader reads the error with the field. Errors of the service (views.lobby.home)
        # come this way too.
        super().add_error(field, error)
        if field in self.fields:
            self.fields[field].widget.attrs["aria-describedby"] = f"id_{field}_error"

    def rows(self) -> list[tuple[forms.BoundField, str]]:
        """(field, what it is for) for home.html: "user", "open" or "bot" for a field only one
        opponent needs, "series" for the number of games, "" for a field every game has."""
        return [
            (self[name], "series" if name == "target" else self.FOR_OPPONENT.get(name, ""))
            for name in self.fields
            if name != "against"
        ]

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        opponent = {"user": data["username"], "open": None, "bot": f"bot:{data['bot']}"}[data["against"]]
        series = {"kind": data["series"], "target": data["target"]} if data["series"] else None
        return {
            "opponent": opponent,
            "rules": {"preset": data["preset"]},
            "series": series,
            "private": data["against"] == "open" and data["private"],
            "days_per_turn": data["days_per_turn"],
            "rated": None if data["against"] == "bot" else {"yes": True, "no": False}.get(data["rated"]),
            "rating_range": (
                (data["rating_min"], data["rating_max"]) if data["against"] == "open" else (None, None)
            ),
        }


class PlayForm(forms.Form):
    """The choice and version of a play; its cards are read as a list and judged by the
    engine, which explains in words what is wrong with them."""

    choice = forms.ChoiceField(
        required=False, choices=[("", "")] + [(c, c) for c in ("chests", "stones", "princesses", "trolls")]
    )
    expected_version = forms.IntegerField(min_value=0)
    # One per rendering of the form: a double click, or a resend after a lost answer, plays once.
    idempotency_key = forms.CharField(required=False, max_length=255)
    # A word for the opponent with the play (games/play_messages.py).
    # Its length is the service's to judge, so that the page says what is wrong in words.
    message = forms.CharField(required=False, strip=True)


class NotesForm(forms.Form):
    """A player's private notes on a game (games/notes.py)."""

    text = forms.CharField(required=False, max_length=NOTE_MAX_CHARS, strip=False)
