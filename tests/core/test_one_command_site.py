"""The README's one-command site, started as the README starts it (`manage.py migrate`, then
`manage.py runserver`) on the embedded default: SQLite, no Redis, nothing else running. The
background worker runs beside the server in its process, so a bot moves on time and a finished
game's review is written with no page open and no request made."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from games.models import GameReview
from tests.support.celery_worker import wait_for

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "dragon-heart-42"
DELAY = 1  # BOT_MOVE_DELAY_SECONDS


def _embedded_env(database: Path, **settings: str) -> dict[str, str]:
    """The environment of someone who has just followed the README: none of the site's own
    variables (no REDIS_URL, no DATABASE_URL but the test's file), whatever this test run has."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ}
    return {**keep, "DATABASE_URL": f"sqlite:///{database}", "REVIEW_ITERATIONS": "2", **settings}


def _manage(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Site:
    url: str
    process: subprocess.Popen[bytes]
    database: Path
    log: Path

    def stop(self) -> None:
        """The server and the autoreloader's child it started: the whole process group."""
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        assert wait_for(lambda: not _group_alive(self.process.pid), 10), "a process of the site lives on"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database made by the README's `manage.py migrate`, once for the module."""
    database = tmp_path_factory.mktemp("site") / "migrated.sqlite3"
    _manage("migrate", "--no-input", env=_embedded_env(database))
    return database


@pytest.fixture
def start_site(migrated: Path, tmp_path: Path) -> Iterator[Callable[..., Site]]:
    started: list[Site] = []

    def start(**settings: str) -> Site:
        database = tmp_path / "db.sqlite3"
        with sqlite3.connect(migrated) as source, sqlite3.connect(database) as copy:
            source.backup(copy)
        port, log = _free_port(), tmp_path / "runserver.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"],
                cwd=ROOT,
                env=_embedded_env(database, **settings),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, stopped whole
            )
        site = Site(f"http://127.0.0.1:{port}", process, database, log)
        started.append(site)
        assert wait_for(lambda: _answers(site.url), 60), log.read_text()
        return site

    yield start
    for site in started:
        site.stop()


def _answers(url: str) -> bool:
    try:
        return requests.get(f"{url}/api/health/", timeout=2).status_code == 200
    except requests.ConnectionError:
        return False


def _signed_up(site: Site, name: str) -> tuple[requests.Session, dict[str, str]]:
    """A browser session after the sign-up form, and the same player's API token header."""
    browser = requests.Session()
    browser.get(f"{site.url}/accounts/signup/")
    form = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    assert browser.post(f"{site.url}/accounts/signup/", _with_csrf(browser, form), allow_redirects=False).ok
    answer = requests.post(
        f"{site.url}/api/tokens/", json={"username": name, "password": PASSWORD}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    return browser, {"Authorization": f"Token {answer.json()['token']}"}


def _with_csrf(browser: requests.Session, form: dict[str, Any]) -> dict[str, Any]:
    return {**form, "csrfmiddlewaretoken": browser.cookies["csrftoken"]}


def _game(site: Site, token: dict[str, str], game_id: str) -> dict[str, Any]:
    answer = requests.get(f"{site.url}/api/games/{game_id}/", headers=token, timeout=10)
    assert answer.status_code == 200, answer.text
    game: dict[str, Any] = answer.json()
    return game


def _my_turn(site: Site, token: dict[str, str], game_id: str) -> Callable[[], bool]:
    return lambda: bool(_game(site, token, game_id)["your_turn"])


def test_a_bot_answers_a_play_made_from_the_page_with_no_request_made_meanwhile(start_site):
    site = start_site(BOT_MOVE_DELAY_SECONDS=str(DELAY))
    browser, token = _signed_up(site, "alice")
    lobby = {"against": "bot", "bot": "greedy", "preset": "official", "days_per_turn": "3"}
    created = browser.post(f"{site.url}/", _with_csrf(browser, lobby), allow_redirects=False)
    assert created.status_code == 302, created.text[:500]
    game_id = created.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    assert wait_for(_my_turn(site, token, game_id), 30)  # the bot may have opened
    before = _game(site, token, game_id)
    page = browser.get(f"{site.url}/games/{game_id}/").text
    play = before["legal_plays"][0]
    form = {
        "cards": play["cards"],
        "choice": play["choice"] or "",
        "expected_version": before["version"],
        "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1),  # type: ignore[union-attr]
    }

    played = browser.post(
        f"{site.url}/games/{game_id}/play/", _with_csrf(browser, form), allow_redirects=False
    )
    assert played.status_code == 302, played.text[:500]
    time.sleep(DELAY + 3)  # no request at all: no poll, no page, no API call

    after = _game(site, token, game_id)
    assert after["your_turn"] is True, after
    since = f"{site.url}/api/games/{game_id}/events/?after={before['version']}"
    events = requests.get(since, headers=token, timeout=10).json()["results"]
    plays = [event["seat"] for event in events if event["kind"] == "cards_played"]
    assert plays == [after["your_seat"], _other(after["your_seat"])]  # alice's play, then the bot's


def _other(seat: str) -> str:
    return "b" if seat == "a" else "a"


def test_a_finished_games_review_is_written_with_no_page_open(start_site):
    site = start_site(BOT_MOVE_DELAY_SECONDS="0")
    _browser, token = _signed_up(site, "alice")
    created = requests.post(
        f"{site.url}/api/games/", json={"opponent": "bot:greedy"}, headers=token, timeout=10
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    while (game := _game(site, token, game_id))["status"] != "finished":  # through the API alone
        if game["your_turn"]:
            play = game["legal_plays"][0]
            body = {"cards": play["cards"], "choice": play["choice"], "expected_version": game["version"]}
            requests.post(f"{site.url}/api/games/{game_id}/plays/", json=body, headers=token, timeout=10)
        else:
            time.sleep(0.05)  # the bot's worker

    # From here on, no request: the review is looked for in the database file itself.
    assert wait_for(lambda: _reviews(site.database, game_id) == 1, 60), site.log.read_text()[-3000:]


def _reviews(database: Path, game_id: str) -> int:
    with sqlite3.connect(database) as connection:
        query = f"SELECT COUNT(*) FROM {GameReview._meta.db_table} WHERE game_id = ?"
        count: int = connection.execute(query, [game_id]).fetchone()[0]
        return count


def test_no_other_command_runs_the_worker(migrated):
    threads = "import threading; print(sorted(t.name for t in threading.enumerate()))"

    shown = _manage("shell", "-c", threads, env=_embedded_env(migrated))

    assert "MainThread" in shown
    assert "celery" not in shown
    assert "Beat" not in shown
