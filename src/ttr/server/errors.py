"""The one error type the API raises: an HTTP status, a stable code and a human reason."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def unknown_game(game_id: str) -> ApiError:
    return ApiError(404, "unknown_game", f"no game with id {game_id!r}")
