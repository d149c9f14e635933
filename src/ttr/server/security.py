"""Secrets and user text: seat tokens (random, stored only as hashes) and display names."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import unicodedata

TOKEN_BYTES = 24  # 192 bits of randomness (at least 128 are required)
GAME_ID_BYTES = 9  # 72 bits: game ids are public, they only need to be unguessable enough to not collide
NAME_MAX = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_game_id() -> str:
    return secrets.token_urlsafe(GAME_ID_BYTES)


def hash_token(token: str) -> str:
    """What the database keeps: a leaked database gives no usable token (tokens are long random strings, so sha256 suffices)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_name(raw: object, limit: int = NAME_MAX) -> str:
    """A display name: control and format characters removed, whitespace collapsed, 1-`limit` characters.

    Raises ValueError with the reason. The result is plain text: clients must still escape it when rendering.
    """
    if not isinstance(raw, str):
        raise ValueError("the name must be a string")
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in raw
        if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn") or ch.isspace()
    )
    name = " ".join(kept.split())
    if not name:
        raise ValueError("the name is empty (after removing control characters)")
    if len(name) > limit:
        raise ValueError(f"the name is longer than {limit} characters")
    return name


_TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    """Blank out ``token=...`` in log lines: join links and WebSocket URLs carry seat tokens in their query string,
    and a token in a log file is a seat anyone reading the log can take."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "token=" in record.msg:
            record.msg = _TOKEN_IN_URL.sub(r"\1***", record.msg)
        if record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            if any(isinstance(a, str) and "token=" in a for a in args):
                record.args = tuple(_TOKEN_IN_URL.sub(r"\1***", a) if isinstance(a, str) else a for a in args)
        return True


def redact_tokens_in_logs(*names: str) -> None:
    for name in names or ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
