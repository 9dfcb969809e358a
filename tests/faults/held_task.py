"""A task for the fault tests that holds its worker until the test lets it go, so the test can
do something to the broker while the worker has the message and has not acknowledged it (the
site acknowledges late). Each run writes a line to files in the folder it is given, so a test
can count how often it started and finished. A worker gets it with ``-I tests.faults.held_task``."""

from __future__ import annotations

import time
from pathlib import Path

from dragonheart_site.celery import app

NAME = "tests.faults.held_task.hold"
RELEASE, STARTED, DONE = "release", "started", "done"


@app.task(name=NAME, ignore_result=True)
def hold(folder: str) -> None:
    here = Path(folder)
    with (here / STARTED).open("a") as started:
        started.write("started\n")
    deadline = time.monotonic() + 120  # a test that never lets go still ends
    while not (here / RELEASE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    with (here / DONE).open("a") as done:
        done.write("done\n")


def lines(folder: Path, name: str) -> int:
    path = folder / name
    return len(path.read_text().splitlines()) if path.exists() else 0
