"""What the game services refuse, by kind; the API turns each kind into its HTTP status."""

from __future__ import annotations


class GameError(Exception):
    kind = "invalid"  # invalid | forbidden | not_found | conflict

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class InvalidRequest(GameError):
    kind = "invalid"


class Forbidden(GameError):
    kind = "forbidden"


class NotFound(GameError):
    kind = "not_found"


class Conflict(GameError):
    kind = "conflict"


class StaleVersion(Conflict):
    def __init__(self, expected: int, actual: int | None = None) -> None:
        now = f" it is now at version {actual}" if actual is not None else " it has moved on"
        super().__init__("stale_version", f"You played on version {expected};{now}. Reload and try again.")
