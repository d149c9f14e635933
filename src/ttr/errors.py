"""Typed errors. Every refusal carries a human reason; nothing is changed when one is raised.

All of them are ``ValueError``s (as python-chess's are), so ``except ValueError`` catches any bad input."""

from __future__ import annotations


class TTRError(ValueError):
    """Base class of every error ttr raises on purpose."""


class EditionError(TTRError):
    """A map/edition file is malformed: the message names the file, the entry and the problem."""


class SetupError(TTRError):
    """A game cannot be set up as asked (player count, seed). ``code`` is a stable machine-readable reason."""

    def __init__(self, reason: str, code: str = "bad_setup") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class PositionError(TTRError):
    """A saved position (``Game.from_dict``) or record is malformed or inconsistent."""


class IllegalAction(TTRError):
    """The action is well formed but not allowed now. ``code`` is a stable machine-readable reason."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class MalformedAction(IllegalAction):
    """The action is not a valid action value at all (unknown type, missing or mistyped fields)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "malformed")
