"""The two ways input can be refused: an illegal move, or a document that is not a record."""

from __future__ import annotations


class IllegalMove(Exception):
    """A command the rules refuse. ``code`` is stable (clients switch on it); ``message`` is
    written for a player. Raising it never leaves a trace: decide does not mutate."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class MalformedRecord(Exception):
    """A document that is not a game record at all (RULES.md 4.2)."""

    def __init__(self, message: str, code: str = "malformed_record") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
