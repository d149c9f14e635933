"""The web application: HTTP API, WebSocket, static client. ``create_app(settings)`` builds it.

The API is described in docs/api.md and served as OpenAPI at /docs and /openapi.json. Every error is
``{"error": {"code", "message"}}`` with a 4xx status; a 5xx means a bug.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cards import COLOURS
from ..editions import BUILTIN, Edition, get_edition
from ..editions.model import options_json_schema
from .accounts import Accounts, CsrfGuard, User, clear_session_cookie, csrf_token, session_cookie_of, set_session_cookie
from .botpool import replay_step  # noqa: F401 - computed in the bot pool's workers; kept importable from here
from .config import Settings
from .db import Database, migrate
from .errors import COMMON_ERRORS, ApiError, error_responses, unknown_game
from .expiry import Expiry
from .hub import Hub
from .limits import RateLimitMiddleware, RateLimits, client_key
from .maps import MapLibrary, uploaded_edition
from .messages import (
    ActionBody,
    ChatBody,
    ClaimBody,
    CreateGame,
    Credentials,
    JoinBody,
    MalformedJson,
    PasswordChange,
    PingMessage,
    UndoBody,
    decode_json,
    parse_client_message,
)
from .outage import OUTAGES, unavailable
from .ratings import leaderboard, profile
from .service import SPECTATOR, Access, GameService, LiveGame, authorise, events_text
from .table import chat_for, post_chat, read_chat, rematch

log = logging.getLogger("ttr.server")
STATIC_DIR = Path(__file__).parent / "static"
API_DESCRIPTION = """Ticket to Ride game server. See docs/api.md for the whole contract (seats and tokens,
sequence numbers, WebSocket messages, undo rules). Authenticate with `Authorization: Bearer <token>`."""


# ---------------------------------------------------------------------- helpers
def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(obj, separators=(",", ":")), status_code=status, media_type="application/json", headers=headers)


def error_response(err: ApiError, headers: dict[str, str] | None = None) -> Response:
    return json_response(err.body(), err.status, {**(err.headers or {}), **(headers or {})} or None)


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_token", "use 'Authorization: Bearer <token>'")
    return token.strip()


class BodyLimit:
    """Refuse request bodies over `limit` bytes with 413, whether or not they announce their length."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await self._refuse(send)
                    return
        seen = 0
        refused = False

        async def limited() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    if not refused:
                        refused = True
                        await self._refuse(send)
                    return {"type": "http.disconnect"}  # the app stops reading; whatever it answers is dropped
            return message

        async def guarded(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, limited, guarded)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": {"code": "too_large", "message": f"request body over {self.limit} bytes"}}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


class ServerTiming:
    """Add ``Server-Timing: app;dur=<ms>`` to every response: time spent in the server, as opposed to the network
    or a busy client (``ttr loadtest`` reports both)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                dur = f"app;dur={(time.perf_counter() - start) * 1000:.2f}".encode()
                message["headers"] = [*message.get("headers", []), (b"server-timing", dur)]
            await send(message)

        await self.app(scope, receive, timed)


# ---------------------------------------------------------------------- hardening: headers, JSON bodies, errors
# What the browser may do with our pages: scripts, styles, images and connections from this server only (the
# WebSocket included: 'self' covers ws/wss on the same host), no plugins, never inside a frame.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),  # a page address never leaves in a Referer (join links carry tokens)
    (b"x-content-type-options", b"nosniff"),
]


class SecurityHeaders:
    """Add SECURITY_HEADERS to every HTTP response (a header the app set itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def _is_json(content_type: str | None) -> bool:
    """Whether FastAPI will decode this body as JSON (no content type, or application/json or */*+json)."""
    if not content_type:
        return True
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


class JsonRoute(APIRoute):
    """An API route whose JSON body goes through the server's strict decoder (messages.decode_json: depth and
    number limits) before FastAPI reads it, so that every unreadable body is ``400 malformed_json`` with the
    reason, never an exception deep inside the parser."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            if self.body_field is not None:
                try:
                    body = await request.body()
                except ClientDisconnect:  # BodyLimit cut the body off and has answered 413
                    raise ApiError(413, "too_large", "request body too large") from None
                if body and _is_json(request.headers.get("content-type")):
                    try:
                        decode_json(body)
                    except MalformedJson as exc:
                        raise ApiError(400, "malformed_json", f"the body is not valid JSON: {exc}") from None
            return await handler(request)

        return checked


def allowed_methods(app: FastAPI, scope: Scope) -> str:
    """The Allow header for a 405: the methods of every route whose path matches (Starlette names only the
    first such route's)."""
    methods: set[str] = set()
    for route in app.router.routes:
        if getattr(route, "methods", None) and route.matches(scope)[0] != Match.NONE:
            methods |= route.methods  # type: ignore[attr-defined]
    return ", ".join(sorted(methods))


def edition_summary(edition_id: str | Edition, key: str | None = None) -> dict[str, Any]:
    ed = get_edition(edition_id) if isinstance(edition_id, str) else edition_id
    rules = ed.raw["rules"]
    return {"id": key or ed.id, "name": ed.name, "players": list(ed.rules.players), "notes": list(ed.notes), "options": rules}


@functools.cache
def builtin_map_body(edition_id: str) -> tuple[bytes, str]:
    """A built-in map as sent (with its precomputed board layouts, static/layouts/<id>.json, made by
    tools/board_layouts.py) and its ETag. Built once per process: the built-in maps never change while it runs."""
    m = edition_map(edition_id)
    layouts = STATIC_DIR / "layouts" / f"{edition_id}.json"
    if layouts.is_file():
        m["layouts"] = json.loads(layouts.read_text())
    body = json.dumps(m, separators=(",", ":")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@functools.cache
def preloading_page(entry: str) -> str:
    """index.html with a `<link rel="modulepreload">` for every module `entry` (static/js) imports, directly or
    not: the browser fetches them all at once instead of discovering them import by import (three round trips
    deep for the game page: main.js, game.js, board.js, geometry.js)."""
    js = STATIC_DIR / "js"
    seen: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop(0)
        if name in seen or not (js / name).is_file():
            continue
        seen.append(name)
        todo += re.findall(r'^import [^;]*? from "\./([\w.-]+\.js)";', (js / name).read_text(), re.M)
    links = "".join(f'\n  <link rel="modulepreload" href="/static/js/{name}">' for name in seen)
    html = (STATIC_DIR / "index.html").read_text()
    tag = '<script type="module" src="/static/js/main.js"></script>'
    return html.replace(tag, tag + links, 1)


def edition_map(edition_id: str | Edition) -> dict[str, Any]:
    ed = get_edition(edition_id) if isinstance(edition_id, str) else edition_id
    cities = [
        {"id": ed.city_ids[c], "name": ed.city_names[c], "lat": ed.lat[c], "lon": ed.lon[c], "area": ed.city_area[c]}
        for c in range(ed.ncities)
    ]
    routes = [
        {
            "id": r.id,
            "a": ed.city_ids[r.a],
            "b": ed.city_ids[r.b],
            "length": r.length,
            "color": COLOURS[r.colour] if r.colour >= 0 else "gray",
            "tunnel": r.tunnel,
            "ferry": r.ferry,
            "group": r.group if r.group >= 0 else None,
            "points": r.points,
            "substitute": r.substitute,
        }
        for r in ed.routes
    ]
    tickets = [{"id": t.id, "a": t.a, "b": t.b, "points": t.points, "deck": t.deck} for t in ed.tickets]
    merch = {ed.city_ids[c]: list(stack) for c, stack in enumerate(ed.merchandise) if stack}
    return {
        "id": ed.id,
        "name": ed.name,
        "credit": ed.credit,
        "cities": cities,
        "routes": routes,
        "tickets": tickets,
        "merchandise": merch,
        "rules": ed.raw["rules"],
    }


# ---------------------------------------------------------------------- the app
def create_app(settings: Settings) -> FastAPI:
    db = Database(settings.database_url, wal_limit_bytes=settings.wal_limit_bytes)
    rates = RateLimits(settings)
    on = settings.limits_enabled
    service = GameService(
        db,
        bot_lease_seconds=settings.bot_lease_seconds,
        rate_check=rates.check if on else None,
        max_games_per_client=settings.max_games_per_client if on else 0,
        max_bot_games=settings.max_bot_games if on else 0,
        max_finished_cached=settings.cached_ended_games,
        maps=MapLibrary(settings.maps_dir),
        position_every=settings.position_every,
    )
    accounts = Accounts(
        db, rates, time_cost=settings.argon2_time_cost, memory_kib=settings.argon2_memory_kib, session_days=settings.session_days
    )
    hub = Hub(service, settings)
    expiry = Expiry(service, hub, settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(migrate, db)
        await hub.start()
        expiry.start()
        try:
            yield
        finally:
            await expiry.stop()
            await hub.stop()
            db.dispose()

    app = FastAPI(
        title="ttr game server",
        version="1",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served below from the package's own copy of Swagger UI, not from a CDN
        redoc_url=None,
        responses=error_responses(*COMMON_ERRORS),
    )
    app.router.route_class = JsonRoute
    app.state.service = service
    app.state.hub = hub
    app.state.settings = settings
    app.state.expiry = expiry
    app.state.accounts = accounts
    app.add_middleware(CsrfGuard)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(RateLimitMiddleware, limits=rates)
    app.add_middleware(ServerTiming)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> Response:
        return error_response(exc)

    async def _outage(_request: Request, exc: Exception) -> Response:  # reads outside hub.call (lists, replays)
        return error_response(unavailable(exc))

    for outage in OUTAGES:
        app.add_exception_handler(outage, _outage)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(ApiError(400, "malformed_json", "the body is not valid JSON"))
        parts = []
        for e in errors[:5]:
            where = ".".join(str(x)[:40] for x in e.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
        return error_response(ApiError(422, "invalid_request", "; ".join(parts)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = {400: "malformed_json", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = allowed_methods(app, request.scope)
        return error_response(ApiError(exc.status_code, code, str(exc.detail)), headers)

    call = hub.call

    async def live_game(game_id: str) -> LiveGame:
        return await call(service.get, game_id)

    # ------------------------------------------------------------------ accounts
    session_age = int(settings.session_days * 86400)

    async def signed_in(request: Request) -> User | None:
        token = session_cookie_of(request.headers)
        return await call(accounts.user_for, token) if token else None

    async def require_user(request: Request) -> User:
        user = await signed_in(request)
        if user is None:
            raise ApiError(401, "sign_in_required", "sign in first (POST /api/auth/login)")
        return user

    def with_session(user: User, token: str, request: Request, status: int = 200) -> Response:
        res = json_response({"user": {"name": user.name}, "csrf_token": csrf_token(token)}, status)
        set_session_cookie(res, token, request.url.scheme == "https", session_age)
        return res

    @app.post(
        "/api/auth/signup",
        tags=["accounts"],
        status_code=201,
        summary="Create an account and sign in (sets the session cookie)",
        responses=error_responses(403, 409),
    )
    async def signup(body: Credentials, request: Request) -> Response:
        user, token = await call(
            accounts.signup, body.name, body.password, client_key(request.scope), session_cookie_of(request.headers)
        )
        return with_session(user, token, request, 201)

    @app.post(
        "/api/auth/login",
        tags=["accounts"],
        summary="Sign in: a new session cookie (401 bad_credentials for a wrong name or password alike)",
        responses=error_responses(401, 403),
    )
    async def login(body: Credentials, request: Request) -> Response:
        user, token = await call(
            accounts.login, body.name, body.password, client_key(request.scope), session_cookie_of(request.headers)
        )
        return with_session(user, token, request)

    @app.post("/api/auth/logout", tags=["accounts"], summary="Sign out (ends this session)", responses=error_responses(403))
    async def logout(request: Request) -> Response:
        await call(accounts.logout, session_cookie_of(request.headers))
        res = json_response({"user": None})
        clear_session_cookie(res, request.url.scheme == "https")
        return res

    @app.post(
        "/api/auth/password",
        tags=["accounts"],
        summary="Change the password: every session of the account ends, this browser gets a new one",
        responses=error_responses(401, 403),
    )
    async def change_password(body: PasswordChange, request: Request) -> Response:
        user = await require_user(request)
        token = await call(
            accounts.change_password, user, body.old_password, body.new_password, session_cookie_of(request.headers)
        )
        return with_session(user, token, request)

    @app.get("/api/me", tags=["accounts"], summary="Who is signed in, and the CSRF token to send with changes")
    async def me(request: Request) -> Response:
        token = session_cookie_of(request.headers)
        user = await call(accounts.user_for, token) if token else None
        if user is None or token is None:
            return json_response({"user": None, "csrf_token": None})
        return json_response({"user": {"name": user.name}, "csrf_token": csrf_token(token)})

    @app.get(
        "/api/me/games",
        tags=["accounts"],
        summary="My games (seats bound to my account), with whose turn it is",
        responses=error_responses(401),
    )
    async def my_games(request: Request) -> Response:
        user = await require_user(request)
        return json_response(await call(service.my_games, user))

    @app.post(
        "/api/me/claim",
        tags=["accounts"],
        summary="Bind the seat a guest token controls to my account",
        responses=error_responses(401, 403, 404, 409),
    )
    async def claim(body: ClaimBody, request: Request) -> Response:
        user = await require_user(request)
        live, out = await call(service.claim, body.game_id, body.token, user)
        hub.announce(live)
        return json_response(out)

    @app.post(
        "/api/me/games/{game_id}/resume",
        tags=["accounts"],
        summary="A fresh token for my seat in a game (its old link stops working)",
        responses=error_responses(401, 403, 404),
    )
    async def resume(game_id: str, request: Request) -> Response:
        user = await require_user(request)
        live, out = await call(service.resume, game_id, user)
        hub.announce(live)
        return json_response(out)

    # ------------------------------------------------------------------ ratings and profiles
    @app.get(
        "/api/leaderboard",
        tags=["ratings"],
        summary="The best rated players of an edition, per player-count class (2p, 3-4p, 5p+)",
        responses=error_responses(404),
    )
    async def get_leaderboard(
        edition: Annotated[str, Query(max_length=64)] = "usa",
        players: Annotated[Literal["2p", "3-4p", "5p+"] | None, Query(description="one class only")] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
    ) -> Response:
        if edition not in BUILTIN:
            raise ApiError(404, "unknown_edition", f"unknown edition {edition!r} (known: {', '.join(BUILTIN)})")
        return json_response(await asyncio.to_thread(leaderboard, db, edition, players, limit))

    @app.get(
        "/api/players/{name}",
        tags=["ratings"],
        summary="A player's profile: ratings, rating history, games and statistics per edition",
        responses=error_responses(404),
    )
    async def player_profile(name: str) -> Response:
        user = await call(accounts.user_by_name, name)
        if user is None:
            raise ApiError(404, "unknown_player", f"no player named {name[:40]!r}")
        return json_response(await asyncio.to_thread(profile, db, user.id, user.name))

    @app.get(
        "/api/bot-ratings",
        tags=["ratings"],
        summary="The bots' ratings from the calibration ladder (ttr calibrate), on the players' scale",
    )
    async def bot_ratings() -> Response:
        from ..sim.calibrate import load_shipped

        return json_response(await asyncio.to_thread(load_shipped))

    @app.get(
        "/api/levels",
        tags=["ratings"],
        summary="The bot levels a seat can have, weakest first: each one's bot and a line on its style",
    )
    async def bot_levels() -> Response:
        from ..bots import level_list

        return json_response({"levels": level_list()})

    # ------------------------------------------------------------------ editions
    @app.get("/api/editions", tags=["editions"], summary="The editions (maps) and their rule options")
    async def list_editions() -> Response:
        custom = [edition_summary(ed, key) for key, ed in service.maps.maps.items()]
        return json_response([edition_summary(e) for e in BUILTIN] + custom)

    @app.get(
        "/api/editions/{edition_id}/map",
        tags=["editions"],
        summary="Cities, routes, tickets and rules of a map",
        responses=error_responses(404),
    )
    async def get_map(edition_id: str, if_none_match: Annotated[str | None, Header()] = None) -> Response:
        if edition_id in service.maps.maps:
            return json_response(edition_map(service.maps.maps[edition_id]))
        if edition_id not in BUILTIN:
            known = ", ".join(service.maps.ids())
            raise ApiError(404, "unknown_edition", f"unknown edition {edition_id[:80]!r} (known: {known})")
        body, etag = builtin_map_body(edition_id)
        headers = {"ETag": etag, "Cache-Control": "no-cache"}  # kept by the browser, asked again with If-None-Match
        if if_none_match and etag in [x.strip() for x in if_none_match.split(",")]:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    @app.get(
        "/api/editions/{edition_id}/file",
        tags=["editions"],
        summary="The map file of a built-in or --maps edition, as JSON (what the map editor starts from)",
        responses=error_responses(404),
    )
    async def get_map_file(edition_id: str) -> Response:
        if edition_id in service.maps.maps:
            return json_response(service.maps.maps[edition_id].raw)
        if edition_id not in BUILTIN:
            known = ", ".join(service.maps.ids())
            raise ApiError(404, "unknown_edition", f"unknown edition {edition_id[:80]!r} (known: {known})")
        return json_response(get_edition(edition_id).raw)

    @app.get("/api/rule-options", tags=["editions"], summary="JSON Schema of the rule options: each type and range")
    async def rule_options() -> Response:
        return json_response(options_json_schema())

    @app.post(
        "/api/maps",
        tags=["editions"],
        summary="Check a custom map file (its JSON as the body) and preview it: its lobby id, summary and board",
        responses=error_responses(422),
    )
    async def check_map(raw: Annotated[Any, Body()]) -> Response:
        ed = await asyncio.to_thread(uploaded_edition, raw)
        key = MapLibrary.lobby_id(ed)
        return json_response({"id": key, "edition": edition_summary(ed, key), "map": edition_map(ed)})

    @app.get(
        "/api/games/{game_id}/map",
        tags=["editions"],
        summary="The map a game is played on (a built-in edition or the custom map stored with it)",
        responses=error_responses(404),
    )
    async def get_game_map(game_id: str) -> Response:
        live = await live_game(game_id)
        return json_response(edition_map(live.game.base_edition))

    # ------------------------------------------------------------------ games
    @app.post(
        "/api/games",
        tags=["games"],
        status_code=201,
        summary="Create a game: returns each human seat's secret token and join link",
    )
    async def create_game(body: CreateGame, request: Request) -> Response:
        out = await call(
            service.create_game,
            edition=body.edition,
            players=body.players,
            options=body.options,
            seat_specs=[s.model_dump() for s in body.seats] if body.seats is not None else None,
            hotseat=body.hotseat,
            public=body.public,
            name=body.name,
            creator=client_key(request.scope) if on else None,
            custom_map=body.map,
            clock=body.clock.model_dump() if body.clock is not None else None,
            tutorial=body.tutorial,
        )
        live = await live_game(out["game_id"])
        hub.announce(live)
        return json_response(out, 201)

    @app.get("/api/games", tags=["games"], summary="Public games (open: waiting for players; active; finished)")
    async def list_games(status: Literal["open", "active", "finished"] | None = None) -> Response:
        # a read of many games: in a worker thread even with SQLite, so that a big lobby never stalls play
        return json_response(await asyncio.to_thread(service.list_games, status))  # an outage: _outage answers 503

    @app.get("/api/games/{game_id}", tags=["games"], summary="A game's public summary", responses=error_responses(404))
    async def game_summary(game_id: str) -> Response:
        return json_response((await live_game(game_id)).summary())

    @app.post(
        "/api/games/{game_id}/join",
        tags=["games"],
        summary="Take a seat with a display name (with your invitation token, or a free seat of a public game)",
        responses=error_responses(401, 403, 404, 409),
    )
    async def join(
        game_id: str, body: JoinBody, request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> Response:
        user = await signed_in(request)
        live, out = await call(service.join, game_id, bearer(authorization), body.name, body.seat, user)
        hub.announce(live)
        return json_response(out)

    @app.get(
        "/api/games/{game_id}/state",
        tags=["play"],
        summary="My view of the game, my legal actions when it is my turn, whether I can undo",
        responses=error_responses(401, 403, 404),
    )
    async def state(
        game_id: str, authorization: Annotated[str | None, Header()] = None, seat: Annotated[int | None, Query(ge=0, le=7)] = None
    ) -> Response:
        token = bearer(authorization)
        live = await live_game(game_id)
        text = await call(live.state_text, authorise(live, token), seat)  # made in a worker thread, not on the event loop
        return Response(text, media_type="application/json")

    @app.get(
        "/api/games/{game_id}/spectate",
        tags=["play"],
        summary="The public view (no one's hand or tickets)",
        responses=error_responses(404),
    )
    async def spectate(game_id: str) -> Response:
        live = await live_game(game_id)
        st = await call(live.state, SPECTATOR, None)
        return json_response({k: st[k] for k in ("seq", "view", "summary", "closed_routes", "final_report", "tie_breaks")})

    @app.post(
        "/api/games/{game_id}/actions",
        tags=["play"],
        summary="Play an action (409 not_your_turn / state_changed; 422 illegal, with the reason)",
        responses=error_responses(401, 403, 404, 409),
    )
    async def act(game_id: str, body: ActionBody, authorization: Annotated[str | None, Header()] = None) -> Response:
        token = bearer(authorization)
        new, stored = await hub.change(service.submit, game_id, token, body.seat, body.action, body.expected_seq)
        text = f'{{"seq":{new.seq},"events":{events_text(stored, authorise(new, token).seats)}}}'
        return Response(text, media_type="application/json")

    @app.post(
        "/api/games/{game_id}/undo",
        tags=["play"],
        summary="Take back your last action (only alone vs bots or hot-seat, never past hidden information)",
        responses=error_responses(401, 403, 404, 409),
    )
    async def undo(
        game_id: str, authorization: Annotated[str | None, Header()] = None, body: Annotated[UndoBody | None, Body()] = None
    ) -> Response:
        new, _ = await hub.change(service.undo, game_id, bearer(authorization), body.seat if body else None)
        return json_response({"seq": new.seq})

    @app.post(
        "/api/games/{game_id}/return",
        tags=["play"],
        summary="Take your seat back from the bot that played it since your time ran out",
        responses=error_responses(401, 403, 404, 409),
    )
    async def take_back(
        game_id: str, authorization: Annotated[str | None, Header()] = None, body: Annotated[UndoBody | None, Body()] = None
    ) -> Response:
        new, seat = await call(service.take_back, game_id, bearer(authorization), body.seat if body else None)
        hub.announce(new)
        return json_response({"seq": new.seq, "seat": seat})

    @app.post(
        "/api/games/{game_id}/chat",
        tags=["table"],
        summary="Write in the game's chat (players: seat token; spectators: signed in)",
        responses=error_responses(401, 403, 404),
    )
    async def chat_post(
        game_id: str, body: ChatBody, request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> Response:
        user = await signed_in(request) if body.channel == "spectators" else None
        token = bearer(authorization)
        msg = await call(
            post_chat, service, game_id, token, user, body.channel, body.text, client_key(request.scope) if on else None
        )
        hub.announce_chat(game_id)
        return json_response(msg)

    @app.get(
        "/api/games/{game_id}/chat",
        tags=["table"],
        summary="A chat channel's messages after `since` (the players' channel of a running game: a seat token)",
        responses=error_responses(401, 403, 404),
    )
    async def chat_get(
        game_id: str,
        channel: Literal["players", "spectators"] = "players",
        since: Annotated[int, Query(ge=0, le=2**53)] = 0,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Response:
        return json_response(await call(read_chat, service, game_id, channel, since, bearer(authorization)))

    @app.post(
        "/api/games/{game_id}/rematch",
        tags=["table"],
        summary="Offer or accept a rematch of a finished game (seat token): your seat's token in the new game",
        responses=error_responses(401, 404, 409),
    )
    async def rematch_post(game_id: str, authorization: Annotated[str | None, Header()] = None) -> Response:
        live, out = await call(rematch, service, game_id, bearer(authorization))
        hub.announce(live)
        return json_response(out)

    @app.get(
        "/api/games/{game_id}/log",
        tags=["play"],
        summary="Events after `since`: public forms, and with a seat's token that seat's private forms of its own events",
        responses=error_responses(401, 404),
    )
    async def game_log(
        game_id: str, since: Annotated[int, Query(ge=0)] = 0, authorization: Annotated[str | None, Header()] = None
    ) -> Response:
        token = bearer(authorization)
        live = await live_game(game_id)
        access = SPECTATOR if token is None else authorise(live, token)  # a wrong token is refused, not served the public log
        return json_response({"seq": live.seq, "events": live.events_since(since, access)})

    async def finished_record(game_id: str) -> dict[str, Any]:
        live = await live_game(game_id)
        if live.status != "finished":
            raise ApiError(409, "not_finished", "the record is published when the game is over")
        return live.record()

    @app.get(
        "/api/games/{game_id}/record",
        tags=["play"],
        summary="The record of a finished game (replayable)",
        responses=error_responses(404, 409),
    )
    async def record(game_id: str) -> Response:
        return json_response(await finished_record(game_id))

    @app.get(
        "/api/games/{game_id}/record.json",
        tags=["play"],
        summary="The record as a download (`ttr replay` reads it)",
        responses=error_responses(404, 409),
    )
    async def record_download(game_id: str) -> Response:
        rec = await finished_record(game_id)
        return json_response(rec, headers={"Content-Disposition": f'attachment; filename="ttr-{game_id}.json"'})

    @app.get(
        "/api/games/{game_id}/replay",
        tags=["play"],
        summary="A finished game's public view after `step` actions, with that action's events (replay viewer)",
        responses=error_responses(404, 409),
    )
    async def replay(game_id: str, step: Annotated[int, Query(ge=0)] = 0) -> Response:
        rec = await finished_record(game_id)
        return json_response(await hub.pool.replay(game_id, rec, step))  # replayed in a worker process

    # ------------------------------------------------------------------ WebSocket
    @app.websocket("/ws/games/{game_id}")
    async def ws_game(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        try:
            token = ws.query_params.get("token") or None
            seat = _int_param(ws.query_params.get("seat"), "seat")
            since = _int_param(ws.query_params.get("since"), "since")
            wants_chat = ws.query_params.get("chat") == "1"
            live = await live_game(game_id)
            access = authorise(live, token) if token else SPECTATOR
            live.choose_seat(access, seat)
            del live  # the session follows the cached snapshots: this one must not stay pinned while it runs
        except ApiError as exc:
            await ws.send_text(json.dumps({"type": "error", "error": exc.body()["error"]}))
            await ws.close(code=4000 + exc.status)
            return
        await Session(ws, hub, game_id, token, access, seat, settings.max_body_bytes, wants_chat).run(since)

    # ------------------------------------------------------------------ static client
    def page(name: str) -> Response:
        for candidate in (name, "index.html"):
            path = STATIC_DIR / candidate
            if path.is_file():
                return FileResponse(path, media_type="text/html")
        return HTMLResponse(
            "<!doctype html><title>ttr</title><p>The browser client is not installed. "
            "The API is documented at <a href='/docs'>/docs</a>.</p>"
        )

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return page("index.html")

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> Response:
        return page("docs.html")  # Swagger UI from static/vendor/swagger-ui: works offline, under the CSP

    @app.get("/play/{game_id}", include_in_schema=False)
    async def play_page(game_id: str) -> Response:
        if not (STATIC_DIR / "play.html").is_file() and (STATIC_DIR / "index.html").is_file():
            return HTMLResponse(preloading_page("game.js"))
        return page("play.html")

    @app.get("/players/{name}", include_in_schema=False)
    async def profile_page(name: str) -> Response:
        return page("profile.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        return page("replay.html")

    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _int_param(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        if len(raw) > 18:
            raise ValueError(raw)
        value = int(raw)
    except ValueError:
        raise ApiError(400, "bad_parameter", f"{name} must be an integer") from None
    if value < 0:
        raise ApiError(400, "bad_parameter", f"{name} must not be negative")
    return value


WS_UNSUPPORTED = 1003  # a binary frame: this server speaks JSON text
WS_INVALID = 1007  # a text frame that is not JSON this server accepts (syntax, depth, numbers)
WS_TOO_BIG = 1009  # over Settings.max_body_bytes


class Session:
    """One WebSocket: sends an update after every change (what this seat may see), takes actions and pings."""

    def __init__(
        self,
        ws: WebSocket,
        hub: Hub,
        game_id: str,
        token: str | None,
        access: Access,
        seat: int | None,
        max_bytes: int,
        chat: bool = False,
    ) -> None:
        self.ws = ws
        self.hub = hub
        self.game_id = game_id
        self.token = token
        self.access = access
        self.seat = seat
        self.max_bytes = max_bytes
        self.chat = chat
        self.send_lock = asyncio.Lock()
        self.last = -1  # the seq of the last update sent (the hub renders the next one for it: Hub.announce)

    async def send(self, obj: Any) -> None:
        async with self.send_lock:
            await self.ws.send_text(json.dumps(obj, separators=(",", ":")))

    async def run(self, since: int | None) -> None:
        wake = self.hub.subscribe(self.game_id, self)
        writer = asyncio.create_task(self.write_logged(since, wake))
        chat_wake = self.hub.subscribe_chat(self.game_id) if self.chat else None
        chatter = asyncio.create_task(self.write_chat(chat_wake)) if chat_wake is not None else None
        try:
            await self.read()
        except WebSocketDisconnect:
            pass
        finally:
            self.hub.unsubscribe(self.game_id, wake)
            if chat_wake is not None:
                self.hub.unsubscribe_chat(self.game_id, chat_wake)
            for task in (writer, chatter):
                if task is None:
                    continue
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def write_chat(self, chat_wake: asyncio.Event) -> None:
        """(``?chat=1``) Push the chat: on connect every message this connection may read (if any), then each new
        one, as `{"type": "chat", "messages": [...]}`. The end of the game opens the players' channel to all, so a
        spectator's connection also looks again (every 5 s) until it has seen the game over."""
        since: dict[str, int] = {}
        seen_over = not self.access.spectator  # a seat reads both channels from the start
        try:
            while True:
                msgs = await self.hub.call(chat_for, self.hub.service, self.game_id, self.access, since)
                if msgs:
                    await self.send({"type": "chat", "messages": msgs})
                while True:
                    try:
                        await asyncio.wait_for(chat_wake.wait(), timeout=None if seen_over else 5.0)
                        break
                    except TimeoutError:
                        live = self.hub.service.cached(self.game_id)
                        if live is not None and live.status in ("finished", "abandoned"):
                            seen_over = True
                            break
                chat_wake.clear()
        except (WebSocketDisconnect, asyncio.CancelledError):
            raise
        except Exception as exc:
            log.debug("chat push stopped in game %s: %s", self.game_id, exc)

    async def write_logged(self, since: int | None, wake: asyncio.Event) -> None:
        try:
            await self.write(since, wake)
        except (WebSocketDisconnect, asyncio.CancelledError):
            raise
        except Exception as exc:
            if self.ws.client_state.name == "CONNECTED" and self.ws.application_state.name == "CONNECTED":
                log.exception("WebSocket update failed in game %s", self.game_id)
            else:
                log.debug("WebSocket closed while sending: %s", exc)

    async def write(self, since: int | None, wake: asyncio.Event) -> None:
        """Send everything after `since` (nothing but the state if None), then one update per change."""
        service = self.hub.service
        live = service.cached(self.game_id) or await self.hub.call(service.get, self.game_id)
        last = since if since is not None and since <= live.seq else live.seq
        first = True
        while True:
            live = service.cached(self.game_id) or live
            if self.token and live.access(self.token) != self.access:  # the seat was given to someone else
                await self.error(ApiError(401, "bad_token", "this token is no longer a seat of this game"))
                await self.ws.close(code=4401)
                return
            if first or live.seq > last:
                text = live.update_text(self.access, self.seat, last)
                last = self.last = live.seq
                first = False
                async with self.send_lock:
                    await self.ws.send_text(text)
            await wake.wait()
            wake.clear()

    async def read(self) -> None:
        """Take messages until the client leaves. A frame that is not a JSON text message this server accepts
        gets one error message, then the socket is closed with the code saying why (docs/api.md); a message
        that is JSON but not a valid message gets an error and the socket stays open."""
        while True:
            frame = await self.ws.receive()
            if frame["type"] == "websocket.disconnect":
                return
            text = frame.get("text")
            if text is None:
                await self.refuse(
                    ApiError(400, "unsupported_frame", "binary frames are not supported: send JSON text"), WS_UNSUPPORTED
                )
                return
            if len(text) > self.max_bytes or len(text.encode("utf-8", "surrogatepass")) > self.max_bytes:
                await self.refuse(ApiError(413, "too_large", f"message over {self.max_bytes} bytes"), WS_TOO_BIG)
                return
            try:
                msg = parse_client_message(decode_json(text))
            except MalformedJson as exc:
                await self.refuse(ApiError(400, "malformed_json", f"the message is not valid JSON: {exc}"), WS_INVALID)
                return
            except ApiError as exc:
                await self.error(exc)
                continue
            try:
                await self.handle(msg)
            except ApiError as exc:
                await self.error(exc)

    async def handle(self, msg: Any) -> None:
        if isinstance(msg, PingMessage):
            await self.send({"type": "pong"})
            return
        if self.access.spectator:
            raise ApiError(403, "spectator", "spectators cannot act: join a seat first")
        await self.hub.change(self.hub.service.submit, self.game_id, self.token, msg.seat, msg.action, msg.expected_seq)

    async def refuse(self, exc: ApiError, close_code: int) -> None:
        """Send the error, then close with `close_code` (the client may already be gone: nothing to log then)."""
        async with self.send_lock:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await self.ws.send_text(json.dumps({"type": "error", "error": exc.body()["error"]}))
                await self.ws.close(code=close_code, reason=exc.code)

    async def error(self, exc: ApiError) -> None:
        await self.send({"type": "error", "error": exc.body()["error"]})


__all__ = ["create_app", "unknown_game"]
