"""The one error type the API raises: an HTTP status, a stable code and a human reason."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after  # seconds: sent as Retry-After (429, 503)

    @property
    def headers(self) -> dict[str, str] | None:
        return {"Retry-After": str(self.retry_after)} if self.retry_after is not None else None

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def unknown_game(game_id: str) -> ApiError:
    return ApiError(404, "unknown_game", f"no game with id {game_id!r}")
