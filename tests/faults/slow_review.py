"""Makes the computer's review as long as the test wants: each review waits, once started,
until the test lets it go, then reviews the game as usual. A reviews worker gets it with
``-I tests.faults.slow_review`` and the folder in REVIEW_HOLD; each review writes a line to
its files there (tests.faults.held_task's ``started`` and ``done``), so a test can tell a review
that runs from one that waits in the queue or has finished."""

from __future__ import annotations

import os
import time
from pathlib import Path

from games import reviews
from tests.faults.held_task import DONE, RELEASE, STARTED

_review = reviews.game_review_build_by_id


def _held_review(*, game_id: str) -> bool:
    here = Path(os.environ["REVIEW_HOLD"])
    with (here / STARTED).open("a") as started:
        started.write(f"{game_id}\n")
    deadline = time.monotonic() + 120  # a test that never lets go still ends
    while not (here / RELEASE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    reviewed = _review(game_id=game_id)
    with (here / DONE).open("a") as done:
        done.write(f"{game_id}\n")
    return reviewed


# games.tasks.review_game calls it through the module: the task itself is the real one.
reviews.game_review_build_by_id = _held_review
