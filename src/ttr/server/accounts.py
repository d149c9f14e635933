"""Optional accounts: sign-up, login, logout, change of password, sessions in a cookie, CSRF.

- Passwords are hashed with Argon2id (``argon2-cffi``); the database keeps only the PHC string.
- A session is a random token in the ``ttr_session`` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS);
  the database keeps its sha256. Every login or sign-up issues a *new* token and deletes the one the
  browser came with (no session fixation); a change of password ends every other session of the account.
- CSRF: a state-changing request (POST, PUT, PATCH, DELETE) that carries the session cookie must carry
  ``X-CSRF-Token`` with the session's CSRF token (``csrf_token()``, returned by login and ``GET /api/me``),
  and if it has an ``Origin`` other than ``null`` it must be this server's. ``CsrfGuard`` checks both before
  any route runs. Login and sign-up carry no session yet: they only get the Origin check.
- Logins are limited per client (``rate_login``) and failures per *name* (``rate_login_failure``, several
  windows: the lockout grows with the failures). Names that exist and names that do not are counted and
  answered alike; an unknown name is checked against a dummy hash so that it takes as long as a wrong password.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.cookies import SimpleCookie
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.types import ASGIApp, Receive, Scope, Send

from .db import Database, sessions, users
from .errors import ApiError
from .limits import RateLimits

SESSION_COOKIE = "ttr_session"
CSRF_HEADER = "x-csrf-token"
USERNAME = re.compile(r"^[A-Za-z0-9_-]{3,24}$")
PASSWORD_MIN, PASSWORD_MAX = 8, 256
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NO_SESSION_PATHS = frozenset({"/api/auth/login", "/api/auth/signup"})  # no session yet: Origin check only


def _now() -> datetime:
    return datetime.now(UTC)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session: derived from the cookie value, which a page of another site can neither read
    (HttpOnly) nor compute from this value, so nothing more needs storing."""
    return hashlib.sha256(b"ttr-csrf\0" + session_token.encode("utf-8")).hexdigest()[:43]


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str


def check_username(raw: object) -> str:
    if not isinstance(raw, str) or not USERNAME.match(raw):
        raise ApiError(422, "bad_username", "a username is 3-24 letters, digits, '_' or '-'")
    return raw


def check_password(raw: object) -> str:
    if not isinstance(raw, str) or not PASSWORD_MIN <= len(raw) <= PASSWORD_MAX:
        raise ApiError(422, "bad_password", f"a password is {PASSWORD_MIN}-{PASSWORD_MAX} characters")
    return raw


class Accounts:
    """Users and sessions in the database; every method is synchronous (called from worker threads)."""

    def __init__(
        self,
        db: Database,
        rates: RateLimits,
        *,
        time_cost: int = 2,
        memory_kib: int = 19456,
        session_days: float = 30.0,
    ) -> None:
        self.db = db
        self.rates = rates
        self.hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=1)
        self.dummy_hash = self.hasher.hash(secrets.token_urlsafe(16))  # an unknown name is checked against this
        self.session_life = timedelta(days=session_days)

    # ------------------------------------------------------------------ sessions
    def _new_session(self, conn: sa.Connection, user_id: int, old_token: str | None) -> str:
        """A fresh session token for `user_id`; the browser's previous session (if any) is deleted."""
        if old_token:
            conn.execute(sessions.delete().where(sessions.c.token_hash == _hash(old_token)))
        token = secrets.token_urlsafe(32)
        now = _now()
        conn.execute(
            sessions.insert().values(token_hash=_hash(token), user_id=user_id, created_at=now, expires_at=now + self.session_life)
        )
        return token

    def user_for(self, token: str | None) -> User | None:
        """The account of a session token, None if there is none or it expired."""
        if not token or len(token) > 100:
            return None
        with self.db.read() as conn:
            row = conn.execute(
                sa.select(users.c.id, users.c.name)
                .select_from(sessions.join(users, users.c.id == sessions.c.user_id))
                .where(sessions.c.token_hash == _hash(token), sessions.c.expires_at > _now())
            ).first()
        return User(row.id, row.name) if row else None

    def user_by_name(self, name: str) -> User | None:
        if not isinstance(name, str) or len(name) > 32:
            return None
        with self.db.read() as conn:
            row = conn.execute(sa.select(users.c.id, users.c.name).where(users.c.name_key == name.lower())).first()
        return User(row.id, row.name) if row else None

    # ------------------------------------------------------------------ sign-up, login, logout, password
    def signup(self, name: object, password: object, client: str, old_token: str | None) -> tuple[User, str]:
        username = check_username(name)
        secret = check_password(password)
        self.rates.check("signup", client)
        digest = self.hasher.hash(secret)
        with self.db.write() as conn:
            taken = conn.execute(sa.select(users.c.id).where(users.c.name_key == username.lower())).first()
            if taken:
                raise ApiError(409, "username_taken", "this username is taken: choose another")
            uid = conn.execute(
                users.insert().values(name=username, name_key=username.lower(), password_hash=digest, created_at=_now())
            ).inserted_primary_key[0]
            token = self._new_session(conn, uid, old_token)
        return User(uid, username), token

    def login(self, name: object, password: object, client: str, old_token: str | None) -> tuple[User, str]:
        """A new session, or 401 bad_credentials (the same answer for an unknown name and a wrong password)."""
        if not isinstance(name, str) or not isinstance(password, str) or len(name) > 64 or len(password) > PASSWORD_MAX:
            raise ApiError(422, "invalid_request", "give a username and a password")
        key = name.lower()
        self.rates.check("login", client)  # per client: attempts of any name
        wait = self.rates.retry_after("login_failure", key) if not self.rates.allowed("login_failure", key) else None
        if wait is not None:
            raise ApiError(429, "login_locked", f"too many failed logins for this name: try again in {wait} s", retry_after=wait)
        with self.db.read() as conn:
            row = conn.execute(sa.select(users.c.id, users.c.name, users.c.password_hash).where(users.c.name_key == key)).first()
        ok = self._verify(row.password_hash if row else self.dummy_hash, password) and row is not None
        if not ok:
            self.rates.hit("login_failure", key)
            raise ApiError(401, "bad_credentials", "wrong username or password")
        assert row is not None
        self.rates.clear("login_failure", key)
        with self.db.write() as conn:
            if self.hasher.check_needs_rehash(row.password_hash):
                conn.execute(users.update().where(users.c.id == row.id).values(password_hash=self.hasher.hash(password)))
            token = self._new_session(conn, row.id, old_token)
        return User(row.id, row.name), token

    def _verify(self, digest: str, password: str) -> bool:
        try:
            return self.hasher.verify(digest, password)
        except (VerificationError, InvalidHashError):
            return False

    def logout(self, token: str | None) -> None:
        if token:
            with self.db.write() as conn:
                conn.execute(sessions.delete().where(sessions.c.token_hash == _hash(token)))

    def change_password(self, user: User, old: object, new: object, token: str) -> str:
        """Check the old password, store the new one, end every session of the account; returns a new session."""
        secret = check_password(new)
        if not isinstance(old, str):
            raise ApiError(422, "invalid_request", "give the current password")
        key = user.name.lower()
        if not self.rates.allowed("login_failure", key):
            wait = self.rates.retry_after("login_failure", key)
            raise ApiError(429, "login_locked", f"too many failed logins for this name: try again in {wait} s", retry_after=wait)
        with self.db.read() as conn:
            digest = conn.execute(sa.select(users.c.password_hash).where(users.c.id == user.id)).scalar_one()
        if not self._verify(digest, old):
            self.rates.hit("login_failure", key)
            raise ApiError(403, "bad_credentials", "the current password is wrong")
        new_digest = self.hasher.hash(secret)
        with self.db.write() as conn:
            conn.execute(users.update().where(users.c.id == user.id).values(password_hash=new_digest))
            conn.execute(sessions.delete().where(sessions.c.user_id == user.id))
            return self._new_session(conn, user.id, None)


# ---------------------------------------------------------------------- cookies and CSRF
def session_cookie_of(headers: Any) -> str | None:
    """The session token in a request's Cookie header(s) (a list of ASGI header pairs or a mapping)."""
    raw: list[str] = []
    if isinstance(headers, list | tuple):
        raw = [v.decode("latin-1") for k, v in headers if k == b"cookie"]
    else:
        value = headers.get("cookie")
        raw = [value] if value else []
    for text in raw:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(text)
        except Exception:
            continue
        if SESSION_COOKIE in jar:
            return jar[SESSION_COOKIE].value or None
    return None


def set_session_cookie(response: Any, token: str, secure: bool, max_age: int) -> None:
    response.set_cookie(SESSION_COOKIE, token, max_age=max_age, httponly=True, samesite="lax", secure=secure, path="/")


def clear_session_cookie(response: Any, secure: bool) -> None:
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure, path="/")


def _same_origin(scope: Scope, origin: str) -> bool:
    host = ""
    for k, v in scope.get("headers", ()):
        if k == b"host":
            host = v.decode("latin-1")
            break
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    return origin.rstrip("/") == f"{scheme}://{host}"


class CsrfGuard:
    """Refuse, with ``403 csrf_failed``, a state-changing request carrying the session cookie without the session's
    ``X-CSRF-Token``, and any state-changing request with the cookie (or to login/sign-up) from another origin."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", ())
        token = session_cookie_of(headers)
        no_session = scope["path"] in NO_SESSION_PATHS
        if token or no_session:
            problem = None
            origin = next((v.decode("latin-1") for k, v in headers if k == b"origin"), None)
            if origin and origin != "null" and not _same_origin(scope, origin):
                problem = "this request comes from another site"
            elif token and not no_session:
                sent = next((v.decode("latin-1") for k, v in headers if k == CSRF_HEADER.encode()), "")
                if not hmac.compare_digest(sent.encode(), csrf_token(token).encode()):
                    problem = f"a request signed in by cookie needs the {CSRF_HEADER} header (GET /api/me gives it)"
            if problem:
                err = ApiError(403, "csrf_failed", problem)
                body = json.dumps(err.body()).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
