"""The bot kit: a client that plays on a Dragonheart site through its API, standard library
only (docs/bots-api.md). ``python -m engine.botkit --server URL --token TOKEN --bot greedy``,
or from Python::

    from engine import botkit

    botkit.run("https://dragonheart.example", TOKEN, choose=lambda turn: turn.legal_plays[0])
"""

from __future__ import annotations

import secrets
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType

from engine.botkit.bots import Choose, Turn, engine_bot
from engine.botkit.client import Api, Backoff
from engine.botkit.convert import ConversionError, seat_view_from_api
from engine.botkit.policy import Policy, Verdict
from engine.botkit.runner import Runner
from engine.botkit.stream import NDJSON, SSE, StreamEvent

__all__ = [
    "NDJSON",
    "SSE",
    "Api",
    "Backoff",
    "Choose",
    "ConversionError",
    "Policy",
    "Runner",
    "StreamEvent",
    "Turn",
    "Verdict",
    "engine_bot",
    "run",
    "seat_view_from_api",
]


def run(
    server: str,
    token: str,
    choose: Choose | None = None,
    *,
    bot: str = "greedy",
    policy: Policy | None = None,
    accept: str = SSE,
    seed: str | None = None,
) -> Runner:
    """Play on ``server`` as the token's account until SIGINT or SIGTERM (or the runner's
    ``stop`` from another thread): each turn with ``choose`` if given, else with the engine's
    ``bot``. ``seed`` makes the engine bot's plays repeatable; without one they are not
    foreseeable. Returns the stopped runner (its ``tally`` says what it did); raises
    StreamRefused when the server refuses the stream for good (a bad token)."""
    seed = seed if seed is not None else secrets.token_hex(16)
    runner = Runner(Api(server, token), choose or engine_bot(bot, seed), policy, accept=accept)
    # Stopped by a signal, run() has stopped the runner on its way out.
    with _sigterm_interrupts(), suppress(KeyboardInterrupt):
        runner.run()
    return runner


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops the kit as Ctrl-C does: a KeyboardInterrupt in the main thread, which
    unwinds whatever it was waiting in (a signal handler that took locks could deadlock)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
