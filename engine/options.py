"""Named rule options and presets (RULES.md 1.12)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.errors import MalformedRecord


@dataclass(frozen=True, slots=True)
class Options:
    first_player: str = "random"
    match_first_player: str = "alternate"
    deck_end_mode: str = "last_card_drawn"
    dragon_requires_stone: bool = True
    dragon_loss_return: str = "excess"
    sumof_tiebreak: str = "draw"
    deck_profile: str = "standard"
    # Not a rule of the game but a table setting: show points during play (BSW shows only
    # the number of captured cards until the end).
    open_scores: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


ALLOWED: dict[str, tuple[object, ...]] = {
    "first_player": ("random", "a", "b"),
    "match_first_player": ("alternate", "loser_starts", "random"),
    "deck_end_mode": ("last_card_drawn", "bsw_next_turn", "short_refill"),
    "dragon_requires_stone": (True, False),
    "dragon_loss_return": ("excess", "always_one"),
    "sumof_tiebreak": ("draw", "game_wins"),
    "deck_profile": ("standard", "dwarf_6x1_4x2"),
    "open_scores": (True, False),
}

PRESETS: dict[str, dict[str, object]] = {
    "official": {},
    "bsw": {"deck_end_mode": "bsw_next_turn"},
}

DEFAULT = Options()


def resolve_options(spec: dict[str, Any] | None) -> Options:
    """``{"preset": "bsw", "dragon_loss_return": "always_one"}`` → Options.

    Single options override the preset. Unknown names or values raise MalformedRecord, which
    callers outside record parsing translate into their own error.
    """
    if spec is None:
        return DEFAULT
    if not isinstance(spec, dict):
        raise MalformedRecord("options must be a JSON object")
    values: dict[str, object] = {}
    preset = spec.get("preset", "official")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise MalformedRecord(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}")
    values.update(PRESETS[preset])
    for name, value in spec.items():
        if name == "preset":
            continue
        if name not in ALLOWED:
            raise MalformedRecord(f"unknown option {name!r}")
        # bool is an int subclass, so compare types as well as values (1 is not true here).
        if not any(value == ok and type(value) is type(ok) for ok in ALLOWED[name]):
            raise MalformedRecord(f"option {name!r} cannot be {value!r}; allowed: {list(ALLOWED[name])}")
        values[name] = value
    return Options(**values)  # type: ignore[arg-type]


OPTION_NAMES = tuple(f.name for f in fields(Options))
