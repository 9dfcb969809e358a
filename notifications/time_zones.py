"""The time zones a player chooses from on the profile: one per place people live, grouped by
region, each shown as its city ("New York", not "America/New_York").

The list is the tz database's zone.tab (about 420 zones, one or more per country), not all
of ``available_timezones()``: the other ~180 are old aliases ("US/Eastern", "Asia/Calcutta")
and abbreviations ("EST5EDT") that would list most cities twice. Any zone Python knows is
still accepted (a browser may report an alias), and a saved one off the list is offered as it
is, so that saving the form never changes it behind the player's back."""

from __future__ import annotations

import functools
from pathlib import Path
from zoneinfo import TZPATH, available_timezones

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

UTC = "UTC"
# The tz database's first segment, as a person names the region.
REGIONS: dict[str, Promise] = {
    "Africa": _("Africa"),
    "America": _("Americas"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("Atlantic Ocean"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("Indian Ocean"),
    "Pacific": _("Pacific Ocean"),
}
OTHER = _("Other")

Group = tuple[str, list[tuple[str, str]]]


@functools.cache
def known() -> frozenset[str]:
    """Every zone Python can load: what the form accepts."""
    return frozenset(available_timezones())


@functools.cache
def listed() -> tuple[str, ...]:
    """The zones offered: zone.tab's, or (where the system has no zone.tab) every known zone
    under a region, aliases included."""
    for folder in TZPATH:
        table = Path(folder) / "zone.tab"
        if table.is_file():
            lines = table.read_text(encoding="utf-8").splitlines()
            zones = {line.split("\t")[2] for line in lines if line and not line.startswith("#")}
            return tuple(sorted(zones & known()))
    return tuple(sorted(zone for zone in known() if zone.partition("/")[0] in REGIONS))


def city_name(zone: str) -> str:
    """ "America/Argentina/Buenos_Aires" -> "Buenos Aires (Argentina)"; "UTC" -> "UTC"."""
    parts = zone.replace("_", " ").split("/")
    city = parts[-1]
    return f"{city} ({', '.join(parts[1:-1])})" if len(parts) > 2 else city


def region_of(zone: str) -> str:
    """The region's key ("Europe"), or "" for a zone outside every region ("UTC", "EST")."""
    region = zone.partition("/")[0]
    return region if "/" in zone and region in REGIONS else ""


def grouped(chosen: str | None = None) -> list[Group]:
    """The offered zones by region (in the language now active), cities by name; UTC first,
    and ``chosen`` under "Other" when it is a known zone off the list."""
    groups: dict[str, list[tuple[str, str]]] = {key: [] for key in REGIONS}
    for zone in listed():
        if region_of(zone):
            groups[region_of(zone)].append((zone, city_name(zone)))
    by_name = {key: sorted(cities, key=lambda city: city[1]) for key, cities in groups.items()}
    result: list[Group] = [(str(REGIONS[key]), cities) for key, cities in by_name.items() if cities]
    if chosen and chosen in known() and chosen != UTC and chosen not in listed():
        result.append((str(OTHER), [(chosen, chosen.replace("_", " "))]))
    return [("", [(UTC, UTC)]), *result]
