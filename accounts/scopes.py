"""What a personal API token may do: its scopes.

``read`` is every GET (both streams included), ``play`` the moves of a game the account sits in
(plays, resign, accept, decline, its notes, muting), ``challenge`` making, cancelling and
rematching challenges. A view names the scope its writes need (``token_scope``); a write that
names none (account settings, push subscriptions, tokens, turning into a bot) needs a token
with every scope. accounts.permissions enforces it.
"""

from __future__ import annotations

from core.errors import InvalidRequest

READ = "read"
PLAY = "play"
CHALLENGE = "challenge"
SCOPES = (READ, PLAY, CHALLENGE)  # the order they are stored and shown in


def all_scopes() -> list[str]:
    """A new token's scopes when none are asked for, and those of the tokens made before
    scopes existed (the model's default, so the migration's too)."""
    return list(SCOPES)


def scopes_parse(value: object) -> list[str]:
    """The scopes a client asked for, in their canonical order (an absent ``scopes`` is
    ``all_scopes()``, the caller's to tell). Anything but a non-empty list of distinct known
    scopes is refused with 400 ``invalid_scopes``, never guessed at: null included."""
    if not isinstance(value, list) or not value:
        raise _invalid("scopes must be a non-empty list")
    if not all(isinstance(scope, str) for scope in value):
        raise _invalid("every scope is a string")
    unknown = sorted(set(value) - set(SCOPES))
    if unknown:
        raise _invalid(f"unknown scope {', '.join(repr(s) for s in unknown)}")
    if len(set(value)) != len(value):
        raise _invalid("a scope is named twice")
    return [scope for scope in SCOPES if scope in value]


def _invalid(reason: str) -> InvalidRequest:
    known = ", ".join(SCOPES)
    return InvalidRequest("invalid_scopes", f"scopes: {reason}; give distinct scopes among {known}.")
