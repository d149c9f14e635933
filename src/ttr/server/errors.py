"""The one error type the API raises (an HTTP status, a stable code and a human reason) and its JSON body."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


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


# ---------------------------------------------------------------------- in the OpenAPI description
ERROR_DESCRIPTIONS = {
    400: "Not well formed: `malformed_json` (with the reason), `malformed`, `bad_parameter`, `unknown_edition`",
    401: "No token, or not a token of this game: `token_required`, `bad_token`",
    403: "The token may not do this: `not_your_seat`, `spectator`, `private_game`; `csrf_failed`: a change sent with "
    "the session cookie but without its X-CSRF-Token, or from another origin (any POST)",
    404: "`unknown_game`, `unknown_edition`, `not_found`",
    409: "The game is not in a state that allows it: `not_your_turn`, `state_changed`, `game_over`, ...",
    413: "`too_large`: the body is over the size limit",
    422: "Well formed but not allowed: `invalid_request` (schema), `bad_options`, `bad_seats`, `bad_map`, engine reasons, ...",
    429: "Over a limit (`rate_limited`, `too_many_games`); `Retry-After` says when to try again",
    503: "`unavailable`: the database cannot be used now (disk full, restarting); nothing changed; see `Retry-After`",
}
# any operation: an unreadable or oversized body, a parameter of the wrong type, a refused CSRF check (a POST sent
# with the session cookie), a rate limit, an outage
COMMON_ERRORS = (400, 403, 413, 422, 429, 503)


class ErrorDetail(BaseModel):
    code: str = Field(..., description="stable machine-readable reason (docs/api.md lists them)")
    message: str = Field(..., description="human reason")


class ErrorBody(BaseModel):
    """Every refusal: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, each with the ErrorBody model (docs/api.md lists the codes)."""
    return {status: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[status]} for status in statuses}
