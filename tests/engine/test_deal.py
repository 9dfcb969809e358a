"""Deals anyone can verify (engine.deal): the commitment's encoding, ``verify`` and the
``python -m engine verify-deal`` command, run as the command line runs it."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import deal
from engine.cards import SEATS
from engine.record import parse_record, replay_document
from tests.engine.sample_games import SWAP_DECKS, finished_record
from tests.engine.test_replay_cli import run_engine, write_json, write_jsonl

SALT = bytes(range(32))


def dealt_record(seed: str = "record", salt: bytes = SALT) -> dict[str, Any]:
    """A finished game's record carrying the deal of its own decks."""
    doc = finished_record(seed)
    doc["deal"] = deal.Deal.of(doc["decks"], salt).to_json()
    return doc


def one_card_moved(doc: dict[str, Any], seat: str = "a") -> dict[str, Any]:
    """``doc`` with one card of a deck taken from its place and put on top: still a
    permutation, so still a record, but not the deck committed to."""
    altered: dict[str, Any] = json.loads(json.dumps(doc))
    deck = altered["decks"][seat]
    deck.insert(0, deck.pop(17))
    return altered


def verify_deal(*paths: Path) -> tuple[int, list[dict[str, Any]]]:
    done = run_engine("verify-deal", *map(str, paths))
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


# --- The commitment ---------------------------------------------------------------------------


def test_the_commitment_is_sha256_of_the_salt_then_the_decks_as_compact_sorted_json() -> None:
    # Built by hand, as another language would, not with json.dumps.
    body = "{" + ",".join(f'"{s}":[' + ",".join(f'"{c}"' for c in SWAP_DECKS[s]) + "]" for s in SEATS) + "}"

    expected = hashlib.sha256(SALT + body.encode("ascii")).hexdigest()

    assert deal.commitment(SWAP_DECKS, SALT) == expected
    assert deal.canonical_decks(SWAP_DECKS) == body.encode("ascii")


def test_the_keys_are_sorted_whatever_order_the_decks_come_in() -> None:
    backwards = {"b": SWAP_DECKS["b"], "a": SWAP_DECKS["a"]}

    assert deal.commitment(backwards, SALT) == deal.commitment(SWAP_DECKS, SALT)


def test_another_salt_gives_another_commitment_to_the_same_decks() -> None:
    other = bytes(31) + b"\x01"

    assert deal.commitment(SWAP_DECKS, other) != deal.commitment(SWAP_DECKS, SALT)


def test_two_cards_swapped_give_another_commitment() -> None:
    swapped = {"a": list(SWAP_DECKS["a"]), "b": SWAP_DECKS["b"]}
    swapped["a"][48], swapped["a"][49] = swapped["a"][49], swapped["a"][48]

    assert deal.commitment(swapped, SALT) != deal.commitment(SWAP_DECKS, SALT)


def test_a_salt_is_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        deal.commitment(SWAP_DECKS, bytes(16))


@pytest.mark.skipif(not (shutil.which("jq") and shutil.which("xxd")), reason="needs jq and xxd")
def test_the_shell_recipe_of_the_docs_gives_the_same_commitment(tmp_path: Path) -> None:
    path = write_json(tmp_path / "game.json", dealt_record())
    recipe = (
        '(printf %s "$(jq -r .deal.salt game.json)" | xxd -r -p; '
        "jq -cj '{a: .decks.a, b: .decks.b}' game.json) | sha256sum"
    )

    done = subprocess.run(["sh", "-c", recipe], cwd=path.parent, capture_output=True, text=True, check=True)

    assert done.stdout.split()[0] == dealt_record()["deal"]["commitment"]


# --- verify ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", ["one", "two", "three"])
def test_a_record_with_its_own_deal_verifies(seed: str) -> None:
    salt = random.Random(seed).randbytes(32)
    doc = dealt_record(seed, salt)

    result = deal.verify(doc)

    assert result.verdict == "ok"
    assert result.stated == result.computed == doc["deal"]["commitment"]


@pytest.mark.parametrize("seat", ["a", "b"])
def test_a_deck_altered_by_one_card_does_not_verify(seat: str) -> None:
    doc = one_card_moved(dealt_record(), seat)

    result = deal.verify(doc)

    assert result.verdict == "mismatch"
    assert result.stated == doc["deal"]["commitment"] != result.computed


def test_another_salt_does_not_open_the_commitment() -> None:
    doc = dealt_record()
    doc["deal"]["salt"] = "00" * 31 + "ff"

    assert deal.verify(doc).verdict == "mismatch"


def test_a_record_without_a_deal_has_nothing_to_verify() -> None:
    assert deal.verify(finished_record()).verdict == "none"


@pytest.mark.parametrize(
    "bad",
    [
        "nope",
        {"salt": "00" * 32},
        {"commitment": "00" * 32},
        {"salt": "00" * 31, "commitment": "00" * 32},
        {"salt": "AB" * 32, "commitment": "00" * 32},
        {"salt": "zz" * 32, "commitment": "00" * 32},
        {"salt": "00" * 32, "commitment": 7},
    ],
)
def test_a_deal_that_is_not_a_salt_and_a_commitment_is_malformed(bad: Any) -> None:
    doc = {**finished_record(), "deal": bad}

    line, status = deal.verify_document(doc)

    assert status == 2
    assert line["error"]["code"] == "malformed_record"


# --- The record and replay ---------------------------------------------------------------------


def test_a_record_parses_the_same_with_or_without_its_deal() -> None:
    plain = finished_record()

    assert parse_record(dealt_record()) == parse_record(plain)


def test_replay_gives_the_same_line_and_status_with_or_without_the_deal() -> None:
    assert replay_document(dealt_record()) == replay_document(finished_record())


def test_replay_ignores_even_a_malformed_deal_as_it_ignores_any_key_of_no_contract() -> None:
    doc = {**finished_record(), "deal": "nonsense"}

    assert replay_document(doc) == replay_document(finished_record())


# --- The command -------------------------------------------------------------------------------


def test_verify_deal_prints_ok_and_the_commitment_and_exits_0(tmp_path: Path) -> None:
    doc = dealt_record()

    status, lines = verify_deal(write_json(tmp_path / "game.json", doc))

    assert status == 0
    assert lines == [{"deal": "ok", "commitment": doc["deal"]["commitment"]}]


def test_verify_deal_refuses_a_deck_altered_by_one_card_with_exit_1(tmp_path: Path) -> None:
    doc = one_card_moved(dealt_record())

    status, lines = verify_deal(write_json(tmp_path / "game.json", doc))

    assert status == 1
    [line] = lines
    assert line["deal"] == "mismatch"
    assert line["commitment"] == doc["deal"]["commitment"] != line["computed"]
    assert line["computed"] == deal.commitment(doc["decks"], SALT)
    assert "commitment" in line["reason"]


def test_verify_deal_says_when_a_record_has_no_deal_and_exits_1(tmp_path: Path) -> None:
    status, lines = verify_deal(write_json(tmp_path / "game.json", finished_record()))

    assert status == 1
    assert lines[0]["deal"] == "none"


def test_verify_deal_takes_a_jsonl_file_one_line_per_record_the_worst_status_wins(tmp_path: Path) -> None:
    good, bad = dealt_record("one"), one_card_moved(dealt_record("two"))
    path = write_jsonl(tmp_path / "games.jsonl", [json.dumps(good), json.dumps(bad), json.dumps(good)])

    status, lines = verify_deal(path)

    assert status == 1
    assert [line["deal"] for line in lines] == ["ok", "mismatch", "ok"]


def test_verify_deal_exits_2_on_anything_malformed_and_goes_on(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    replaced = dealt_record()
    replaced["decks"]["a"][0] = replaced["decks"]["a"][1]  # a card twice: no permutation

    good = write_json(tmp_path / "ok.json", dealt_record())

    status, lines = verify_deal(broken, write_json(tmp_path / "replaced.json", replaced), good)

    assert status == 2
    assert [line.get("error", {}).get("code") for line in lines] == ["malformed_record"] * 2 + [None]
    assert lines[2]["deal"] == "ok"
