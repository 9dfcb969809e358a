from __future__ import annotations


def test_two_players_can_start_and_play(api):
    created = api["alice"].post("/api/games/", {"opponent": "bob"}, format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    accepted = api["bob"].post(f"/api/games/{game_id}/accept/")
    assert accepted.status_code == 200, accepted.json()
    view = accepted.json()
    mover = "alice" if view["to_move"] == "a" else "bob"
    mine = api[mover].get(f"/api/games/{game_id}/").json()
    play = mine["legal_plays"][0]
    done = api[mover].post(
        f"/api/games/{game_id}/plays/", {**play, "expected_version": mine["version"]}, format="json"
    )
    assert done.status_code == 201, done.json()
    assert done.json()["version"] > mine["version"]
