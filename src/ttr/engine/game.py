"""The rules engine: one ``Game`` is one complete, exact, seeded game of any edition.

Pure standard library, no I/O, no clock: every random choice comes from the game's own
``random.Random(seed)``. The public surface:

* ``Game(edition, players, seed, options)`` — a new game (setup dealt, first player drawn);
* ``to_act()`` — the seats that may act now (in setup every seat still choosing its initial tickets,
  in any order; otherwise ``current``);
* ``legal_actions(player=None)`` / ``is_legal(action, player=None)`` / ``apply(action, player=None) -> events``
  / ``step(action, player=None)`` — for ``current``, or for another seat that may act (setup);
* ``view(player)`` — what that player may know (``PlayerView``, JSON via ``to_dict``);
* ``to_dict()`` / ``Game.from_dict()`` — the full position, round-trip exact;
* ``record()`` / ``replay(record)`` — seed + actions, reproduces the game;
* ``result()`` — the final scoring breakdown (also available mid-game, as if it ended now);
  ``outcome`` — how a finished game ended (typed).

This module holds the game's state, the turn structure (which phase allows which actions:
``phases.PHASE_ACTIONS``) and the dispatch of each action to its mechanism. Each mechanism lives in
one module, with its legal moves, its checks and its effects:

* ``drawing``    — train cards, the market and its flushes, blind and face-up draws;
* ``tickets``    — dealing and keeping destination tickets (and Märklin's short/long mixes);
* ``claims``     — claiming routes, double lanes, tunnels and ferries (payments in ``payments``);
* ``stations``   — building stations (Europe);
* ``passengers`` — passengers and merchandise (Märklin; trails in ``trails``);
* ``ending``     — end of turn and of the game, final scoring (graph parts in ``scoring``);
* ``position``   — the full position as JSON and back.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from ..cards import LOCOMOTIVE, NCARDS, NO_CARD, Cards
from ..editions import Edition, Route, Ticket, check_options, get_edition, with_options
from ..editions.derived import PER_EDITION_MAX, IdentityCache
from ..errors import EditionError, IllegalAction, MalformedAction, PositionError, SetupError
from . import claims, drawing, ending, passengers, position, stations, tickets
from . import payments as pay
from .actions import (
    A_DRAW_BLIND,
    A_DRAW_FACEUP,
    A_DRAW_TICKETS,
    A_PASS,
    A_PLACE_NONE,
    A_TUNNEL_DECLINE,
    BUILD_STATION,
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    MOVE_PASSENGER,
    PASS,
    PLACE_PASSENGER,
    TUNNEL_DECLINE,
    TUNNEL_PAY,
    Action,
)
from .events import Event
from .outcome import EndReason, Outcome
from .passengers import PASSENGER_GONE, PASSENGER_UNPLACED, TRAIL_SEARCH_LIMIT
from .phases import KEEP, OVER, PHASE_ACTIONS, PHASES, PLACE, SECOND_CARD, SETUP, TUNNEL, Phase
from .position import POSITION_FORMAT
from .view import PlayerView

__all__ = [
    "OVER",
    "PASSENGER_GONE",
    "PASSENGER_UNPLACED",
    "PHASES",
    "PHASE_ACTIONS",
    "POSITION_FORMAT",
    "TRAIL_SEARCH_LIMIT",
    "Game",
    "Phase",
    "edition_with_options",
]

_with_options: IdentityCache[Edition] = IdentityCache(PER_EDITION_MAX)


def edition_with_options(edition: Edition, options: Mapping[str, Any] | None) -> Edition:
    """The edition with rule options (house rules) applied, validated like a map file. Memoised per base
    edition object and option set (a bounded cache): the same request gives the same edition object.
    `options` is checked whatever it holds (it often comes straight from a request), so it is typed as a
    Mapping: a compiled (mypyc) build then refuses a non-object with the same EditionError, not a TypeError."""
    if not options:
        return edition
    check_options(edition, options)  # types and ranges first, whatever the options hold (before hashing them)
    key = json.dumps(options, sort_keys=True)
    return _with_options.get(edition, key, lambda: with_options(edition, dict(options)))


class Game:
    """A game in progress. See the module docstring for the public surface."""

    __slots__ = (
        "_claim_cache",
        "_final_result",
        "_labels",
        "_legal_cache",
        "_trail_cache",
        "base_edition",
        "current",
        "deck",
        "discard",
        "edition",
        "final_turns",
        "first_player",
        "hands",
        "history",
        "history_seats",
        "last_claimed",
        "market",
        "merch",
        "n",
        "offered",
        "options",
        "pass_streak",
        "passenger_at",
        "passengers",
        "phase",
        "removed_tickets",
        "rng",
        "route_owner",
        "rules",
        "scores",
        "seed",
        "setup_returned",
        "setup_waiting",
        "station_owner",
        "stations_left",
        "ticket_decks",
        "tickets",
        "tokens",
        "trains",
        "tunnel",
        "turn",
    )

    def __init__(
        self,
        edition: Edition | str = "usa",
        players: Any = 2,  # an int; Any because untrusted input is checked here (SetupError), also when compiled
        seed: Any = 0,
        options: Mapping[str, Any] | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        base = get_edition(edition) if isinstance(edition, str) else edition
        self.base_edition = base
        self.edition = ed = edition_with_options(base, options)  # checked before anything copies it
        self.options = dict(options or {})
        self.rules = r = ed.rules
        if _blank:
            return
        if not isinstance(players, int) or not r.players[0] <= players <= r.players[1]:
            raise SetupError(f"{ed.name} is for {r.players[0]}-{r.players[1]} players, not {players}", "player_count")
        if not isinstance(seed, int):
            raise SetupError(f"seed must be an integer, got {seed!r}", "seed")
        self.n = n = players
        self.seed = seed
        self.rng = rng = random.Random(seed)
        deck = [card for card in range(NCARDS) for _ in range(ed.deck[card])]
        rng.shuffle(deck)
        self.deck = deck
        self.discard: list[int] = []
        self.market = [NO_CARD] * r.market_size
        self.hands = [[0] * NCARDS for _ in range(n)]
        for _ in range(r.starting_hand):
            for p in range(n):
                if deck:
                    self.hands[p][deck.pop()] += 1
        drawing.refill_market(self, None)
        self.trains = [r.trains] * n
        self.scores = [0] * n
        self.route_owner = [-1] * len(ed.routes)
        self.tickets: list[list[int]] = [[] for _ in range(n)]
        self.offered: list[list[int]] = [[] for _ in range(n)]
        self.ticket_decks: dict[str, list[int]] = {}
        for d in ed.ticket_decks:
            cards = [t.index for t in ed.tickets if t.deck == d]
            rng.shuffle(cards)
            self.ticket_decks[d] = cards
        self.removed_tickets: list[int] = []
        self.stations_left = [r.stations] * n
        self.station_owner = [-1] * ed.ncities
        self.passengers = [[PASSENGER_UNPLACED] * r.passengers for _ in range(n)]
        self.passenger_at = [-1] * ed.ncities
        self.merch = [list(reversed(stack)) for stack in ed.merchandise]  # top of stack = end of list
        self.tokens: list[list[int]] = [[] for _ in range(n)]
        self.first_player = rng.randrange(n)
        self.current = self.first_player
        self.phase = SETUP
        # setup: every seat still choosing its initial tickets (in turn order), and what each returned
        self.setup_waiting = [(self.first_player + i) % n for i in range(n)]
        self.setup_returned: list[list[int]] = [[] for _ in range(n)]
        self.final_turns = -1
        self.pass_streak = 0
        self.turn = 0
        self.tunnel: tuple[int, Cards, list[int], int, int] | None = None  # route, paid, revealed, extra, colour
        self.last_claimed = -1
        self.history: list[Action] = []
        self.history_seats: list[int] = []  # who played each action of `history`
        self._legal_cache: tuple[Action, ...] | None = None
        self._final_result: dict[str, Any] | None = None
        self.reset_caches()
        pol = r.initial_tickets
        if not pol.choose_mix:
            for i in range(n):
                p = (self.first_player + i) % n
                self.offered[p] = tickets.deal_tickets(self, pol.deal)
            tickets.skip_empty_setup(self)

    # ------------------------------------------------------------------ basics
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def clone(self) -> Game:
        """A deep, independent copy (cheap: lists of ints; the edition is shared)."""
        g = Game.__new__(Game)
        g.edition, g.base_edition, g.options, g.rules = self.edition, self.base_edition, self.options, self.rules
        g.n, g.seed = self.n, self.seed
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        g.deck, g.discard, g.market = self.deck[:], self.discard[:], self.market[:]
        g.hands = [h[:] for h in self.hands]
        g.trains, g.scores, g.route_owner = self.trains[:], self.scores[:], self.route_owner[:]
        g.tickets = [t[:] for t in self.tickets]
        g.offered = [t[:] for t in self.offered]
        g.ticket_decks = {k: v[:] for k, v in self.ticket_decks.items()}
        g.removed_tickets = self.removed_tickets[:]
        g.stations_left, g.station_owner = self.stations_left[:], self.station_owner[:]
        g.passengers = [p[:] for p in self.passengers]
        g.passenger_at = self.passenger_at[:]
        g.merch = [m[:] for m in self.merch]
        g.tokens = [t[:] for t in self.tokens]
        g.phase, g.current, g.first_player = self.phase, self.current, self.first_player
        g.setup_waiting, g.setup_returned = self.setup_waiting[:], [t[:] for t in self.setup_returned]
        g.final_turns, g.pass_streak, g.turn = self.final_turns, self.pass_streak, self.turn
        g.tunnel = None if self.tunnel is None else (*self.tunnel[:2], self.tunnel[2][:], *self.tunnel[3:])
        g.last_claimed = self.last_claimed
        g.history = self.history[:]
        g.history_seats = self.history_seats[:]
        g._legal_cache = None
        g._final_result = self._final_result
        g._labels = self._labels[:]  # entries are never changed in place, only replaced
        g._claim_cache = self._claim_cache.copy()
        g._trail_cache = dict(self._trail_cache)
        return g

    def reset_caches(self) -> None:
        """Forget every derived answer kept between moves (after the position was changed from outside)."""
        self._legal_cache = None
        self._labels: list[list[int] | None] = [None] * self.n
        self._claim_cache: claims.ClaimCache = claims.new_claim_cache(self)
        # (player, start city) -> (passenger cards, cities reachable from the start, trips): passengers.py
        self._trail_cache: dict[tuple[int, int], tuple[int, frozenset[int], dict[int, tuple[int, list[int]]]]] = {}

    def _next(self, p: int) -> int:
        return (p + 1) % self.n

    @property
    def setup_left(self) -> int:
        """How many seats still choose their initial tickets (0 after setup)."""
        return len(self.setup_waiting)

    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now. In setup every seat still choosing its initial tickets, in turn
        order from the first player, in any order they like (``current`` is the first of them); later
        only ``current``; none once the game is over."""
        if self.phase == SETUP:
            return tuple(self.setup_waiting)
        if self.phase == OVER:
            return ()
        return (self.current,)

    def legal_actions(self, player: int | None = None) -> tuple[Action, ...]:
        """Every legal action now (claims and stations with their canonical payments), in a fixed order,
        for ``current`` or for `player` (empty when `player` may not act now: see ``to_act``).

        An immutable tuple, computed once per position: callers may keep it but cannot change it."""
        if player is None or player == self.current:
            legal = self._legal_cache
            if legal is None:
                legal = self._legal_cache = tuple(self._generate(self.current))
            return legal
        if self.phase == SETUP and player in self.setup_waiting:
            return tuple(self._generate(player))
        return ()

    def _generate(self, p: int) -> list[Action]:
        phase = self.phase
        if phase == SECOND_CARD:
            out = [A_DRAW_BLIND] if self.deck or self.discard else []
            single = self.rules.faceup_locomotive_single
            for i, c in enumerate(self.market):
                if c != NO_CARD and not (single and c == LOCOMOTIVE):
                    out.append(A_DRAW_FACEUP[i])
            return out
        if phase in (SETUP, KEEP):
            offered = self.offered[p]
            if not offered:  # Märklin setup: name the mix first
                return list(tickets.mix_actions(self))
            return [Action(KEEP_TICKETS, tickets=k) for k in tickets.keep_choices(self, offered)]
        if phase == TUNNEL:
            assert self.tunnel is not None
            _, _, _, extra, colour = self.tunnel
            acts = [Action(TUNNEL_PAY, cards=c) for c in pay.tunnel_payments(extra, colour, self.hands[p])]
            acts.append(A_TUNNEL_DECLINE)
            return acts
        if phase == PLACE:
            route = self.edition.routes[self.last_claimed]
            acts = [
                Action(PLACE_PASSENGER, city=self.edition.city_ids[c])
                for c in (route.a, route.b)
                if passengers.can_place(self, c)
            ]
            acts.append(A_PLACE_NONE)
            return acts
        if phase == OVER:
            return []
        out = self.turn_actions(p)
        return out or [A_PASS]

    def turn_actions(self, p: int) -> list[Action]:
        market = self.market
        out: list[Action] = [A_DRAW_BLIND] if self.deck or self.discard else []
        if NO_CARD in market:
            out.extend(A_DRAW_FACEUP[i] for i, c in enumerate(market) if c != NO_CARD)
        else:
            out.extend(A_DRAW_FACEUP[: len(market)])
        pol = self.rules.draw_tickets
        if pol.choose_mix:
            out.extend(tickets.mix_actions(self))
        else:
            decks = self.ticket_decks
            for deck_name, _ in pol.deal:
                if decks.get(deck_name):
                    out.append(A_DRAW_TICKETS)
                    break
        out.extend(claims.claim_actions(self, p))
        if self.stations_left[p]:
            out.extend(stations.station_actions(self, p))
        if self.rules.passengers:
            out.extend(passengers.passenger_moves(self, p))
        return out

    def is_legal(self, action: Action | Any, player: int | None = None) -> bool:
        """Whether `action` would be accepted now for ``current`` or `player` (without changing anything)."""
        try:
            self._check(Action.from_json(action), self._actor(player))
        except IllegalAction:
            return False
        return True

    def _actor(self, player: int | None) -> int:
        """Who acts: ``current``, or `player` if that seat may act now (setup: any seat still choosing)."""
        p = self.current
        if player is not None and player != p:
            if self.phase == OVER:
                raise IllegalAction("the game is over", "game_over")
            if self.phase == SETUP:
                if player in self.setup_waiting:
                    return player
                if isinstance(player, int) and 0 <= player < self.n:
                    raise IllegalAction(
                        f"player {player} has chosen their tickets; the others are still choosing", "not_your_turn"
                    )
            raise IllegalAction(f"it is player {p}'s turn, not player {player}'s", "not_your_turn")
        return p

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action | Any, player: int | None = None) -> list[Event]:
        """Apply one action for the player to move (or `player`, checked) and return its events.

        Raises IllegalAction (or MalformedAction) with the reason; the game is then unchanged.
        """
        events: list[Event] = []
        self._apply(action, player, events)
        return events

    def step(self, action: Action | Any, player: int | None = None) -> None:
        """``apply`` without building events: the fast path for simulations and search."""
        self._apply(action, player, None)

    def _apply(self, action: Action | Any, player: int | None, ev: list[Event] | None) -> None:
        a = action if isinstance(action, Action) else Action.from_json(action)
        p = self.current if player is None else self._actor(player)
        checked = self._check(a, p)
        self._legal_cache = None
        self.history.append(a)
        self.history_seats.append(p)
        kind = a.type
        if kind == DRAW_BLIND:
            drawing.draw_blind(self, p, ev)
        elif kind == DRAW_FACEUP:
            drawing.draw_faceup(self, p, a.slot, ev)  # type: ignore[arg-type]
        elif kind == CLAIM:
            claims.claim(self, p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == DRAW_TICKETS:
            tickets.draw_tickets(self, p, a, ev)
        elif kind == KEEP_TICKETS:
            tickets.keep(self, p, checked, ev)
        elif kind == TUNNEL_PAY:
            claims.tunnel_pay(self, p, a.cards, ev)  # type: ignore[arg-type]
        elif kind == TUNNEL_DECLINE:
            claims.tunnel_decline(self, p, ev)
        elif kind == BUILD_STATION:
            stations.build_station(self, p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == PLACE_PASSENGER:
            passengers.place(self, p, checked, ev)
        elif kind == MOVE_PASSENGER:
            passengers.move_passenger(self, p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == PASS:
            self.pass_streak += 1
            if ev is not None:
                ev.append(Event("pass", p, {}))
            ending.end_turn(self, ev, passed=True)

    def _check(self, a: Action, p: int) -> Any:
        """Validate `a` for player `p` without side effects; returns what the mechanism's effect needs.
        Each action type's check lives with its mechanism (``_CHECKS``)."""
        phase = self.phase
        kind = a.type
        if phase == OVER:
            raise IllegalAction("the game is over", "game_over")
        if phase == SETUP:
            if p not in self.setup_waiting:
                raise IllegalAction("you have chosen your tickets; the others are still choosing", "not_your_turn")
            if kind not in _SETUP_CHECKED:
                raise IllegalAction("first choose your destination tickets", "wrong_phase")
        check = _CHECKS.get(kind)
        if check is None:
            raise MalformedAction(f"unknown action type {kind!r}")
        return check(self, a, p)

    # ------------------------------------------------------------------ public queries (see each mechanism)
    def route_claim_problem(self, route: Route, p: int) -> str | None:
        """Why player p cannot claim `route` now, ignoring cards (None: p may, given the cards)."""
        return claims.route_claim_problem(self, route, p)

    def claim_problems(self, p: int) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every route p cannot claim now, with why: route id -> (code, parameters); see claims.claim_problem.
        A route absent from the answer is claimable by p with some legal payment (in p's turn)."""
        out = {}
        for route in self.edition.routes:
            problem = claims.claim_problem(self, route, p)
            if problem is not None:
                out[route.id] = problem
        return out

    def ticket_report(self, p: int) -> list[dict[str, Any]]:
        """Player p's tickets as the end would score them now (with stations), and one path of each done."""
        return ending.ticket_report(self, p)

    def lane_closed(self, route: Route, p: int) -> bool:
        """Whether `route` is closed to p because of its twin lanes (doubles at 2-3 players, or p owns one)."""
        return claims.lane_closed(self, route, p)

    def ticket_mixes(self) -> list[tuple[tuple[str, int], ...]]:
        """The short/long mixes the player to move may name now (Märklin)."""
        return tickets.ticket_mixes(self)

    def passenger_trails(self, p: int, start: int, max_foreign: int) -> dict[int, tuple[int, list[int]]]:
        """The best trip for p's passenger at `start` per number of passenger cards used (Märklin)."""
        found = passengers.passenger_trails(self, p, start, max_foreign)
        return {k: (points, path[:]) for k, (points, path) in found.items()}

    def connectivity(self, p: int) -> list[int]:
        """Component label per city over player p's own routes (cached until p claims again)."""
        return ending.connectivity(self, p)

    def ticket_status(self, p: int) -> list[tuple[Ticket, bool]]:
        """Player p's tickets and whether each is connected now (own routes only)."""
        return ending.ticket_status(self, p)

    def result(self) -> dict[str, Any]:
        """The final scoring breakdown (mid-game: as if the game ended now)."""
        return ending.result(self)

    def to_dict(self) -> dict[str, Any]:
        """The full position as JSON (``Game.from_dict`` reads it back exactly)."""
        return position.to_dict(self)

    def compute_legal_actions(self) -> list[Action]:
        """The legal actions computed afresh, bypassing the per-position cache (for benchmarks)."""
        return self._generate(self.current)

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (None while it goes on). Read from the position itself: the final round
        ran out (``final_turns`` reached 0, checked first, as in ``_end_turn``) or everyone passed."""
        if self.phase != OVER:
            return None
        reason = EndReason.TRAINS if self.final_turns == 0 else EndReason.STALEMATE
        res = ending.result(self)
        return Outcome(tuple(res["winners"]), reason, tuple(x["total"] for x in res["players"]))

    # ------------------------------------------------------------------ views
    def view(self, player: int | None) -> PlayerView:
        """What `player` may know (None: a spectator's public view)."""
        return PlayerView(self, player)

    # ------------------------------------------------------------------ records
    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "format": POSITION_FORMAT,
            "edition": self.base_edition.id,
            "options": self.options,
            "players": self.n,
            "seed": self.seed,
            "actions": [a.to_json() for a in self.history],
            "actors": self.history_seats[:],  # who played each action (in setup, seats choose in any order)
        }
        if self.phase == OVER:
            res = ending.result(self)
            rec["result"] = {"scores": [x["total"] for x in res["players"]], "winners": res["winners"]}
        return rec

    @classmethod
    def replay(cls, record: Any, edition: Edition | None = None) -> Game:
        """Rebuild a game from its record; raises PositionError if an action does not apply."""
        try:
            g = cls(edition or record["edition"], record["players"], record["seed"], record.get("options"))
            actions = record["actions"]
            seats = record.get("actors")  # absent in records of format 1 (setup one seat after the other)
            if seats is not None and (not isinstance(seats, list) or len(seats) != len(actions)):
                raise TypeError("'actors' must list one seat per action")
        except (KeyError, TypeError) as exc:
            raise PositionError(f"malformed record: missing or bad field {exc}") from None
        for i, a in enumerate(actions):
            try:
                g.step(a, None if seats is None else seats[i])
            except IllegalAction as exc:
                raise PositionError(f"record action #{i} ({a}) is illegal: {exc}") from None
        return g

    @classmethod
    def from_dict(cls, data: Any, edition: Edition | None = None) -> Game:
        """Rebuild a position saved by ``to_dict``. Raises PositionError naming the bad field."""
        try:
            return position.from_dict(cls, data, edition)
        except PositionError:
            raise
        except EditionError as exc:
            raise PositionError(f"position: {exc}") from None
        except IllegalAction as exc:
            raise PositionError(f"position: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise PositionError(f"malformed position: {type(exc).__name__}: {exc}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and position.to_dict(self) == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Game {self.edition.id} {self.n}p seed={self.seed} turn={self.turn} phase={self.phase} player={self.current}>"


# Each action type's check, with its mechanism. In setup only the ticket actions are checked further
# (a draw names the phase in its refusal); every other action is refused as "first choose your tickets".
_CHECKS: dict[str, Callable[[Game, Action, int], Any]] = {
    DRAW_BLIND: drawing.check_draw,
    DRAW_FACEUP: drawing.check_draw,
    DRAW_TICKETS: tickets.check_draw_tickets,
    KEEP_TICKETS: tickets.check_keep,
    CLAIM: claims.check_claim,
    TUNNEL_PAY: claims.check_tunnel,
    TUNNEL_DECLINE: claims.check_tunnel,
    BUILD_STATION: stations.check_station,
    PLACE_PASSENGER: passengers.check_place,
    MOVE_PASSENGER: passengers.check_move,
    PASS: ending.check_pass,
}
_SETUP_CHECKED = frozenset({DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS, KEEP_TICKETS})
