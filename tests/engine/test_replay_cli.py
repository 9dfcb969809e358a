"""``python -m engine replay`` and ``selfplay --out``, run as the command line runs them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.cards import TYPES
from engine.record import parse_record, replay_record
from tests.engine.sample_games import SWAP_PLAYS, dragon_swap_record, finished_record, record

ROOT = Path(__file__).resolve().parents[2]

STATE_KEYS = [
    "turn",
    "to_move",
    "over",
    "last_turn",
    "hands",
    "piles",
    "board",
    "hold",
    "voyages",
    "dragon",
    "captured",
    "scores",
    "winner",
]
BOARD_KEYS = [
    "chest",
    "fire_dragon",
    "stone_dragon",
    "princess",
    "troll",
    "dwarf",
    "hero",
    "huntress",
    "ship",
]


def run_engine(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def replay(*paths: Path) -> tuple[int, list[dict[str, Any]]]:
    done = run_engine("replay", *map(str, paths))
    assert done.stdout.endswith("\n") or not done.stdout
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def expected_state(doc: dict[str, Any]) -> dict[str, Any]:
    state, _, error = replay_record(parse_record(doc))
    assert error is None
    return state.to_json()


def illegal_record() -> dict[str, Any]:
    return record([*SWAP_PLAYS[:2], {"cards": ["a49"]}])


def test_a_record_replays_to_one_line_in_the_format_of_rules_4_2(tmp_path: Path) -> None:
    status, lines = replay(write_json(tmp_path / "game.json", finished_record()))
    assert status == 0
    [line] = lines
    assert list(line) == STATE_KEYS
    assert list(line["board"]) == BOARD_KEYS == list(TYPES)
    assert list(line["hands"]) == list(line["piles"]) == list(line["captured"]) == ["a", "b"]
    assert list(line["scores"]) == ["a", "b"]


def test_a_finished_game_replays_to_its_final_state(tmp_path: Path) -> None:
    doc = finished_record()
    status, [line] = replay(write_json(tmp_path / "game.json", doc))
    assert status == 0
    assert line == expected_state(doc)
    assert line["over"] is True
    assert line["to_move"] is None
    assert line["scores"] == doc["result"]["scores"]
    assert line["winner"] == doc["result"]["winner"]


def test_a_running_game_replays_to_its_current_position(tmp_path: Path) -> None:
    status, [line] = replay(write_json(tmp_path / "game.json", dragon_swap_record()))
    assert status == 0
    assert line["turn"] == 5
    assert line["to_move"] == "b"
    assert line["over"] is False
    assert line["last_turn"] is None
    assert line["winner"] is None
    assert line["dragon"] == "a"
    assert line["captured"] == {"a": ["a12"], "b": ["a11"]}
    assert line["board"]["princess"] == ["b16", "a16"]
    assert line["board"]["chest"] == ["b00"]
    assert line["piles"]["b"][0] == "b03"
    assert line["scores"] == {"a": 5, "b": 2}


def test_a_jsonl_file_prints_one_line_per_record_in_order(tmp_path: Path) -> None:
    docs = [finished_record("x"), dragon_swap_record(), finished_record("y", "bsw")]
    path = write_jsonl(tmp_path / "games.jsonl", [json.dumps(doc) for doc in docs])
    status, lines = replay(path)
    assert status == 0
    assert lines == [expected_state(doc) for doc in docs]


def test_blank_lines_of_a_jsonl_file_are_no_records(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "games.jsonl", ["", json.dumps(dragon_swap_record()), "  "])
    status, lines = replay(path)
    assert status == 0
    assert len(lines) == 1


def test_an_illegal_play_prints_an_error_line_and_exits_1(tmp_path: Path) -> None:
    status, [line] = replay(write_json(tmp_path / "game.json", illegal_record()))
    assert status == 1
    assert list(line) == ["error"]
    assert line["error"]["play"] == 2
    assert line["error"]["code"] == "card_not_in_hand"
    assert line["error"]["message"]


def test_a_result_mismatch_prints_an_error_line_and_exits_1(tmp_path: Path) -> None:
    doc = finished_record()
    doc["result"]["scores"]["a"] += 1
    status, [line] = replay(write_json(tmp_path / "game.json", doc))
    assert status == 1
    assert line["error"]["code"] == "result_mismatch"


def test_a_file_that_is_not_json_is_malformed_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text('{"format": "dragonheart-record/1", ', encoding="utf-8")
    status, [line] = replay(path)
    assert status == 2
    assert line["error"]["code"] == "malformed_record"
    assert line["error"]["play"] is None


def test_a_record_with_a_bad_deck_is_malformed_and_exits_2(tmp_path: Path) -> None:
    doc = dragon_swap_record()
    doc["decks"]["b"] = doc["decks"]["b"][:-1]
    status, [line] = replay(write_json(tmp_path / "game.json", doc))
    assert status == 2
    assert line["error"]["code"] == "malformed_record"


def test_a_mixed_file_prints_three_lines_and_exits_2(tmp_path: Path) -> None:
    good = dragon_swap_record()
    path = write_jsonl(
        tmp_path / "games.jsonl", ["{not json", json.dumps(illegal_record()), json.dumps(good)]
    )
    status, lines = replay(path)
    assert status == 2
    assert len(lines) == 3
    assert lines[0]["error"]["code"] == "malformed_record"
    assert lines[1]["error"]["code"] == "card_not_in_hand"
    assert lines[1]["error"]["play"] == 2
    assert lines[2] == expected_state(good)


def test_an_illegal_record_and_a_good_one_exit_1(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "games.jsonl", [json.dumps(dragon_swap_record()), json.dumps(illegal_record())]
    )
    status, lines = replay(path)
    assert status == 1
    assert len(lines) == 2


def test_several_files_are_replayed_in_the_order_given(tmp_path: Path) -> None:
    first = write_json(tmp_path / "first.json", illegal_record())
    second = write_json(tmp_path / "second.json", dragon_swap_record())
    status, lines = replay(first, second)
    assert status == 1
    assert lines[0]["error"]["play"] == 2
    assert lines[1] == expected_state(dragon_swap_record())


def test_a_malformed_file_among_several_makes_the_status_2(tmp_path: Path) -> None:
    good = write_json(tmp_path / "good.json", dragon_swap_record())
    bad = write_json(tmp_path / "bad.json", ["not", "a", "record"])
    status, lines = replay(bad, good)
    assert status == 2
    assert len(lines) == 2


def test_a_missing_file_is_malformed_and_exits_2(tmp_path: Path) -> None:
    status, [line] = replay(tmp_path / "nowhere.json")
    assert status == 2
    assert line["error"]["code"] == "malformed_record"


def test_a_file_that_is_not_utf8_is_malformed_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe{}")
    status, lines = replay(path)
    assert status == 2
    assert [line["error"]["code"] for line in lines] == ["malformed_record"]


def test_deeply_nested_brackets_are_malformed_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    status, lines = replay(path)
    assert status == 2
    assert [line["error"]["code"] for line in lines] == ["malformed_record"]


# --- selfplay --------------------------------------------------------------------------------

WIN_RATE = re.compile(
    r"^  seat (?P<seat>[ab]) +(?P<bot>\w+): (?P<wins>\d+) wins = (?P<rate>\d+\.\d)% "
    r"\(95% CI (?P<low>\d+\.\d)%–(?P<high>\d+\.\d)%\); "
    r"per move mean \d+\.\d{3} ms, p95 \d+\.\d{3} ms$"
)


def test_selfplay_writes_records_that_replay_with_status_0(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    done = run_engine("selfplay", "--bots", "greedy,random", "--games", "4", "--seed", "7", "--out", str(out))
    assert done.returncode == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 4
    assert [doc["first"] for doc in records] == ["a", "b", "a", "b"]
    assert all(doc["players"] == {"a": "greedy", "b": "random"} for doc in records)
    status, lines = replay(out)
    assert status == 0
    assert [line["over"] for line in lines] == [True] * 4
    assert [line["winner"] for line in lines] == [doc["result"]["winner"] for doc in records]


def test_selfplay_prints_a_win_rate_line_per_seat(tmp_path: Path) -> None:
    done = run_engine("selfplay", "--bots", "greedy,random", "--games", "6", "--seed", "7")
    lines = done.stdout.splitlines()
    assert done.returncode == 0
    assert lines[0] == "6 games, seed 7, preset official, first seat alternating"
    rates = [WIN_RATE.match(line) for line in lines[1:3]]
    assert all(rates)
    assert [(m["seat"], m["bot"]) for m in rates if m] == [("a", "greedy"), ("b", "random")]
    draws = re.fullmatch(r"  draws: (\d+)", lines[3])
    assert draws
    assert sum(int(m["wins"]) for m in rates if m) + int(draws[1]) == 6
    for m in rates:
        assert m
        assert float(m["rate"]) == round(100 * int(m["wins"]) / 6, 1)
        assert float(m["low"]) <= float(m["rate"]) <= float(m["high"])
