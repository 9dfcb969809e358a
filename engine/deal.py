"""Deals anyone can verify: a commitment to both shuffled decks, published when a game starts,
and the salt that opens it, published when the game ends.

The commitment is SHA-256 over a byte string anyone can rebuild from the record, in any
language::

    commitment = hex(SHA-256(salt ‖ canonical_json({"a": decks.a, "b": decks.b})))

* ``salt`` is the 32 raw bytes whose lower-case hex (64 characters) the record carries;
* ``canonical_json`` is the two decks as one JSON object, keys sorted (``a`` then ``b``), no
  whitespace at all, UTF-8 (card ids are ASCII, so ``{"a":["a17","a03",…],"b":["b40",…]}``);
  each deck lists all 50 ids, top first: the first five are the opening hand, as in the
  record's ``decks`` (RULES.md 4.1);
* ``‖`` is concatenation, salt first; ``hex`` is lower-case.

Why a salt: without one, anyone who knew all but a few cards of the decks (late in a game,
the cards still in the opponent's hand and pile) could try the remaining orders until the
hash matched. With 256 secret random bits in front, the commitment says nothing about the
order until the salt is published, and after that it can match one pair of decks only.

The record (RULES.md 4.1) may carry ``"deal": {"salt": HEX, "commitment": HEX}``. Replay
ignores it (it is no part of the replay contract); :func:`verify_document` checks it. The
commitment covers the deck orders only: the card put back on losing the dragon, the other
random outcome of a game, is drawn during play and stated in its play.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from engine.cards import SEATS, Seat
from engine.errors import MalformedRecord
from engine.record import ReplayError, parse_record

SALT_BYTES = 32
_HEX64 = re.compile(r"[0-9a-f]{64}")

Verdict = Literal["ok", "mismatch", "none"]
# Keyed by plain strings (a JSON document) or by Seat (a parsed record): a Mapping is
# invariant in its keys, so both are spelled out.
Decks = Mapping[str, Sequence[str]] | Mapping[Seat, Sequence[str]]


def canonical_decks(decks: Decks) -> bytes:
    """The decks as the commitment hashes them: sorted keys, no whitespace, UTF-8."""
    doc = {seat: list(decks[seat]) for seat in SEATS}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def commitment(decks: Decks, salt: bytes) -> str:
    """The published commitment (64 lower-case hex characters) to ``decks`` under ``salt``."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a salt is {SALT_BYTES} bytes")
    return hashlib.sha256(salt + canonical_decks(decks)).hexdigest()


class Deal(NamedTuple):
    """What a game publishes about its decks: the commitment from the start, the salt at the end."""

    salt: bytes
    commitment: str

    @classmethod
    def of(cls, decks: Decks, salt: bytes) -> Deal:
        return cls(salt, commitment(decks, salt))

    def to_json(self) -> dict[str, str]:
        return {"salt": self.salt.hex(), "commitment": self.commitment}


def parse_deal(raw: Any) -> Deal | None:
    """The ``deal`` of a record (None when it has none); raises MalformedRecord if it is not
    ``{"salt": HEX, "commitment": HEX}`` with 64 lower-case hex characters each."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise MalformedRecord("'deal' must be an object with 'salt' and 'commitment'")
    return Deal(bytes.fromhex(_hex64(raw, "salt")), _hex64(raw, "commitment"))


def _hex64(raw: dict[str, Any], name: str) -> str:
    value = raw.get(name)
    if not (isinstance(value, str) and _HEX64.fullmatch(value)):
        raise MalformedRecord(f"deal: '{name}' must be 64 lower-case hex characters")
    return value


class DealCheck(NamedTuple):
    """The verdict on one record's deal: ``ok``, ``mismatch`` (with the commitment the decks
    and salt give), or ``none`` (the record carries no deal: nothing to confirm)."""

    verdict: Verdict
    stated: str | None = None
    computed: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.verdict == "none":
            return {"deal": "none", "reason": "the record carries no deal (salt and commitment)"}
        line: dict[str, Any] = {"deal": self.verdict, "commitment": self.stated}
        if self.verdict == "mismatch":
            line["computed"] = self.computed
            line["reason"] = "the record's decks and salt do not give the commitment it states"
        return line


def check(decks: Decks, deal: Deal | None) -> DealCheck:
    """Whether ``deal`` commits to ``decks``."""
    if deal is None:
        return DealCheck("none")
    computed = commitment(decks, deal.salt)
    return DealCheck("ok" if computed == deal.commitment else "mismatch", deal.commitment, computed)


def verify(doc: Any) -> DealCheck:
    """Check a record (already JSON-decoded): its decks against its deal. Raises
    MalformedRecord if it is not a record (RULES.md 4.2) or its ``deal`` is not one."""
    record = parse_record(doc)
    return check(record.decks, parse_deal(doc.get("deal")))


def verify_document(doc: Any) -> tuple[dict[str, Any], int]:
    """One line of ``verify-deal``'s output and its exit status, as replay's: 0 the deal
    checks out, 1 it does not or there is none to check, 2 malformed."""
    try:
        result = verify(doc)
    except MalformedRecord as exc:
        return ReplayError(None, exc.code, exc.message).to_json(), 2
    return result.to_json(), 0 if result.verdict == "ok" else 1
