"""Server time of the game page and the history page for a long game.

    .venv/bin/python -m benchmarks.pages [--database-url URL] [--requests 200]

Plays one game to about 200 events through the services on a scratch database (SQLite in a
temporary directory unless --database-url is given), then times Django's handling of the
pages in-process (no network, no browser) and prints p50 and p95.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.stack import play_first_legal

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", default="")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="dragonheart-bench-")
    os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{scratch}/bench.sqlite3"
    os.environ.update(
        DEBUG="0", SECRET_KEY="bench-" + "x" * 60, ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="0"
    )
    os.environ["DJANGO_SETTINGS_MODULE"] = "dragonheart_site.settings"
    sys.path.insert(0, str(ROOT))
    import warnings

    warnings.filterwarnings("ignore", message="No directory at")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from accounts import services as accounts
    from games import challenges
    from games.models import Game

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # production static storage
    suffix = str(int(time.time()))
    alice = accounts.user_create(
        email_confirmed=True, username=f"alice{suffix}", password="bench-dragon-heart-42"
    )
    bob = accounts.user_create(
        email_confirmed=True, username=f"bob{suffix}", password="bench-dragon-heart-42"
    )
    game = None
    while game is None or game.status == Game.Status.FINISHED:
        game = challenges.game_create(creator=alice, opponent=bob.username)
        challenges.game_accept(game=game, user=bob)
        game.refresh_from_db()
        while game.version < args.events and game.status == Game.Status.ACTIVE:
            play_first_legal(game, {"a": alice, "b": bob})
    client = Client()
    client.force_login(alice)
    engine = os.environ["DATABASE_URL"].split(":")[0]
    print(f"game of {game.version} events ({engine}), {args.requests} requests each")
    for label, url in (("game page", f"/games/{game.pk}/"), ("history page", f"/games/{game.pk}/history/")):
        for _ in range(10):
            client.get(url)
        times = []
        for _ in range(args.requests):
            began = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - began)
            assert response.status_code == 200
        times.sort()
        p95 = times[int(0.95 * len(times))]
        print(f"{label:<13} p50 {1000 * statistics.median(times):6.1f} ms   p95 {1000 * p95:6.1f} ms")


if __name__ == "__main__":
    main()
