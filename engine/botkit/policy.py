"""Which challenges the kit accepts: a pure verdict on a ``challenge`` event's data.

In order: the account's own challenges are not its to answer; a challenge whose rule options
this engine does not know is declined (the kit could not play it); one that is rated when the
bot plays only casual games (or the reverse), or has a clock the bot does not take, is
declined; one that would take the bot over its number of games at once waits (it stays open,
and is looked at again when a game ends); any other is accepted."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.botkit.convert import ConversionError, options_of


class Verdict(Enum):
    ACCEPT = "accept"
    DECLINE = "decline"
    WAIT = "wait"
    IGNORE = "ignore"


@dataclass(frozen=True, slots=True)
class Policy:
    """``rated``: True takes only rated games, False only casual ones, None both.
    ``clocks``: the days per turn taken (None in it: no clock); None takes any clock.
    ``max_games``: games played at once, counting those already running."""

    rated: bool | None = None
    clocks: frozenset[int | None] | None = None
    max_games: int = 4

    def judge(self, challenge: Mapping[str, Any], running: Callable[[], int]) -> tuple[Verdict, str]:
        """The verdict on a challenge and why; ``running`` counts the games the account plays
        now (asked last, as it costs a request)."""
        if challenge.get("direction") == "out":
            return Verdict.IGNORE, "the account's own challenge"
        try:
            options_of(challenge.get("rules"))
        except ConversionError as exc:
            return Verdict.DECLINE, f"rules this kit cannot play: {exc}"
        rated = bool(challenge.get("rated"))
        if self.rated is not None and rated != self.rated:
            return Verdict.DECLINE, "rated" if rated else "casual"
        clock = challenge.get("days_per_turn")
        if self.clocks is not None and clock not in self.clocks:
            return Verdict.DECLINE, f"a clock of {clock} days per turn" if clock else "no clock"
        if (count := running()) >= self.max_games:
            return Verdict.WAIT, f"already {count} games at once"
        return Verdict.ACCEPT, "fits the policy"


def parse_clocks(text: str) -> frozenset[int | None] | None:
    """``"none,1,3"`` → the clocks a policy takes; ``"any"`` → None (every clock)."""
    if text.strip().lower() == "any":
        return None
    clocks: set[int | None] = set()
    for part in text.split(","):
        word = part.strip().lower()
        if word == "none":
            clocks.add(None)
        elif word.isdigit() and int(word) > 0:
            clocks.add(int(word))
        else:
            raise ValueError(f'a clock is "none" or a number of days per turn, not {part!r}')
    return frozenset(clocks)
