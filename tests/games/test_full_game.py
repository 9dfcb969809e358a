"""Two people play a whole game through the API alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.api_plays import hidden_ids, leaked

ROOT = Path(__file__).resolve().parents[2]


def _start(api):
    game_id = api["alice"].post("/api/games/", {"opponent": "bob"}, format="json").json()["id"]
    assert api["bob"].post(f"/api/games/{game_id}/accept/").status_code == 200
    return game_id


def test_a_whole_game_through_the_api_never_shows_a_hidden_card_and_replays_to_its_score(api, tmp_path):
    game_id = _start(api)
    seats = {"a": "alice", "b": "bob"}
    plays = 0
    while True:
        views = {name: api[name].get(f"/api/games/{game_id}/").json() for name in ("alice", "bob", "charlie")}
        if views["alice"]["status"] == "finished":
            break
        for name, seat in (("alice", "a"), ("bob", "b"), ("charlie", None)):
            secret = hidden_ids(game_id, seat)
            assert not leaked(views[name], secret), f"{name} sees hidden cards"
            events = api[name].get(f"/api/games/{game_id}/events/?limit=500").json()
            assert not leaked(events, secret), f"{name}'s events show hidden cards"
            if seat is not None:
                own = {c["id"] for c in views[name]["hand"]}
                assert not own & secret
        mover = seats[views["alice"]["to_move"]]
        view = views[mover]
        play = view["legal_plays"][plays % len(view["legal_plays"])]
        response = api[mover].post(
            f"/api/games/{game_id}/plays/", {**play, "expected_version": view["version"]}, format="json"
        )
        assert response.status_code == 201, response.json()
        plays += 1

    record = api["alice"].get(f"/api/games/{game_id}/record/")
    assert record.status_code == 200
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.json()))
    replayed = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stdout
    final = json.loads(replayed.stdout)
    assert final["over"] is True
    assert final["scores"] == views["alice"]["result"]["scores"]
    assert plays == final["turn"]
