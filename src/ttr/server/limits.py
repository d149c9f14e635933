"""Per-client limits: request rates (the ``limits`` library, moving windows in memory), the WebSocket
message rate, failed authentications, and a guard on slow or oversized request headers.

A client is its IP address (an IPv6 address counts as its /64 network, which one machine usually has
whole). Every rate is counted per process: with several processes on one PostgreSQL a client may get
up to N times the rate (docs/api.md says so).

- ``RateLimitMiddleware`` (ASGI) refuses an HTTP request over its client's rate with ``429
  rate_limited`` and ``Retry-After``; counts every ``401`` answer as a failed authentication, and once
  a client has too many refuses each request of it that carries a token (``Authorization`` or
  ``?token=``) until the window has room again — so tokens cannot be guessed at speed. WebSockets: a
  connection over the rate is refused the same way (an error message, then close code 1013 "try again
  later"); a client sending messages faster than its rate gets an error message and close code 1008.
- ``guarded_http_protocol`` is uvicorn's HTTP protocol with a deadline for the request line and headers
  (uvicorn only times out idle keep-alive connections, so a client sending a header byte now and then
  held a connection for ever) and a cap on their size.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import parse_qs

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import Settings
from .errors import ApiError

log = logging.getLogger("ttr.server")

WS_CLOSE_POLICY = 1008  # policy violation: messages too fast
WS_CLOSE_TRY_LATER = 1013  # try again later: too many connections, or refused authentications


def parse_rate(text: str, what: str = "rate") -> list[RateLimitItem]:
    """``"10/minute;60/hour"`` → limit items; ValueError naming `what` if it is not such a string."""
    try:
        items = parse_many(text)
    except Exception:
        items = []
    if not items:
        raise ValueError(f"{what}: {text!r} is not a rate such as '10/minute' or '5/second;100/hour'")
    return items


def client_key(scope: Scope) -> str:
    """The client an HTTP or WebSocket scope comes from: its IP (uvicorn applies X-Forwarded-For from trusted
    proxies before this), an IPv6 one as its /64."""
    client = scope.get("client")
    host = client[0] if client else "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return str(host)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def rate_limited(retry_after: int, what: str) -> ApiError:
    return ApiError(429, "rate_limited", f"too many {what}: try again in {retry_after} s", retry_after=retry_after)


class RateLimits:
    """The server's rates, by category, over one in-memory moving-window limiter."""

    CATEGORIES: ClassVar[tuple[str, ...]] = (
        "create",
        "join",
        "rename",
        "action",
        "ws_connect",
        "ws_message",
        "auth_failure",
        "signup",
        "login",
        "login_failure",
        "chat",
    )
    WHAT: ClassVar[dict[str, str]] = {
        "create": "games created",
        "join": "joins",
        "rename": "renames of this seat",
        "action": "actions",
        "ws_connect": "WebSocket connections",
        "ws_message": "WebSocket messages",
        "auth_failure": "failed authentications",
        "signup": "accounts created",
        "login": "login attempts",
        "login_failure": "failed logins for this name",
        "chat": "chat messages",
    }

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.enabled = settings.limits_enabled
        self.items = {c: parse_rate(getattr(settings, f"rate_{c}"), f"rate_{c}") for c in self.CATEGORIES}
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.clock = clock

    def retry_after(self, category: str, key: str) -> int:
        """Seconds until `key` may do `category` once more (at least 1)."""
        wait = 1.0
        for item in self.items[category]:
            stats = self.limiter.get_window_stats(item, category, key)
            if stats.remaining <= 0:
                wait = max(wait, stats.reset_time - self.clock())
        return max(1, math.ceil(wait))

    def allowed(self, category: str, key: str) -> bool:
        """Whether one more `category` by `key` fits, without counting it."""
        return not self.enabled or all(self.limiter.test(item, category, key) for item in self.items[category])

    def hit(self, category: str, key: str) -> int | None:
        """Count one `category` by `key`: None if it fits, else the seconds to wait (and nothing is counted)."""
        if not self.enabled:
            return None
        items = self.items[category]
        if not all(self.limiter.test(item, category, key) for item in items):
            return self.retry_after(category, key)
        for item in items:
            self.limiter.hit(item, category, key)
        return None

    def check(self, category: str, key: str) -> None:
        """`hit`, raising ``429 rate_limited`` when over."""
        wait = self.hit(category, key)
        if wait is not None:
            raise rate_limited(wait, self.WHAT[category])

    def clear(self, category: str, key: str) -> None:
        """Forget what `key` did in `category` (a successful login clears its name's failures)."""
        if self.enabled:
            for item in self.items[category]:
                self.limiter.clear(item, category, key)

    def fail_auth(self, key: str) -> None:
        if self.enabled:
            for item in self.items["auth_failure"]:
                self.limiter.hit(item, "auth_failure", key)


def _json_error(err: ApiError) -> bytes:
    return json.dumps(err.body(), separators=(",", ":")).encode()


def _classify(method: str, path: str) -> str | None:
    """The rate category of an HTTP request, None if it has none."""
    if method == "POST" and path.rstrip("/") == "/api/maps":
        return "join"  # checking a map file costs about what a join does
    if method != "POST" or not path.startswith("/api/games"):
        return None
    if path.rstrip("/") == "/api/games":
        return "create"
    if path.endswith("/join"):
        return "join"
    if path.endswith("/actions") or path.endswith("/undo") or path.endswith("/return"):
        return "action"
    return None


def _has_token(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value.strip():
            return True
    query = scope.get("query_string", b"")
    return bool(query) and bool(parse_qs(query.decode("latin-1")).get("token"))


class RateLimitMiddleware:
    """Rates per client on creating, joining, acting, WebSocket connections and messages, and failed authentications."""

    def __init__(self, app: ASGIApp, limits: RateLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.limits.enabled or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        key = client_key(scope)
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send, key)
            return
        refusal = None
        if _has_token(scope) and not self.limits.allowed("auth_failure", key):
            refusal = rate_limited(self.limits.retry_after("auth_failure", key), "failed authentications")
        elif (category := _classify(scope["method"], scope["path"])) is not None:
            wait = self.limits.hit(category, key)
            if wait is not None:
                refusal = rate_limited(wait, RateLimits.WHAT[category])
        if refusal is not None:
            await self._refuse_http(send, refusal)
            return

        async def observed(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                self.limits.fail_auth(key)
            await send(message)

        await self.app(scope, receive, observed)

    async def _refuse_http(self, send: Send, err: ApiError) -> None:
        body = _json_error(err)
        retry = str(err.retry_after or 1).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", retry),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _websocket(self, scope: Scope, receive: Receive, send: Send, key: str) -> None:
        limits = self.limits
        refusal = None
        if _has_token(scope) and not limits.allowed("auth_failure", key):
            refusal = rate_limited(limits.retry_after("auth_failure", key), "failed authentications")
        elif (wait := limits.hit("ws_connect", key)) is not None:
            refusal = rate_limited(wait, "WebSocket connections")
        if refusal is not None:
            message = await receive()  # websocket.connect
            if message["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": _ws_error(refusal)})
            await send({"type": "websocket.close", "code": WS_CLOSE_TRY_LATER, "reason": "rate limited"})
            return
        closed = False

        async def guarded_send(message: Message) -> None:
            nonlocal closed
            if closed:
                return  # we closed it for flooding: whatever the app still sends is dropped
            if message["type"] == "websocket.close":
                if message.get("code") == 4401:
                    limits.fail_auth(key)
                closed = True
            await send(message)

        async def limited_receive() -> Message:
            nonlocal closed
            message = await receive()
            if message["type"] == "websocket.receive" and not closed:
                wait = limits.hit("ws_message", key)
                if wait is not None:
                    closed = True
                    err = rate_limited(wait, "WebSocket messages")
                    await send({"type": "websocket.send", "text": _ws_error(err)})
                    await send({"type": "websocket.close", "code": WS_CLOSE_POLICY, "reason": "rate limited"})
                    return {"type": "websocket.disconnect", "code": WS_CLOSE_POLICY}
            return message

        await self.app(scope, limited_receive, guarded_send)


def _ws_error(err: ApiError) -> str:
    body = err.body()["error"]
    body["retry_after"] = err.retry_after or 1
    return json.dumps({"type": "error", "error": body}, separators=(",", ":"))


# ---------------------------------------------------------------------- slow and oversized headers
def guarded_http_protocol(header_timeout: float, max_header_bytes: int) -> type:
    """uvicorn's HTTP protocol class (httptools when installed, else h11) with a deadline for each request's line
    and headers, counted from the connection or from the first byte of the next request on a kept-alive
    connection, and a cap on their size. Over the deadline: ``408`` and the connection is closed; over the size:
    ``431``. Between requests uvicorn's own ``timeout_keep_alive`` applies."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    except ImportError:  # pragma: no cover - uvicorn[standard] brings httptools
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base  # type: ignore[assignment]

    class GuardedHttp(Base):  # type: ignore[misc, valid-type]
        _ttr_timer: Any = None
        _ttr_waiting = False
        _ttr_bytes = 0

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._ttr_expect_request()

        def _ttr_expect_request(self) -> None:
            self._ttr_waiting = True
            self._ttr_bytes = 0
            self._ttr_cancel()
            self._ttr_timer = self.loop.call_later(header_timeout, self._ttr_too_slow)

        def _ttr_cancel(self) -> None:
            if self._ttr_timer is not None:
                self._ttr_timer.cancel()
                self._ttr_timer = None

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            if not self._ttr_waiting and (cycle is None or cycle.response_complete):
                self._ttr_expect_request()  # the first bytes of the next request on a kept-alive connection
            super().data_received(data)
            if not self._ttr_waiting:
                return
            if self.cycle is not cycle or self.transport.get_protocol() is not self or self.transport.is_closing():
                self._ttr_waiting = False  # the headers are in (or the connection became a WebSocket, or closed)
                self._ttr_cancel()
                return
            self._ttr_bytes += len(data)
            if self._ttr_bytes > max_header_bytes:
                self._ttr_refuse(431, "request_headers_too_large", f"request line and headers over {max_header_bytes} bytes")

        def _ttr_too_slow(self) -> None:
            self._ttr_timer = None
            if self._ttr_waiting and not self.transport.is_closing() and self.transport.get_protocol() is self:
                self._ttr_refuse(408, "request_timeout", f"the request headers did not arrive within {header_timeout:g} s")

        def _ttr_refuse(self, status: int, code: str, message: str) -> None:
            self._ttr_waiting = False
            self._ttr_cancel()
            body = json.dumps({"error": {"code": code, "message": message}}).encode()
            reason = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}[status]
            head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % (
                status,
                reason,
                len(body),
            )
            self.transport.write(head + body)
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._ttr_cancel()
            super().connection_lost(exc)

    return GuardedHttp
