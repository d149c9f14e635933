"""Games as the server keeps them. The database is the truth; each process caches one immutable
``LiveGame`` snapshot per game, replaced (never mutated) after every committed change.

Every change (action, join, undo) runs the same way: take the process's lock for the game, open a write
transaction, lock the game's row, bring the snapshot up to date if another process moved on, check
and apply the change on a copy of the engine state, write it, commit — and only then swap the cached
snapshot and let the caller announce it. So a change is never announced before it is durable, two
changes to one game are serialised (the loser sees the new state and gets a 409), and a failed commit
leaves nothing behind. Every change also increments the game's ``seq``; events carry their ``seq``.

These methods are synchronous (SQLAlchemy); the web layer calls them from worker threads.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ..bots import LEVELS
from ..editions import BUILTIN
from ..engine import Action, Event, Game, IllegalAction
from ..errors import EditionError, SetupError, TTRError
from ..notation import format_move
from .accounts import User
from .db import (
    SELECT_SEQ,
    UPDATE_FINISHED,
    Database,
    actions,
    events,
    games,
    seats,
    users,
)
from .errors import ApiError, unknown_game
from .maps import MapLibrary, game_from_position, position_json, record_json
from .ratings import rate_game
from .security import clean_name, hash_token, new_game_id, new_token
from .undo import action_reveals, undo_point

T = TypeVar("T")
P = TypeVar("P")

OPEN, ACTIVE, FINISHED, ABANDONED = "open", "active", "finished", "abandoned"
STATUSES = (OPEN, ACTIVE, FINISHED, ABANDONED)  # abandoned: closed by the expiry sweep (see expiry.py), kept as it was
GAME_NAME_MAX = 64
CONFLICT_CODES = frozenset({"not_your_turn", "game_over", "state_changed", "not_started"})


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def dumps_text(obj: Any) -> str:
    """Compact JSON text of `obj` (orjson: several times faster than json for the big state updates; json for
    what orjson refuses, e.g. an integer over 64 bits)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(obj, separators=(",", ":"))


def closed_routes(game: Game) -> list[str]:
    """Unclaimed lanes of double routes that no player may claim any more: with fewer players than the edition's
    `all_lanes_min_players`, a claimed lane closes its twins. Decided by the engine's own rule (Game.lane_closed),
    for every seat."""
    owner = game.route_owner
    return [
        r.id
        for r in game.edition.routes
        if r.group >= 0 and owner[r.index] < 0 and all(game.lane_closed(r, p) for p in range(game.n))
    ]


def public_rules(game: Game) -> dict[str, Any]:
    """The rule answers a client renders without re-implementing them (docs/api.md, GET .../state) that are the
    same for every seat: closed lanes and, once the game is over, every player's tickets with their paths (the
    score walk) and how ties on points were settled. With ``seat_rules``; all from the engine."""
    return {
        "closed_routes": closed_routes(game),
        "final_report": [game.ticket_report(p) for p in range(game.n)] if game.is_over else [],
        "tie_breaks": game.tie_breaks() if game.is_over else [],
    }


def seat_rules(game: Game, seat: int | None) -> dict[str, Any]:
    """The rule answers for one seat: why each route cannot be claimed now and how its tickets stand."""
    return {
        "claim_problems": game.claim_problem_codes(seat) if seat is not None else {},
        "ticket_report": game.ticket_report(seat) if seat is not None else [],
    }


def served_rules(game: Game, seat: int | None) -> dict[str, Any]:
    """Every rule answer of a seat's state (None: a spectator's): ``public_rules`` and ``seat_rules``."""
    return {**public_rules(game), **seat_rules(game, seat)}


def with_move(before: Game, action: Action, event: Event) -> Event:
    """The first event of an action, carrying the move in the notation (``move``, e.g. ``claim denver-omaha
    3red+1L``; ttr.notation), which the client's log shows beside its sentence. Kept tickets name secret
    tickets: that move goes in the event's private part, for its player only."""
    text = format_move(before, action)
    if action.type == "keep_tickets":
        return replace(event, secret={**(event.secret or {}), "move": text})
    return replace(event, data={**event.data, "move": text})


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(dt: datetime | None) -> datetime | None:
    if dt is not None and dt.tzinfo is None:  # SQLite gives back naive datetimes; we only ever store UTC
        return dt.replace(tzinfo=UTC)
    return dt


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    if dt.tzinfo is None:  # SQLite gives back naive datetimes; we only ever store UTC
        dt = dt.replace(tzinfo=UTC)
    return dt.isoformat()


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    type: str  # human | bot
    level: str | None
    name: str | None
    token_hash: str | None
    joined: bool
    user_id: int | None = None  # the account the seat is bound to
    account: str | None = None  # that account's name
    away: bool = False  # a person's seat played by a bot (level `level`) since a timeout, until they return
    dropped: bool = False  # ... for good: the table chose to drop players who run out of time

    @property
    def by_bot(self) -> bool:
        return self.type == "bot" or self.away or self.dropped

    @property
    def open(self) -> bool:
        """A free human seat created open: anyone may take it from the lobby. A free human seat with a token
        hash is reserved for its invitation."""
        return self.type == "human" and not self.joined and self.token_hash is None


@dataclass(slots=True)
class StoredEvent:
    """An event of a game's log, kept as the JSON text it is sent as: a live game holds its whole log, and as dicts
    the log was over half of a game's memory (~195 KB of ~350 KB at the end of a 2-player game; as text ~40 KB)."""

    seq: int
    action_idx: int | None
    player: int | None
    type: str
    public: str  # JSON text of the form anyone may see
    private: str | None  # JSON text of the form `player` sees (the public one and its secret part), if it has a secret
    at: str
    undone: bool = False

    @classmethod
    def of(
        cls,
        seq: int,
        action_idx: int | None,
        player: int | None,
        type: str,
        public: str,
        secret: str | None,
        at: str,
        undone: bool = False,
    ) -> StoredEvent:
        """From the stored texts of its public and secret parts."""
        private = dumps_text({**orjson.loads(public), **orjson.loads(secret)}) if secret else None
        return cls(seq, action_idx, player, type, public, private, at, undone)

    def form_text(self, entitled: frozenset[int]) -> str:
        """The event's JSON text as seen by whoever controls the seats `entitled` (empty: a spectator)."""
        if self.private is not None and self.player in entitled:
            return self.private
        return self.public

    def form(self, entitled: frozenset[int]) -> dict[str, Any]:
        return orjson.loads(self.form_text(entitled))


def events_text(events: Sequence[StoredEvent], entitled: frozenset[int]) -> str:
    """The JSON text of a list of ``{"seq", "event"}``: the events' texts put together, not parsed and written again."""
    return "[" + ",".join(f'{{"seq":{e.seq},"event":{e.form_text(entitled)}}}' for e in events) + "]"


@dataclass(frozen=True, slots=True)
class Access:
    """What a token may do: act for and see the secrets of `seats`. No seats: a spectator."""

    seats: frozenset[int]
    hotseat: bool = False

    @property
    def spectator(self) -> bool:
        return not self.seats


SPECTATOR = Access(frozenset())


@dataclass(frozen=True)
class LiveGame:
    """One game at one `seq`. Never mutated: a change produces a new snapshot."""

    id: str
    edition: str
    players: int
    options: dict[str, Any]
    name: str | None
    public: bool
    hotseat: bool
    hotseat_hash: str | None
    status: str
    created_at: str
    updated_at: str
    seats: tuple[Seat, ...]
    game: Game
    seq: int
    events: list[StoredEvent]  # index i holds seq i+1 (events are flagged as undone, never deleted)
    actions: tuple[tuple[int, bool], ...]  # (seat, reveals) of every recorded action
    rated: bool = False  # every seat a distinct account, no bot, not hot-seat: ratings change when it ends
    clock: dict[str, Any] | None = None  # {"kind", "seconds", "on_timeout", "bot_level"}; None: no clock
    deadline: datetime | None = None  # when the seat to move runs out of time
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def humans(self) -> frozenset[int]:
        return frozenset(s.seat for s in self.seats if s.type == "human")

    @property
    def undo_allowed(self) -> bool:
        """Undo exists only when one person controls every human seat (alone vs bots, or hot-seat)."""
        return self.hotseat or len(self.humans) == 1

    @property
    def bot_seat(self) -> int | None:
        """A bot seat that may act now (in setup every seat still choosing may: bots keep at once), or None."""
        if self.status != ACTIVE:
            return None
        return next((p for p in self.game.to_act() if self.seats[p].by_bot), None)

    @property
    def bot_to_move(self) -> bool:
        return self.bot_seat is not None

    def access(self, token: str | None) -> Access | None:
        """The seats `token` controls; None if the token is not one of this game's."""
        if not token:
            return None
        h = hash_token(token)
        if self.hotseat_hash and secrets.compare_digest(h, self.hotseat_hash):
            return Access(self.humans, hotseat=True)
        for s in self.seats:
            if s.token_hash and secrets.compare_digest(h, s.token_hash):
                return Access(frozenset({s.seat}))
        return None

    def choose_seat(self, access: Access, seat: int | None) -> int | None:
        """The seat whose view `access` gets: the one asked for, else the seat to move if controlled, else the first."""
        if access.spectator:
            return None
        if seat is not None:
            if seat not in access.seats:
                raise ApiError(403, "not_your_seat", f"this token does not control seat {seat}")
            return seat
        for p in self.game.to_act():  # the seat to move, or in setup the first controlled seat still choosing
            if p in access.seats:
                return p
        return min(access.seats)

    def undo_check(self, access: Access) -> int | str:
        """Actions to keep for `access` to undo, or why it cannot."""
        if not self.undo_allowed:
            return "undo is only available when one person controls every human seat (alone against bots, or hot-seat)"
        if access.spectator or not self.humans <= access.seats:
            return "only the player controlling every human seat may undo"
        if self.status != ACTIVE:
            return {FINISHED: "the game is over", ABANDONED: "the game was closed"}.get(self.status, "the game has not started")
        return undo_point(self.actions, access.seats)

    def summary(self) -> dict[str, Any]:
        """Public facts about the game (lobby lists, page headers): never a secret."""
        if "summary" not in self.memo:
            seat_list = []
            for s in self.seats:
                d: dict[str, Any] = {"seat": s.seat, "type": s.type, "joined": s.joined}
                if s.type == "human" and not s.joined:
                    d["open"] = s.open  # False: reserved for an invitation
                if s.level:
                    d["level"] = s.level
                if s.name:
                    d["name"] = s.name
                if s.account:
                    d["account"] = s.account
                if s.away:
                    d["away"] = True
                if s.dropped:
                    d["dropped"] = True
                seat_list.append(d)
            g = self.game
            self.memo["summary"] = {
                "game_id": self.id,
                "name": self.name,
                "edition": self.edition,
                "edition_name": g.base_edition.name,
                "players": self.players,
                "options": self.options,
                "hotseat": self.hotseat,
                "public": self.public,
                "rated": self.rated,
                "clock": self.clock,
                "deadline": _iso(self.deadline),
                "seats": seat_list,
                "status": self.status,
                "phase": g.phase,
                "current": None if g.is_over else g.current,
                "to_act": list(g.to_act()),
                "turn": g.turn,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
                "seq": self.seq,
            }
            if self.status == ABANDONED:  # why the expiry sweep closed it (expiry.py): the client words it
                closed = next((e for e in reversed(self.events) if e.type == "game_closed"), None)
                reason = orjson.loads(closed.public).get("reason") if closed else None
                self.memo["summary"]["closed_reason"] = reason or "abandoned"
        return self.memo["summary"]

    def state(self, access: Access, seat: int | None) -> dict[str, Any]:
        """GET /state and the `state` of WebSocket updates: this seat's view and, on its turn, its legal actions."""
        return orjson.loads(self.state_text(access, seat))

    def state_text(self, access: Access, seat: int | None) -> str:
        """``state`` as JSON text, made once per snapshot and seat (kept as text: as a dict it held ~25 KB a seat)."""
        view_seat = self.choose_seat(access, seat)
        key = ("state", access, view_seat)
        text = self.memo.get(key)
        if text is None:
            g = self.game
            my_turn = view_seat is not None and self.status == ACTIVE and view_seat in g.to_act()
            text = self.memo[key] = dumps_text(
                {
                    "seq": self.seq,
                    "seat": view_seat,
                    "seats_controlled": sorted(access.seats),
                    "view": g.view(view_seat).to_dict(),
                    "legal": [a.to_json() for a in g.legal_actions(view_seat)] if my_turn else [],
                    "can_undo": not access.spectator and isinstance(self.undo_check(access), int),
                    "summary": self.summary(),
                    **self.public_rules(),
                    **seat_rules(g, view_seat),
                }
            )
        return text

    def public_rules(self) -> dict[str, Any]:
        """public_rules of this position, worked out once for every seat's state."""
        if "public_rules" not in self.memo:
            self.memo["public_rules"] = public_rules(self.game)
        return self.memo["public_rules"]

    def update_text(self, access: Access, seat: int | None, last: int) -> str:
        """The WebSocket update (JSON text) for a watcher with `access` viewing `seat` that has seen up to `last`:
        the events since then and the state. Shared by every watcher at the same point (spectators, tabs); made
        in a worker thread when the hub renders a change for its watchers (Hub.announce), else on first use."""
        key = ("update", access, seat, last)
        text = self.memo.get(key)
        if text is None:
            events = events_text([e for e in self.events[max(last, 0) :] if not e.undone], access.seats)
            state = self.state_text(access, seat)
            text = self.memo[key] = f'{{"type":"update","seq":{self.seq},"events":{events},"state":{state}}}'
        return text

    def events_since(self, since: int, access: Access) -> list[dict[str, Any]]:
        """Events after `since` (undone ones left out), in the form `access` may see."""
        return [{"seq": e.seq, "event": e.form(access.seats), "at": e.at} for e in self.events[max(since, 0) :] if not e.undone]

    def record(self) -> dict[str, Any]:
        rec = record_json(self.game, self.game.record())
        rec["game_id"] = self.id
        rec["names"] = [s.name or (f"{s.level} bot" if s.type == "bot" else f"Player {s.seat + 1}") for s in self.seats]
        rec["seats"] = [{"type": s.type, **({"level": s.level} if s.level else {})} for s in self.seats]
        return rec


TUTORIAL_SEEDS = {"usa": 2, "europe": 1, "nordic": 1, "marklin": 1}
"""The seed of every tutorial game of an edition: the same tickets, hand and market each time, the player first,
and (the bot being seeded from the game's seed) the same easy-bot moves as long as the player makes the same ones."""


def _check_tutorial(
    edition: str,
    players: int | None,
    options: dict[str, Any],
    seat_specs: list[dict[str, Any]] | None,
    hotseat: bool,
    custom_map: dict[str, Any] | None,
    clock: dict[str, Any] | None,
) -> None:
    """422 bad_tutorial unless a tutorial asks for nothing it sets itself (seats, options, a map, a clock, hot-seat)."""
    if edition not in BUILTIN or custom_map is not None:
        raise ApiError(422, "bad_tutorial", f"a tutorial is played on a built-in edition ({', '.join(BUILTIN)})")
    clashes = [
        name
        for name, given in (
            ("players", players not in (None, 2)),
            ("seats", seat_specs is not None),
            ("options", bool(options)),
            ("hotseat", hotseat),
            ("clock", clock is not None),
        )
        if given
    ]
    if clashes:
        raise ApiError(
            422, "bad_tutorial", f"a tutorial is you against an easy bot with the standard rules: drop {', '.join(clashes)}"
        )


class _Moved(Exception):
    """The game's row is no longer at the seq a change was made on: nothing was written."""


@dataclass(frozen=True, slots=True)
class _Move:
    """An action checked and applied on a snapshot, ready to be written (GameService.submit)."""

    seat: int
    game: Game
    events: list[Event]
    reveals: bool
    position: str | None  # the new position's JSON when it is to be stored (GameService.position_due), else None


def _check_clock(spec: dict[str, Any] | None) -> str | None:
    """The stored time control (JSON) of a ClockSpec, None for no clock; 422 bad_clock when it does not add up."""
    if not spec or spec.get("kind", "none") == "none":
        return None
    kind = spec["kind"]
    if kind == "realtime":
        if spec.get("seconds") is None or spec.get("hours") is not None:
            raise ApiError(422, "bad_clock", "a realtime clock gives seconds per move (1-3600)")
        seconds = int(spec["seconds"])
    else:
        if spec.get("hours") is None or spec.get("seconds") is not None:
            raise ApiError(422, "bad_clock", "a turnbased clock gives hours per move (1-168)")
        seconds = int(spec["hours"]) * 3600
    level = spec.get("bot_level") or "medium"
    if level not in LEVELS:
        raise ApiError(422, "bad_level", f"clock: unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    return _dumps({"kind": kind, "seconds": seconds, "on_timeout": spec.get("on_timeout", "bot"), "bot_level": level})


def clock_request(stored: str | None) -> dict[str, Any] | None:
    """The ClockSpec that `_check_clock` stores as `stored` (a rematch asks for the same time control)."""
    if not stored:
        return None
    c = json.loads(stored)
    per_move = {"seconds": c["seconds"]} if c["kind"] == "realtime" else {"hours": c["seconds"] // 3600}
    return {"kind": c["kind"], "on_timeout": c["on_timeout"], "bot_level": c["bot_level"], **per_move}


def is_rated(live: LiveGame, seat_list: Sequence[Seat]) -> bool:
    """Rated: not hot-seat, two or more seats, every one a person signed in, each a different account."""
    ids = [s.user_id for s in seat_list]
    return (
        not live.hotseat
        and len(seat_list) >= 2
        and all(s.type == "human" for s in seat_list)
        and None not in ids
        and len(set(ids)) == len(ids)
    )


def _check_bindable(live: LiveGame, target: int, user: User) -> None:
    prior = live.seats[target].user_id
    if prior is not None and prior != user.id:
        raise ApiError(409, "seat_bound", "this seat belongs to another account")
    if any(s.user_id == user.id and s.seat != target for s in live.seats):
        raise ApiError(409, "already_seated", "your account already has another seat in this game")


def _others_chose(live: LiveGame, seat: int, since: int) -> bool:
    """Setup: whether everything after `since` is other seats choosing their tickets. The seats choose at once,
    and another seat's choice changes nothing `seat` was shown (its own offer), so that state is not stale for it;
    its own move since (a double click), an undo or any other change still is."""
    g = live.game
    if g.phase != "setup" or seat not in g.to_act() or not 0 <= since < live.seq:
        return False
    return all(e.type != "undo" and (e.action_idx is None or live.actions[e.action_idx][0] != seat) for e in live.events[since:])


def authorise(live: LiveGame, token: str | None) -> Access:
    """The seats `token` controls in `live`; 401 when there is no token or it is not one of this game's."""
    if token is None:
        raise ApiError(401, "token_required", "this needs your seat's token (Authorization: Bearer <token>)")
    access = live.access(token)
    if access is None:
        raise ApiError(401, "bad_token", "this token is not a seat of this game")
    return access


class GameService:
    """Creates games and applies changes to them; keeps the per-process snapshot cache."""

    def __init__(
        self,
        db: Database,
        *,
        bot_lease_seconds: float = 5.0,
        max_cached: int = 5000,
        max_finished_cached: int = 64,
        rate_check: Callable[[str, str], None] | None = None,
        max_games_per_client: int = 0,
        max_bot_games: int = 0,
        maps: MapLibrary | None = None,
        position_every: int = 20,
    ) -> None:
        self.db = db
        # the whole position (~20 KB of JSON late in a game) is written every `position_every` actions and when a
        # game ends; the actions between are rows of their own, replayed when the game is loaded (_load)
        self.position_every = max(1, position_every)
        self.maps = maps or MapLibrary()  # the editions a game may be created on (built in, and --maps DIR)
        # limits (0: none): rate_check(category, key) raises 429 when over (limits.RateLimits.check)
        self.rate_check = rate_check
        self.max_games_per_client = max_games_per_client
        self.max_bot_games = max_bot_games
        self._created: dict[str, list[str]] = {}  # client -> ids of the games it created that were in play
        self.process_id = db.origin
        self.bot_lease = timedelta(seconds=bot_lease_seconds)
        self._cache: dict[str, LiveGame] = {}  # in order of last change
        self.max_cached = max_cached
        # games that ended (finished or closed): a few stay cached for the score sheets and rematches that follow;
        # each holds ~200 KB (its log, history and the engine's move caches), so a server that plays on does
        # not keep every game it ever finished (loadtest: +79 % RSS in 10 minutes before this bound)
        self._ended: dict[str, None] = {}  # in order of ending
        self.max_finished_cached = max_finished_cached
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.last_rating_seconds: float | None = None  # how long the last rating update took (benchmarks)
        self.last_timeout_lateness: float | None = None  # seconds between the last deadline fired and its firing

    # ------------------------------------------------------------------ cache
    def _lock(self, game_id: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = threading.Lock()
            return lock

    def _store(self, live: LiveGame) -> LiveGame:
        """Cache `live` unless a newer snapshot is there; the least recently changed games leave the cache first."""
        g = live.game
        if not g.is_over and live.seats[g.current].type == "human":
            g.legal_actions()  # computed (and kept) here, in the caller's worker thread, not when the event loop renders it
        with self._guard:
            cur = self._cache.get(live.id)
            if cur is not None and live.seq < cur.seq:
                return cur
            self._cache.pop(live.id, None)
            self._cache[live.id] = live
            while len(self._cache) > self.max_cached:
                del self._cache[next(iter(self._cache))]  # reloaded from the database when needed again
            if live.status in (FINISHED, ABANDONED) and live.id not in self._ended:
                self._ended[live.id] = None
                while len(self._ended) > self.max_finished_cached:
                    self._drop(next(iter(self._ended)))
            return live

    def cached(self, game_id: str) -> LiveGame | None:
        return self._cache.get(game_id)

    def forget(self, game_id: str) -> None:
        with self._guard:
            self._drop(game_id)

    def _drop(self, game_id: str) -> None:
        """Free what this process keeps of a game (its snapshot, its lock unless held); with self._guard held."""
        self._cache.pop(game_id, None)
        self._ended.pop(game_id, None)
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]

    def get(self, game_id: str) -> LiveGame:
        """The game as the database has it now (from the cache when the cache is current)."""
        if not isinstance(game_id, str) or len(game_id) > 32:
            raise unknown_game(str(game_id)[:40])
        with self.db.read() as conn:
            seq = conn.execute(SELECT_SEQ, {"gid": game_id}).scalar()
            if seq is None:
                raise unknown_game(game_id)
            cur = self._cache.get(game_id)
            if cur is not None and cur.seq == seq:
                return cur
        return self._store(self._load_consistent(game_id))

    def _load_consistent(self, game_id: str) -> LiveGame:
        conn_ctx = self.db.read_engine.connect()
        if self.db.is_postgres:
            conn_ctx = conn_ctx.execution_options(isolation_level="REPEATABLE READ")
        with conn_ctx as conn, conn.begin():
            live = self._load(conn, game_id)
        if live is None:
            raise unknown_game(game_id)
        return live

    def _load(self, conn: Connection, game_id: str) -> LiveGame | None:
        row = conn.execute(sa.select(games).where(games.c.id == game_id)).first()
        if row is None:
            return None
        seat_rows = conn.execute(
            sa.select(seats, users.c.name.label("account"))
            .select_from(seats.outerjoin(users, users.c.id == seats.c.user_id))
            .where(seats.c.game_id == game_id)
            .order_by(seats.c.seat)
        ).all()
        ev_rows = conn.execute(sa.select(events).where(events.c.game_id == game_id).order_by(events.c.seq)).all()
        game = game_from_position(json.loads(row.position))
        stored = len(game.history)
        since = sa.case((actions.c.idx >= stored, actions.c.action), else_=None).label("action")  # only those replayed
        act_rows = conn.execute(
            sa.select(actions.c.seat, actions.c.reveals, since).where(actions.c.game_id == game_id).order_by(actions.c.idx)
        ).all()
        if stored > len(act_rows) or len(ev_rows) != row.seq:
            raise RuntimeError(f"game {game_id}: stored position, actions and events disagree")
        for a in act_rows[stored:]:  # the actions since the stored position (see position_due)
            game.apply(Action.from_json(json.loads(a.action)), a.seat)
        return LiveGame(
            id=row.id,
            edition=row.edition,
            players=row.players,
            options=json.loads(row.options),
            name=row.name,
            public=row.public,
            hotseat=row.hotseat,
            hotseat_hash=row.hotseat_token_hash,
            status=row.status,
            created_at=_iso(row.created_at) or "",
            updated_at=_iso(row.updated_at) or "",
            seats=tuple(
                Seat(s.seat, s.type, s.level, s.name, s.token_hash, s.joined, s.user_id, s.account, s.away, s.dropped)
                for s in seat_rows
            ),
            game=game,
            seq=row.seq,
            events=[
                StoredEvent.of(e.seq, e.action_idx, e.player, sys.intern(e.type), e.public, e.secret, _iso(e.at) or "", e.undone)
                for e in ev_rows
            ],
            actions=tuple((a.seat, a.reveals) for a in act_rows),
            rated=bool(row.rated),
            clock=json.loads(row.clock) if row.clock else None,
            deadline=_aware(row.deadline),
        )

    def _change(self, game_id: str, fn: Callable[[Connection, LiveGame], tuple[LiveGame, T]]) -> tuple[LiveGame, T]:
        """Run `fn` on the current snapshot inside a write transaction holding the game's lock."""
        return self._change_prepared(game_id, lambda _live: None, lambda conn, live, _prep: fn(conn, live))

    def _change_prepared(
        self,
        game_id: str,
        prepare: Callable[[LiveGame], P],
        fn: Callable[[Connection, LiveGame, P], tuple[LiveGame, T]],
        single_statement: Callable[[P], bool] | None = None,
    ) -> tuple[LiveGame, T]:
        """Like _change, with the CPU work of the change (`prepare`: checks, the engine, the new position's JSON)
        done on the cached snapshot before the write transaction, holding only the game's lock: the database's
        writer (one at a time with SQLite) waits for statements, not for the engine. When the transaction finds
        the game moved on since (another process), `prepare` runs again on the current snapshot. An ApiError of
        `prepare` counts only when the snapshot it saw is still the current one.

        `single_statement(prepared)`: whether `fn` writes nothing but one ``_append`` (PostgreSQL: one statement). Then
        the change is first tried on the cached snapshot without a transaction or a lock on the row: one round trip
        instead of five; if the game moved on meanwhile (another process), nothing was written and it runs as above."""
        if not isinstance(game_id, str) or len(game_id) > 32:
            raise unknown_game(str(game_id)[:40])
        with self._lock(game_id):
            early: tuple[LiveGame, P | ApiError] | None = None
            cached = self._cache.get(game_id)
            if cached is not None:
                try:
                    early = (cached, prepare(cached))
                except ApiError as exc:
                    early = (cached, exc)
            if (
                self.db.is_postgres
                and single_statement is not None
                and early is not None
                and not isinstance(early[1], ApiError)
                and single_statement(early[1])
            ):
                try:
                    with self.db.autocommit() as conn:
                        new, result = fn(conn, *early)  # type: ignore[arg-type]
                    return self._store(new), result
                except _Moved:
                    pass  # another process changed the game first: lock it, load it, prepare again
            with self.db.write() as conn:
                seq = self.db.lock_game(conn, game_id)
                if seq is None:
                    raise unknown_game(game_id)
                live = self._cache.get(game_id)
                if live is None or live.seq != seq:
                    live = self._load(conn, game_id)
                    assert live is not None
                if early is not None and early[0] is live:
                    prepared = early[1]
                    if isinstance(prepared, ApiError):
                        raise prepared
                else:
                    prepared = prepare(live)
                new, result = fn(conn, live, prepared)  # type: ignore[arg-type]
            return self._store(new), result

    # ------------------------------------------------------------------ writing helpers
    def _append(
        self,
        conn: Connection,
        live: LiveGame,
        now: datetime,
        new_events: Sequence[tuple[int | None, Event]],
        position: str | None = None,
        action: dict[str, Any] | None = None,
        **row_changes: Any,
    ) -> tuple[LiveGame, list[StoredEvent]]:
        """Write a change: the `action` row (if any: a player's action), `new_events` (action index, engine event)
        and the game row (``Database.append``). The common tail of every change. `position`: the JSON of the new
        game's position when the caller made it already (outside the transaction). Raises _Moved, having written
        nothing, when the game is no longer at `live.seq` (PostgreSQL without a lock: see _change_prepared)."""
        at = _iso(now) or ""
        event_rows = []
        stored = []
        for i, (idx, e) in enumerate(new_events):
            public = e.public()
            row = {"game_id": live.id, "seq": live.seq + i + 1, "action_idx": idx, "player": e.player, "type": e.type}
            row.update(public=dumps_text(public), secret=dumps_text(e.secret) if e.secret else None, undone=False, at=now)
            event_rows.append(row)
            private = dumps_text({**public, **e.secret}) if e.secret else None
            stored.append(StoredEvent(row["seq"], idx, e.player, e.type, row["public"], private, at))
        game: Game = row_changes.pop("game", live.game)
        status = row_changes.pop("status", live.status)
        if status == ACTIVE and game.is_over:
            status = FINISHED
        new = replace(
            live,
            game=game,
            status=status,
            seq=live.seq + len(stored),
            events=live.events + stored,
            updated_at=at,
            memo={},
            **row_changes,
        )
        if live.clock is not None:
            deadline = None
            # every seat that may act now and is played by a person shares one deadline: in setup all the seats
            # still choosing their tickets (a seat's choice does not restart the others' time), later `current`
            if status == ACTIVE and not game.is_over and any(not new.seats[p].by_bot for p in game.to_act()):
                if game.phase == "setup":
                    same_turn = live.game.phase == "setup"
                else:
                    same_turn = live.game.phase != "setup" and live.game.current == game.current
                same_turn = same_turn and live.deadline is not None and live.status == ACTIVE
                deadline = live.deadline if same_turn else now + timedelta(seconds=live.clock["seconds"])
            if deadline != live.deadline:
                new = replace(new, deadline=deadline)
        if position is None and game is not live.game and self.position_due(live.game, game):
            position = dumps_text(position_json(game))
        row = {
            "gid": live.id,
            "old_seq": live.seq,
            "seq": new.seq,
            "status": status,
            "now": now,
            "to_move": None if game.is_over else game.current,
            "bot_to_move": new.bot_to_move,
            "deadline": new.deadline,
        }
        if position is not None:
            row["action_count"] = len(game.history)
        if not self.db.append(conn, row, action, event_rows, position):
            raise _Moved(live.id)
        if status == FINISHED and live.status != FINISHED:
            conn.execute(UPDATE_FINISHED, {"gid": live.id, "now": now})
            if new.rated:
                self._rate(conn, new, now)
        return new, stored

    def position_due(self, before: Game, after: Game) -> bool:
        """Whether a change from `before` to `after` stores the whole position: when the game ends, when actions were
        taken back (undo: the stored position must never be ahead of the stored actions), and when the number of
        actions passes a multiple of ``position_every``; loading replays at most that many actions."""
        n, m, every = len(before.history), len(after.history), self.position_every
        return after.is_over or m < n or m // every != n // every

    def _rate(self, conn: Connection, live: LiveGame, now: datetime) -> None:
        """The rated game `live` just ended: its players' ratings change in this transaction (ratings.py)."""
        start = time.perf_counter()
        result = live.game.result()
        ranks = [len(live.seats) if s.dropped else x["rank"] for s, x in zip(live.seats, result["players"], strict=True)]
        user_ids = [s.user_id for s in live.seats]
        assert all(u is not None for u in user_ids)
        rate_game(self.db, conn, live.id, live.edition, user_ids, ranks, now)  # type: ignore[arg-type]
        self.last_rating_seconds = time.perf_counter() - start

    # ------------------------------------------------------------------ create
    def create_game(
        self,
        *,
        edition: str,
        players: int | None,
        options: dict[str, Any],
        seat_specs: list[dict[str, Any]] | None,
        hotseat: bool,
        public: bool,
        name: str | None,
        creator: str | None = None,
        custom_map: dict[str, Any] | None = None,
        clock: dict[str, Any] | None = None,
        tutorial: bool = False,
    ) -> dict[str, Any]:
        """Create a game for client `creator` (its IP, for the per-client cap; None: no cap), on `custom_map` (a
        decoded map file) if given, else on `edition`. A `tutorial` is the first-game tutorial: the creator
        against an easy bot on a built-in edition, dealt from TUTORIAL_SEEDS (so its steps are predictable), private."""
        if tutorial:
            _check_tutorial(edition, players, options, seat_specs, hotseat, custom_map, clock)
            seat_specs, public = [{"type": "human"}, {"type": "bot", "level": "easy"}], False
        base = self.maps.resolve(edition, custom_map)
        edition = self.maps.lobby_id(base)
        if seat_specs is None:
            n = players or 2
            seat_specs = [{"type": "human"}] + [{"type": "bot", "level": "medium"}] * (n - 1)
        if players is None:
            players = len(seat_specs)
        if len(seat_specs) != players:
            raise ApiError(422, "bad_seats", f"give one seat per player: {players} players but {len(seat_specs)} seats")
        try:
            game = Game(base, players, TUTORIAL_SEEDS.get(edition, 1) if tutorial else secrets.randbits(48), options or None)
        except SetupError as exc:
            raise ApiError(422, exc.code, exc.reason) from None
        except EditionError as exc:
            raise ApiError(422, "bad_options", str(exc)) from None
        clock_json = _check_clock(clock)
        clean_title = None
        if name is not None and name.strip():
            try:
                clean_title = clean_name(name, GAME_NAME_MAX)
            except ValueError as exc:
                raise ApiError(422, "bad_name", f"game name: {exc}") from None
        now = _now()
        game_id = new_game_id()
        hotseat_token = new_token() if hotseat else None
        seat_rows: list[dict[str, Any]] = []
        out_seats: list[dict[str, Any]] = []
        humans = 0
        for i, spec in enumerate(seat_specs):
            kind = spec.get("type")
            if kind == "bot":
                if spec.get("open"):
                    raise ApiError(422, "bad_seats", f"seat {i}: only a human seat can be open")
                level = spec.get("level") or "medium"
                if level not in LEVELS:
                    raise ApiError(422, "bad_level", f"seat {i}: unknown bot level {level!r} (known: {', '.join(LEVELS)})")
                seat_rows.append(
                    {"seat": i, "type": "bot", "level": level, "name": None, "token_hash": None, "joined": True, "joined_at": now}
                )
                out_seats.append({"seat": i, "type": "bot", "level": level})
                continue
            humans += 1
            if spec.get("open") and hotseat:
                raise ApiError(422, "bad_seats", f"seat {i}: a hot-seat game has no open seats (everyone is at one screen)")
            seat_name = None
            if spec.get("name") is not None:
                try:
                    seat_name = clean_name(spec["name"])
                except ValueError as exc:
                    raise ApiError(422, "bad_name", f"seat {i}: {exc}") from None
            if hotseat:
                seat_rows.append(
                    {
                        "seat": i,
                        "type": "human",
                        "level": None,
                        "name": seat_name or f"Player {i + 1}",
                        "token_hash": None,
                        "joined": True,
                        "joined_at": now,
                    }
                )
                out_seats.append(
                    {"seat": i, "type": "human", "token": None, "join_url": f"/play/{game_id}?token={hotseat_token}"}
                )
            elif spec.get("open"):  # anyone may take it: no invitation token
                seat_rows.append(
                    {
                        "seat": i,
                        "type": "human",
                        "level": None,
                        "name": None,
                        "token_hash": None,
                        "joined": False,
                        "joined_at": None,
                    }
                )
                out_seats.append({"seat": i, "type": "human", "open": True})
            else:
                token = new_token()
                seat_rows.append(
                    {
                        "seat": i,
                        "type": "human",
                        "level": None,
                        "name": seat_name,
                        "token_hash": hash_token(token),
                        "joined": False,
                        "joined_at": None,
                    }
                )
                out_seats.append({"seat": i, "type": "human", "token": token, "join_url": f"/play/{game_id}?token={token}"})
        if hotseat and not humans:
            raise ApiError(422, "bad_seats", "a hot-seat game needs at least one human seat")
        status = ACTIVE if all(r["joined"] for r in seat_rows) else OPEN
        if creator is not None:
            self._check_caps(creator, bot_only=not humans)
        with self.db.write() as conn:
            conn.execute(
                games.insert().values(
                    id=game_id,
                    edition=edition,
                    players=players,
                    options=_dumps(game.options),
                    name=clean_title,
                    public=public,
                    hotseat=hotseat,
                    hotseat_token_hash=hash_token(hotseat_token) if hotseat_token else None,
                    seed=game.seed,
                    status=status,
                    seq=0,
                    action_count=0,
                    position=dumps_text(position_json(game)),
                    to_move=game.current,
                    bot_to_move=status == ACTIVE and any(seat_rows[p]["type"] == "bot" for p in game.to_act()),
                    clock=clock_json,
                    created_at=now,
                    updated_at=now,
                )
            )
            conn.execute(seats.insert(), [{"game_id": game_id, **r} for r in seat_rows])
            if status == ACTIVE:
                live = self._load(conn, game_id)
                assert live is not None
                live, _ = self._append(conn, live, now, [(None, Event("game_started", None, {}))])
        if creator is not None and self.max_games_per_client:
            with self._guard:
                self._created.setdefault(creator, []).append(game_id)
        out: dict[str, Any] = {"game_id": game_id, "seats": out_seats}
        if hotseat_token:
            out["hotseat_token"] = hotseat_token
            out["join_url"] = f"/play/{game_id}?token={hotseat_token}"
        return out

    def _check_caps(self, creator: str, bot_only: bool) -> None:
        """429 too_many_games when `creator` already has max_games_per_client games in play (counted in this process),
        or when max_bot_games bot-only games are in play on the server (counted in the database)."""
        if self.max_games_per_client:
            with self._guard:
                mine = list(self._created.get(creator, ()))
            if len(mine) >= self.max_games_per_client:
                with self.db.read() as conn:
                    rows = conn.execute(
                        sa.select(games.c.id).where(games.c.id.in_(mine), games.c.status.in_((OPEN, ACTIVE)))
                    ).all()
                still = {r.id for r in rows}
                with self._guard:
                    self._created[creator] = [g for g in self._created.get(creator, ()) if g in still or g not in mine]
                    if not self._created[creator]:
                        del self._created[creator]
                if len(still) >= self.max_games_per_client:
                    raise ApiError(
                        429,
                        "too_many_games",
                        f"you already have {len(still)} games in play (at most {self.max_games_per_client}): "
                        "finish or leave one first",
                        retry_after=60,
                    )
        if bot_only and self.max_bot_games:
            with self.db.read() as conn:
                count = conn.execute(
                    sa.select(sa.func.count())
                    .select_from(games)
                    .where(
                        games.c.status.in_((OPEN, ACTIVE)),
                        ~sa.exists().where(seats.c.game_id == games.c.id, seats.c.type == "human"),
                    )
                ).scalar_one()
            if count >= self.max_bot_games:
                raise ApiError(
                    429,
                    "too_many_games",
                    f"{count} bot-only games are already being played on this server (at most {self.max_bot_games}): "
                    "try again later, or take a seat yourself",
                    retry_after=60,
                )

    # ------------------------------------------------------------------ join
    def join(
        self, game_id: str, token: str | None, name: object, seat: int | None, user: User | None = None
    ) -> tuple[LiveGame, dict[str, Any]]:
        """Take a seat (`user`: signed in, the seat is bound to that account)."""
        try:
            display = clean_name(name)
        except ValueError as exc:
            raise ApiError(422, "bad_name", str(exc)) from None

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, dict[str, Any]]:
            if live.status == FINISHED:
                raise ApiError(409, "game_over", "the game is over")
            if live.status == ABANDONED:
                raise ApiError(409, "game_closed", "the game was closed after a long time without moves")
            issued: str | None = None
            if token:
                access = live.access(token)
                if access is None:
                    raise ApiError(401, "bad_token", "this token is not a seat of this game")
                target = seat if seat is not None else min(access.seats)
                if target not in access.seats:
                    raise ApiError(403, "not_your_seat", f"this token does not control seat {target}")
                issued = token
                prior = live.seats[target]
                if prior.joined and prior.name != display and self.rate_check is not None:
                    self.rate_check("rename", f"{live.id}/{target}")  # 429: this seat was renamed too often
            else:
                if not live.public:
                    raise ApiError(403, "private_game", "this game is private: join with your invitation link")
                free = [s.seat for s in live.seats if s.type == "human" and not s.joined]
                open_seats = [s for s in free if live.seats[s].open]
                if seat is not None:
                    if not 0 <= seat < live.players:
                        raise ApiError(422, "bad_seat", f"no seat {seat}; seats are 0-{live.players - 1}")
                    if seat not in free:
                        raise ApiError(409, "seat_taken", f"seat {seat} is not a free human seat")
                    if seat not in open_seats:
                        raise ApiError(
                            409, "seat_reserved", f"seat {seat} is reserved for an invited player (join with the invitation link)"
                        )
                    target = seat
                elif not free:
                    raise ApiError(409, "game_full", "every human seat is taken")
                elif not open_seats:
                    raise ApiError(
                        409, "seat_reserved", "the free seats are reserved for invited players (join with an invitation link)"
                    )
                else:
                    target = open_seats[0]
                issued = new_token()
            now = _now()
            old = live.seats[target]
            values: dict[str, Any] = {"name": display, "joined": True, "joined_at": now}
            if not token:
                values["token_hash"] = hash_token(issued)
            user_id, account = old.user_id, old.account
            if user is not None and not live.hotseat:
                _check_bindable(live, target, user)
                values["user_id"], user_id, account = user.id, user.id, user.name
            conn.execute(seats.update().where(seats.c.game_id == live.id, seats.c.seat == target).values(**values))
            new_seat = replace(
                old,
                name=display,
                joined=True,
                token_hash=values.get("token_hash", old.token_hash),
                user_id=user_id,
                account=account,
            )
            new_seats = tuple(new_seat if s.seat == target else s for s in live.seats)
            evs: list[tuple[int | None, Event]] = [(None, Event("player_joined", target, {"name": display}))]
            status = live.status
            rated = live.rated
            if status == OPEN and all(s.joined for s in new_seats):
                status = ACTIVE
                rated = is_rated(live, new_seats)
                if rated:
                    conn.execute(games.update().where(games.c.id == live.id).values(rated=True))
                evs.append((None, Event("game_started", None, {})))
            new, _ = self._append(conn, live, now, evs, seats=new_seats, status=status, rated=rated)
            return new, {"seat": target, "token": issued}

        return self._change(game_id, change)

    # ------------------------------------------------------------------ actions
    def submit(
        self, game_id: str, who: Access | str | None, seat: int | None, action_json: Any, expected_seq: int | None
    ) -> tuple[LiveGame, list[StoredEvent]]:
        """Apply one action for a seat that `who` (a token, or a bot's Access) controls. Raises ApiError, changing nothing.

        A token is checked against the game as it is inside the transaction, so a token revoked by another
        process a moment ago is refused.
        """
        if isinstance(who, Access) and who.spectator:
            raise ApiError(403, "spectator", "spectators cannot act: join a seat first")
        try:
            action = Action.from_json(action_json)
        except TTRError as exc:
            raise ApiError(400, "malformed", str(exc)) from None

        def prepare(live: LiveGame) -> _Move:
            """The checks and the engine's work, on a snapshot (no database)."""
            access = who if isinstance(who, Access) else authorise(live, who)
            if access.spectator:
                raise ApiError(403, "spectator", "spectators cannot act: join a seat first")
            g = live.game
            if live.status == OPEN:
                raise ApiError(409, "not_started", "the game starts when every human seat has joined")
            if live.status == FINISHED or g.is_over:
                raise ApiError(409, "game_over", "the game is over")
            if live.status == ABANDONED:
                raise ApiError(409, "game_closed", "the game was closed after a long time without moves")
            acting = seat
            to_act = g.to_act()
            if acting is None:
                acting = next((p for p in to_act if p in access.seats), min(access.seats))
            elif acting not in access.seats:
                raise ApiError(403, "not_your_seat", f"this token does not control seat {acting}")
            if expected_seq is not None and expected_seq != live.seq and not _others_chose(live, acting, expected_seq):
                raise ApiError(409, "state_changed", f"the game moved on (seq {live.seq}, you expected {expected_seq})")
            if acting not in to_act:
                if g.phase == "setup":
                    raise ApiError(409, "not_your_turn", "you have chosen your tickets; the others are still choosing")
                raise ApiError(409, "not_your_turn", f"it is player {g.current + 1}'s turn, not yours")
            after = g.clone()
            try:
                evs = after.apply(action, acting)
            except IllegalAction as exc:
                raise ApiError(409 if exc.code in CONFLICT_CODES else 422, exc.code, exc.reason) from None
            if not evs:  # e.g. declining to place a passenger: still an event, so every action has a seq
                evs = [Event(action.type, acting, {})]
            evs[0] = with_move(g, action, evs[0])
            position = dumps_text(position_json(after)) if self.position_due(g, after) else None
            return _Move(acting, after, evs, action_reveals(g, action, after), position)

        def write(conn: Connection, live: LiveGame, move: _Move) -> tuple[LiveGame, list[StoredEvent]]:
            idx = len(live.game.history)
            now = _now()
            row = {"game_id": live.id, "idx": idx, "seat": move.seat, "action": _dumps(action.to_json()), "reveals": move.reveals}
            return self._append(
                conn,
                live,
                now,
                [(idx, e) for e in move.events],
                position=move.position,
                action={**row, "at": now},
                game=move.game,
                actions=(*live.actions, (move.seat, move.reveals)),
            )

        # a move that ends the game also writes its finish (and ratings) in the same transaction
        return self._change_prepared(game_id, prepare, write, single_statement=lambda move: not move.game.is_over)

    def undo(self, game_id: str, token: str | None, seat: int | None) -> tuple[LiveGame, list[StoredEvent]]:
        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, list[StoredEvent]]:
            access = authorise(live, token)
            if seat is not None and seat not in access.seats:
                raise ApiError(403, "not_your_seat", f"this token does not control seat {seat}")
            keep = live.undo_check(access)
            if isinstance(keep, str):
                raise ApiError(409, "undo_unavailable", keep)
            record = live.game.record()
            undone_count = len(record["actions"]) - keep
            record["actions"] = record["actions"][:keep]
            record["actors"] = record["actors"][:keep]
            rebuilt = Game.replay(record, live.game.base_edition)
            conn.execute(actions.delete().where(actions.c.game_id == live.id, actions.c.idx >= keep))
            conn.execute(
                events.update()
                .where(events.c.game_id == live.id, events.c.action_idx >= keep, events.c.undone.is_(False))
                .values(undone=True)
            )
            flagged = [replace(e, undone=True) if (e.action_idx is not None and e.action_idx >= keep) else e for e in live.events]
            who = live.actions[keep][0]
            base = replace(live, events=flagged)
            return self._append(
                conn,
                base,
                _now(),
                [(None, Event("undo", who, {"actions": undone_count}))],
                game=rebuilt,
                actions=live.actions[:keep],
            )

        return self._change(game_id, change)

    # ------------------------------------------------------------------ bots
    def take_bot_lease(self, game_id: str, seq: int) -> bool:
        """Claim the right to play the bot turn at `seq` for a while; False if another process holds it or the game moved."""
        now = _now()
        with self.db.write() as conn:
            res = conn.execute(
                games.update()
                .where(
                    games.c.id == game_id,
                    games.c.seq == seq,
                    games.c.bot_to_move.is_(True),
                    sa.or_(
                        games.c.bot_lease_until.is_(None),
                        games.c.bot_lease_until < now,
                        games.c.bot_lease_owner == self.process_id,
                    ),
                )
                .values(bot_lease_owner=self.process_id, bot_lease_until=now + self.bot_lease)
            )
            return res.rowcount == 1

    def bot_games_due(self, idle_seconds: float) -> list[str]:
        """Active games waiting for a bot, unchanged for `idle_seconds` and not leased: their driver may have died."""
        now = _now()
        with self.db.read() as conn:
            rows = conn.execute(
                sa.select(games.c.id).where(
                    games.c.status == ACTIVE,
                    games.c.bot_to_move.is_(True),
                    games.c.updated_at <= now - timedelta(seconds=idle_seconds),
                    sa.or_(  # our own lease too: a driver of ours that stopped early is started again
                        games.c.bot_lease_until.is_(None),
                        games.c.bot_lease_until < now,
                        games.c.bot_lease_owner == self.process_id,
                    ),
                )
            ).all()
        return [r.id for r in rows]

    # ------------------------------------------------------------------ lists
    def list_games(self, status: str | None, limit: int = 200) -> list[dict[str, Any]]:
        """Public games, newest first (private games are reachable only through their links)."""
        with self.db.read() as conn:
            q = sa.select(games.c.id).where(games.c.public.is_(True))
            if status:
                q = q.where(games.c.status == status)
            ids = [r.id for r in conn.execute(q.order_by(games.c.updated_at.desc()).limit(limit)).all()]
        out = []
        for gid in ids:
            try:
                out.append(self.get(gid).summary())
            except ApiError:  # deleted in between
                continue
        return out

    # ------------------------------------------------------------------ accounts
    def my_games(self, user: User, limit: int = 200) -> list[dict[str, Any]]:
        """The games `user`'s seats are in, newest change first, with whose turn it is."""
        with self.db.read() as conn:
            rows = conn.execute(
                sa.select(
                    games.c.id,
                    games.c.name,
                    games.c.edition,
                    games.c.players,
                    games.c.status,
                    games.c.to_move,
                    games.c.rated,
                    games.c.updated_at,
                    seats.c.seat,
                )
                .select_from(seats.join(games, games.c.id == seats.c.game_id))
                .where(seats.c.user_id == user.id)
                .order_by(games.c.updated_at.desc())
                .limit(limit)
            ).all()
        return [
            {
                "game_id": r.id,
                "name": r.name,
                "edition": r.edition,
                "players": r.players,
                "status": r.status,
                "rated": bool(r.rated),
                "seat": r.seat,
                "to_move": r.to_move if r.status == ACTIVE else None,
                "your_turn": r.status == ACTIVE and r.to_move == r.seat,
                "updated_at": _iso(r.updated_at),
            }
            for r in rows
        ]

    def claim(self, game_id: str, token: str | None, user: User) -> tuple[LiveGame, dict[str, Any]]:
        """Bind the seat(s) a guest's token controls to `user` (running and finished games alike)."""

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, dict[str, Any]]:
            access = authorise(live, token)
            if live.hotseat:
                raise ApiError(409, "hotseat", "a hot-seat game's seats belong to one screen, not to accounts")
            (target,) = access.seats
            if not live.seats[target].joined:
                raise ApiError(409, "not_joined", "join the seat first")
            if live.seats[target].user_id == user.id:
                return live, {"seat": target, "claimed": False}
            _check_bindable(live, target, user)
            conn.execute(seats.update().where(seats.c.game_id == live.id, seats.c.seat == target).values(user_id=user.id))
            new_seats = tuple(replace(s, user_id=user.id, account=user.name) if s.seat == target else s for s in live.seats)
            new, _ = self._append(conn, live, _now(), [(None, Event("seat_claimed", target, {}))], seats=new_seats)
            return new, {"seat": target, "claimed": True}

        return self._change(game_id, change)

    def resume(self, game_id: str, user: User) -> tuple[LiveGame, dict[str, Any]]:
        """A new token for `user`'s seat in a game (the seat's old link stops working): how an account gets back
        into a game without the link."""

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, dict[str, Any]]:
            mine = [s for s in live.seats if s.user_id == user.id]
            if not mine:
                raise ApiError(403, "not_your_game", "your account has no seat in this game")
            target = mine[0].seat
            token = new_token()
            h = hash_token(token)
            conn.execute(seats.update().where(seats.c.game_id == live.id, seats.c.seat == target).values(token_hash=h))
            new_seats = tuple(replace(s, token_hash=h) if s.seat == target else s for s in live.seats)
            # an event, so that every process's cached snapshot (and the old token with it) is replaced
            new, _ = self._append(conn, live, _now(), [(None, Event("seat_resumed", target, {}))], seats=new_seats)
            return new, {"seat": target, "token": token, "join_url": f"/play/{live.id}?token={token}"}

        return self._change(game_id, change)

    # ------------------------------------------------------------------ clocks
    def clock_scan(self, limit: int = 100) -> tuple[list[str], datetime | None]:
        """Games whose seat to move has run out of time, and the next deadline after now (None: none)."""
        now = _now()
        with self.db.read() as conn:
            due = [
                r.id
                for r in conn.execute(
                    sa.select(games.c.id)
                    .where(games.c.deadline <= now, games.c.status == ACTIVE)
                    .order_by(games.c.deadline)
                    .limit(limit)
                ).all()
            ]
            nxt = conn.execute(
                sa.select(sa.func.min(games.c.deadline)).where(games.c.deadline > now, games.c.status == ACTIVE)
            ).scalar()
        return due, _aware(nxt)

    def timeout(self, game_id: str) -> tuple[LiveGame, bool]:
        """Fire the game's deadline if it has passed: the seat to move is taken over by the clock's bot (or dropped).
        The deadline is read again with the game's row locked (FOR UPDATE on PostgreSQL), so when two processes
        both see it due, the second finds it gone and does nothing: a timeout fires once."""

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, bool]:
            deadline = _aware(conn.execute(sa.select(games.c.deadline).where(games.c.id == live.id)).scalar())
            if deadline is None or deadline > _now() or live.status != ACTIVE or live.clock is None or live.game.is_over:
                return live, False
            # every seat of a person that may act runs out at once: in setup each one still choosing its tickets
            late_seats = [p for p in live.game.to_act() if not live.seats[p].by_bot]
            drop = live.clock.get("on_timeout") == "drop"
            level = live.clock.get("bot_level") or "medium"
            values = {"away": not drop, "dropped": drop, "level": level}
            if late_seats:
                conn.execute(seats.update().where(seats.c.game_id == live.id, seats.c.seat.in_(late_seats)).values(**values))
            new_seats = tuple(replace(s, **values) if s.seat in late_seats else s for s in live.seats)
            late = (_now() - deadline).total_seconds()
            mode = {"mode": "drop" if drop else "bot", "level": level, "deadline": _iso(deadline)}
            evs: list[tuple[int | None, Event]] = [(None, Event("timeout", p, dict(mode))) for p in late_seats]
            changes: dict[str, Any] = {"seats": new_seats}
            if live.rated and late_seats and not drop:
                # a bot now plays a person's seat: its moves must not count for or against anyone's rating
                conn.execute(games.update().where(games.c.id == live.id).values(rated=False))
                changes["rated"] = False
            new, _ = self._append(conn, live, _now(), evs, **changes)
            self.last_timeout_lateness = late
            return new, True

        return self._change(game_id, change)

    def take_back(self, game_id: str, token: str | None, seat: int | None) -> tuple[LiveGame, int]:
        """A player back after a timeout takes their seat back from the bot (not when dropped)."""

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, int]:
            access = authorise(live, token)
            target = seat if seat is not None else min(access.seats)
            if target not in access.seats:
                raise ApiError(403, "not_your_seat", f"this token does not control seat {target}")
            s = live.seats[target]
            if s.dropped:
                raise ApiError(409, "dropped", "you were dropped from this game when your time ran out")
            if not s.away:
                raise ApiError(409, "not_away", "your seat is not played by a bot")
            if live.status != ACTIVE:
                raise ApiError(409, "game_over", "the game is over")
            conn.execute(seats.update().where(seats.c.game_id == live.id, seats.c.seat == target).values(away=False, level=None))
            new_seats = tuple(replace(x, away=False, level=None) if x.seat == target else x for x in live.seats)
            new, _ = self._append(conn, live, _now(), [(None, Event("seat_returned", target, {}))], seats=new_seats)
            return new, target

        return self._change(game_id, change)
