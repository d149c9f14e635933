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
from ..editions import Edition, Route, Rules, Ticket, check_options, get_edition, with_options
from ..editions.derived import PER_EDITION_MAX, IdentityCache
from ..errors import EditionError, IllegalAction, MalformedAction, PositionError, SetupError
from . import claims, drawing, ending, passengers, position, state, stations, tickets
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
from .passengers import PASSENGER_GONE, PASSENGER_UNPLACED, TRAIL_SEARCH_LIMIT, TrailEntry
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

    __slots__ = state.SLOTS  # every field is declared once, in state.FIELDS (how it is copied and saved)
    # the attributes' types (read them, never assign them from outside): tests/engine/test_state_fields.py
    # checks these against state.FIELDS
    edition: Edition  # the edition with the game's rule options applied
    base_edition: Edition
    options: dict[str, Any]
    rules: Rules
    n: int  # players
    seed: int
    rng: random.Random
    phase: Phase
    current: int  # the player to act (in setup: the first seat still choosing)
    first_player: int
    setup_waiting: list[int]  # setup: the seats still choosing their initial tickets, in turn order
    setup_returned: list[list[int]]  # setup: the tickets each seat returned (back in the deck after setup)
    final_turns: int  # turns left in the final round (-1: not started)
    pass_streak: int
    turn: int
    deck: list[int]  # train cards, top at the end
    discard: list[int]
    market: list[int]  # face-up slots (NO_CARD: empty)
    hands: list[list[int]]  # per player, the count of each card kind
    trains: list[int]
    scores: list[int]
    route_owner: list[int]  # per route, its owner (-1: free)
    tickets: list[list[int]]  # per player, the tickets kept
    offered: list[list[int]]  # per player, the tickets drawn and not yet kept
    ticket_decks: dict[str, list[int]]  # per deck, top at the end
    removed_tickets: list[int]
    stations_left: list[int]
    station_owner: list[int]  # per city
    passengers: list[list[int]]  # per player, each passenger's city (PASSENGER_UNPLACED / PASSENGER_GONE)
    passenger_at: list[int]  # per city, whose passenger is there (-1: none)
    merch: list[list[int]]  # per city, its merchandise stack (top at the end)
    tokens: list[list[int]]  # per player, the merchandise tokens taken
    tunnel: tuple[int, Cards, list[int], int, int] | None  # route, paid, revealed, extra, colour
    last_claimed: int
    history: list[Action]
    history_seats: list[int]  # who played each action of `history`
    _legal_cache: tuple[Action, ...] | None
    _final_result: dict[str, Any] | None
    _labels: list[list[int] | None]
    _claim_cache: claims.ClaimCache
    _trail_cache: dict[tuple[int, int], TrailEntry]

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
        state.start(self)  # every field as a new game has it before the deal (state.FIELDS)
        # the deal, in this order (the random generator's draws are part of every stored game)
        rng = self.rng
        deck = [card for card in range(NCARDS) for _ in range(ed.deck[card])]
        rng.shuffle(deck)
        self.deck = deck
        hands = self.hands
        for _ in range(r.starting_hand):
            for p in range(n):
                if deck:
                    hands[p][deck.pop()] += 1
        drawing.refill_market(self, None)
        for d in ed.ticket_decks:
            cards = [t.index for t in ed.tickets if t.deck == d]
            rng.shuffle(cards)
            self.ticket_decks[d] = cards
        self.first_player = self.current = rng.randrange(n)
        self.setup_waiting = [(self.first_player + i) % n for i in range(n)]  # every seat chooses its tickets
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
        # the blank constructor, not Game.__new__(Game): compiled with mypyc, __new__ runs the whole __init__
        # (a default game dealt, about 30 µs, then overwritten); this costs about 1 µs either way
        g = Game(self.edition, _blank=True)
        state.copy_state(self, g)  # field by field, as state.FIELDS says
        return g

    def reset_caches(self) -> None:
        """Forget every derived answer kept between moves (after the position was changed from outside)."""
        self._legal_cache = None
        self._labels = [None] * self.n
        self._claim_cache = claims.new_claim_cache(self)
        # (player, start city) -> (passenger cards, cities the search looked at, trips, moves): passengers.py
        self._trail_cache = {}

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
        kind = a.type
        legal = self._legal_cache
        if player is None and legal is not None and kind in _OFFERED_SKIP_CHECK and a in legal:
            # one of the moves just offered (found by identity first: callers mostly pass the offered action
            # itself): legal by construction, so not checked again; a claim's check returns its route
            ed = self.edition
            checked: Any = ed.routes[ed.route_index[a.route]] if kind == CLAIM else None  # type: ignore[index]
        else:
            checked = self._check(a, p)
        self._legal_cache = None
        self.history.append(a)
        self.history_seats.append(p)
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
            passengers.move_passenger(self, p, checked, a.cards or passengers.NO_CARDS, ev)
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

    def claim_problem_codes(self, p: int) -> dict[str, str]:
        """Every route p cannot claim now, with why as a code (route id -> code); see claims.claim_problem_codes."""
        return claims.claim_problem_codes(self, p)

    def claim_problems(self, p: int) -> dict[str, dict[str, Any]]:
        """Every route p cannot claim now, with why: route id -> {"code", parameters...}; see claims.claim_problems.
        A route absent from the answer is claimable by p with some legal payment (in p's turn)."""
        return claims.claim_problems(self, p)

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

    def totals(self) -> list[int]:
        """Each player's total of ``result()`` (mid-game: as if the game ended now), without the breakdown."""
        return ending.totals(self)

    def tie_breaks(self) -> list[dict[str, Any]]:
        """How every tie on points of ``result()`` is settled (tie-breakers looked at, values): ending.tie_breaks."""
        return ending.tie_breaks(ending.result(self))

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

    @classmethod
    def from_parts(
        cls, edition: Edition | str, players: int, values: dict[str, Any], options: Mapping[str, Any] | None = None
    ) -> Game:
        """A position from its parts in the engine's own form: `values` maps every saved field of
        ``state.FIELDS`` (``seed``, ``rng``, ``phase``, ``hands``, ``route_owner``, …) to its value (card,
        ticket, route and city indices, as the attributes hold them). Checked like ``from_dict`` (every
        card accounted for, setup consistent); raises PositionError. ``bots.determinize`` builds its
        positions this way."""
        g = cls(edition, 2, 0, options, _blank=True)
        if not isinstance(players, int) or not 1 <= players <= 8:
            raise PositionError(f"bad player count {players!r}")
        g.n = players
        return position.assemble(g, values)

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
# Actions whose check is skipped when they are among the moves just offered (Game._apply): their checks
# return nothing, or the claimed route
_OFFERED_SKIP_CHECK = frozenset({DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS, CLAIM, TUNNEL_DECLINE, TUNNEL_PAY, PASS})
