"""The rules engine: one ``Game`` is one complete, exact, seeded game of any edition.

Pure standard library, no I/O, no clock: every random choice comes from the game's own
``random.Random(seed)``. The public surface:

* ``Game(edition, players, seed, options)`` — a new game (setup dealt, first player drawn);
* ``legal_actions()`` / ``is_legal(action)`` / ``apply(action) -> events`` / ``step(action)``;
* ``view(player)`` — what that player may know (``PlayerView``, JSON via ``to_dict``);
* ``to_dict()`` / ``Game.from_dict()`` — the full position, round-trip exact;
* ``record()`` / ``replay(record)`` — seed + actions, reproduces the game;
* ``result()`` — the final scoring breakdown (also available mid-game, as if it ended now).

Where the rule for each step lives: draws ``_draw_*``, flush ``_refill_market``, tickets
``_deal_tickets``/``_keep``, claims and tunnels ``_claim``/``_tunnel_*`` (payments in
``payments.py``), stations ``_build_station``, passengers ``_place``/``_move_passenger``,
end of game ``_end_turn``, scoring ``result`` (graph parts in ``scoring.py``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

from ..cards import CARD_INDEX, CARD_NAMES, COLOURS, GRAY, LOCOMOTIVE, NCARDS, NO_CARD, PASSENGER, PLUS4, Cards
from ..editions import Edition, Route, Ticket, check_options, get_edition, per_edition, with_options
from ..errors import EditionError, IllegalAction, MalformedAction, PositionError
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
    normalise_mix,
)
from .events import Event
from .scoring import best_station_routes, components, longest_trail, ticket_done
from .trails import best_trails
from .view import PlayerView

POSITION_FORMAT = 1

SETUP = "setup"  # each player in turn: (name a mix and) keep initial tickets
TURN = "turn"  # start of a turn: choose one of the actions
SECOND_CARD = "second_card"  # second card of a draw
KEEP = "keep_tickets"  # keep some of the tickets just drawn
TUNNEL = "tunnel"  # tunnel cards revealed: pay the extra or decline
PLACE = "place_passenger"  # after a claim: place a passenger on an end city, or not
OVER = "over"
PHASES = (SETUP, TURN, SECOND_CARD, KEEP, TUNNEL, PLACE, OVER)

PASSENGER_UNPLACED = -1
PASSENGER_GONE = -2
TRAIL_SEARCH_LIMIT = 20000  # states expanded per passenger when offering trips (trails.best_trails)


_derived: dict[tuple[str, str], Edition] = {}


def edition_with_options(edition: Edition, options: dict[str, Any] | None) -> Edition:
    """The edition with rule options (house rules) applied, validated like a map file."""
    if not options:
        return edition
    check_options(edition, options)  # types and ranges first, whatever the options hold (before hashing them)
    key = (edition.source_path or edition.id, json.dumps(options, sort_keys=True))
    if key not in _derived:
        _derived[key] = with_options(edition, options)
    return _derived[key]


# Canonical payments depend only on (rules, route shape, the part of the hand that can pay):
# memoised across games, so legal-move generation mostly skips recomputing them.
_payment_cache: dict[tuple[int, int, tuple[int, ...]], list[Cards]] = {}  # (rules, shape's route, hand part)
RouteEntry = tuple[int, str, tuple[int, ...]]  # route index, id, the other lanes of its group
ShapeGroup = tuple[int, bool, bool, list[tuple[int, Route, tuple[RouteEntry, ...]]]]


def _payments(rules: Any, rep: Route, hand: list[int], part: tuple[int, ...]) -> list[Cards]:
    key = (id(rules), rep.index, part)
    payments = _payment_cache.get(key)
    if payments is None:
        if len(_payment_cache) > 200_000:  # bound memory in very long runs
            _payment_cache.clear()
        payments = _payment_cache[key] = pay.route_payments(rep, hand, rules)
    return payments


@per_edition  # holds the edition, so its rules' id, a key of _payment_cache, stays unique
def _claim_shapes(ed: Edition) -> list[ShapeGroup]:
    """Routes grouped by everything their payments depend on. Groups are keyed by (colour,
    locomotives usable, needs only a total-count check); within a group, shapes (length, tunnel,
    ferry, substitution) come shortest first so the affordability scan can stop early."""
    rules = ed.rules
    by_shape: dict[tuple[int, int, bool, int, int], list[Route]] = {}
    for r in ed.routes:
        by_shape.setdefault((r.colour, r.length, r.tunnel, r.ferry, r.substitute), []).append(r)
    by_group: dict[tuple[int, bool, bool], list[tuple[int, Route, tuple[RouteEntry, ...]]]] = {}
    for (colour, length, _tunnel, ferry, substitute), routes in sorted(by_shape.items()):
        wild_ok = pay.wild_allowed(routes[0], rules)[0]
        special = bool(substitute or (ferry and rules.ferry_substitute_cards))
        entries = tuple(
            (r.index, r.id, tuple(o for o in ed.group_routes[r.group] if o != r.index) if r.group >= 0 else ()) for r in routes
        )
        by_group.setdefault((colour, wild_ok, special), []).append((length, routes[0], entries))
    return [
        (colour, wild_ok, special, sorted(shapes, key=lambda s: s[0])) for (colour, wild_ok, special), shapes in by_group.items()
    ]


class Game:
    """A game in progress. See the module docstring for the public surface."""

    __slots__ = (
        "_final_result",
        "_labels",
        "_legal_cache",
        "base_edition",
        "current",
        "deck",
        "discard",
        "edition",
        "final_turns",
        "first_player",
        "hands",
        "history",
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
        "setup_left",
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
        players: int = 2,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        base = get_edition(edition) if isinstance(edition, str) else edition
        self.base_edition = base
        self.options = dict(options or {})
        self.edition = ed = edition_with_options(base, self.options)
        self.rules = r = ed.rules
        if _blank:
            return
        if not isinstance(players, int) or not r.players[0] <= players <= r.players[1]:
            raise IllegalAction(f"{ed.name} is for {r.players[0]}-{r.players[1]} players, not {players}", "player_count")
        if not isinstance(seed, int):
            raise IllegalAction(f"seed must be an integer, got {seed!r}", "seed")
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
        self._refill_market(None)
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
        self.setup_left = n
        self.final_turns = -1
        self.pass_streak = 0
        self.turn = 0
        self.tunnel: tuple[int, Cards, list[int], int, int] | None = None  # route, paid, revealed, extra, colour
        self.last_claimed = -1
        self.history: list[Action] = []
        self._legal_cache: list[Action] | None = None
        self._final_result: dict[str, Any] | None = None
        self._labels: list[list[int] | None] = [None] * n
        pol = r.initial_tickets
        if not pol.choose_mix:
            for i in range(n):
                p = (self.first_player + i) % n
                self.offered[p] = self._deal_tickets(pol.deal)
            self._skip_empty_setup()

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
        g.setup_left, g.final_turns, g.pass_streak, g.turn = self.setup_left, self.final_turns, self.pass_streak, self.turn
        g.tunnel = None if self.tunnel is None else (*self.tunnel[:2], self.tunnel[2][:], *self.tunnel[3:])  # type: ignore[assignment]
        g.last_claimed = self.last_claimed
        g.history = self.history[:]
        g._legal_cache = None
        g._final_result = self._final_result
        g._labels = [None] * self.n
        return g

    def _next(self, p: int) -> int:
        return (p + 1) % self.n

    # ------------------------------------------------------------------ cards
    def _draw_from_deck(self) -> int:
        """Top card of the deck, reshuffling the discard pile into a new deck when it runs out."""
        deck = self.deck
        if not deck:
            if not self.discard:
                return NO_CARD
            deck.extend(self.discard)
            self.discard.clear()
            self.rng.shuffle(deck)
        return deck.pop()

    def _refill_market(self, ev: list[Event] | None) -> None:
        """Fill empty slots, then flush (3 locomotives, or passenger cards) while the rule applies."""
        market = self.market
        if NO_CARD in market:
            for i, card in enumerate(market):
                if card == NO_CARD:
                    market[i] = self._draw_from_deck()
        r = self.rules
        loco_flush = r.locomotive_flush
        passenger_flush = r.passenger_flush
        flushes = 0
        while (loco_flush and market.count(LOCOMOTIVE) >= loco_flush) or (
            passenger_flush and market.count(PASSENGER) >= passenger_flush
        ):
            if flushes >= r.max_consecutive_flushes or len(self.deck) + len(self.discard) < len(market):
                break
            old = market[:]
            for i in range(len(market)):
                market[i] = self._draw_from_deck()
            self.discard.extend(c for c in old if c != NO_CARD)
            flushes += 1
            if ev is not None:
                ev.append(
                    Event(
                        "market_flush",
                        None,
                        {"discarded": [CARD_NAMES[c] for c in old if c != NO_CARD], "market": self._market_names()},
                    )
                )

    def _market_names(self) -> list[str | None]:
        return [CARD_NAMES[c] if c != NO_CARD else None for c in self.market]

    def _can_take_second(self) -> bool:
        if self.deck or self.discard:
            return True
        single = self.rules.faceup_locomotive_single
        return any(c != NO_CARD and not (single and c == LOCOMOTIVE) for c in self.market)

    def _can_take_first(self) -> bool:
        return bool(self.deck or self.discard) or any(c != NO_CARD for c in self.market)

    # ------------------------------------------------------------------ tickets
    def _deal_tickets(self, deal: Iterable[tuple[str, int]]) -> list[int]:
        out: list[int] = []
        for deck_name, count in deal:
            deck = self.ticket_decks.get(deck_name, [])
            for _ in range(min(count, len(deck))):
                out.append(deck.pop())
        return out

    def _ticket_mixes(self) -> list[tuple[tuple[str, int], ...]]:
        """The mixes a player may name (Märklin): every split of `count` the decks can supply."""
        pol = self.rules.draw_tickets if self.phase != SETUP else self.rules.initial_tickets
        decks = pol.decks
        sizes = [len(self.ticket_decks.get(d, ())) for d in decks]
        out: list[tuple[tuple[str, int], ...]] = []

        def rec(i: int, left: int, acc: dict[str, int]) -> None:
            if i == len(decks) - 1:
                if left <= sizes[i]:
                    out.append(normalise_mix({**acc, decks[i]: left}))
                return
            for k in range(min(left, sizes[i]) + 1):
                rec(i + 1, left - k, {**acc, decks[i]: k})

        if decks:
            rec(0, pol.count, {})
        if not out and sum(sizes):  # fewer tickets left than `count`: take them all
            out.append(normalise_mix(dict(zip(decks, sizes, strict=True))))
        return out

    def _skip_empty_setup(self) -> None:
        """A player dealt no tickets at setup has nothing to choose (only with tiny custom decks)."""
        while self.phase == SETUP and not self.rules.initial_tickets.choose_mix and not self.offered[self.current]:
            self._finish_setup_player(None)

    def _finish_setup_player(self, ev: list[Event] | None) -> None:
        self.setup_left -= 1
        self.current = self._next(self.current)
        if self.setup_left == 0:
            if self.rules.initial_tickets.returned == "bottom_then_shuffle":
                for deck in self.ticket_decks.values():
                    self.rng.shuffle(deck)
            draw = self.rules.draw_tickets
            in_play = set(draw.decks) | {d for d, _ in draw.deal}
            for name, deck in self.ticket_decks.items():
                if name not in in_play:  # never drawn again (Europe's undealt long tickets): out of the game
                    self.removed_tickets.extend(deck)
                    deck.clear()
            self.phase = TURN
            self.current = self.first_player
            if ev is not None:
                ev.append(Event("setup_done", None, {"first_player": self.first_player}))

    # ------------------------------------------------------------------ legality
    def _group_blocked(self, route: Route, p: int) -> bool:
        if route.group < 0:
            return False
        all_lanes = self.n >= self.rules.all_lanes_min_players
        owner = self.route_owner
        for other in self.edition.group_routes[route.group]:
            o = owner[other]
            if o >= 0 and (o == p or not all_lanes):
                return True
        return False

    def route_claim_problem(self, route: Route, p: int) -> str | None:
        if self.route_owner[route.index] >= 0:
            return f"{route.id} is already claimed by player {self.route_owner[route.index]}"
        if route.group >= 0 and self._group_blocked(route, p):
            if any(self.route_owner[o] == p for o in self.edition.group_routes[route.group]):
                return f"you already own a lane between these cities; {route.id} is closed to you"
            return (
                f"{route.id}: with {self.n} players only one lane of a double route can be used "
                f"(all lanes open from {self.rules.all_lanes_min_players} players)"
            )
        if self.trains[p] < route.length:
            return f"{route.id} needs {route.length} trains; you have {self.trains[p]}"
        return None

    def legal_actions(self) -> list[Action]:
        """Every legal action now (claims and stations with their canonical payments)."""
        if self._legal_cache is None:
            self._legal_cache = self._generate()
        return self._legal_cache

    def _generate(self) -> list[Action]:
        phase = self.phase
        p = self.current
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
                return [Action(DRAW_TICKETS, mix=m) for m in self._ticket_mixes()]
            return [Action(KEEP_TICKETS, tickets=k) for k in self._keep_choices(offered)]
        if phase == TUNNEL:
            assert self.tunnel is not None
            _, _, _, extra, colour = self.tunnel
            acts = [Action(TUNNEL_PAY, cards=c) for c in pay.tunnel_payments(extra, colour, self.hands[p])]
            acts.append(A_TUNNEL_DECLINE)
            return acts
        if phase == PLACE:
            route = self.edition.routes[self.last_claimed]
            acts = [Action(PLACE_PASSENGER, city=self.edition.city_ids[c]) for c in (route.a, route.b) if self._can_place(c)]
            acts.append(A_PLACE_NONE)
            return acts
        if phase == OVER:
            return []
        out = self._turn_actions(p)
        return out or [A_PASS]

    def _keep_choices(self, offered: list[int]) -> list[tuple[str, ...]]:
        ids = sorted(self.edition.tickets[t].id for t in offered)
        k_min = min(self._keep_min(), len(ids))
        out: list[tuple[str, ...]] = []
        for mask in range(1, 1 << len(ids)):
            if mask.bit_count() >= k_min:
                out.append(tuple(ids[i] for i in range(len(ids)) if mask >> i & 1))
        return out

    def _keep_min(self) -> int:
        pol = self.rules.initial_tickets if self.phase == SETUP else self.rules.draw_tickets
        return pol.keep_min

    def _turn_actions(self, p: int) -> list[Action]:
        market = self.market
        out: list[Action] = [A_DRAW_BLIND] if self.deck or self.discard else []
        if NO_CARD in market:
            out.extend(A_DRAW_FACEUP[i] for i, c in enumerate(market) if c != NO_CARD)
        else:
            out.extend(A_DRAW_FACEUP[: len(market)])
        pol = self.rules.draw_tickets
        if pol.choose_mix:
            out.extend(Action(DRAW_TICKETS, mix=m) for m in self._ticket_mixes())
        else:
            decks = self.ticket_decks
            for deck_name, _ in pol.deal:
                if decks.get(deck_name):
                    out.append(A_DRAW_TICKETS)
                    break
        out.extend(self._claim_actions(p))
        if self.stations_left[p]:
            out.extend(self._station_actions(p))
        if self.rules.passengers:
            out.extend(self._passenger_moves(p))
        return out

    def _claim_actions(self, p: int) -> list[Action]:
        """Claims with canonical payments. Routes are grouped by shape (colour, length, tunnel,
        ferry, substitution), so each shape's affordability and payments are computed once."""
        hand = self.hands[p]
        trains = self.trains[p]
        owner = self.route_owner
        rules = self.rules
        all_lanes = self.n >= rules.all_lanes_min_players
        locos = hand[LOCOMOTIVE]
        plus4 = hand[PLUS4]
        max_colour = max(hand[:8])
        total = sum(hand) - hand[PASSENGER]
        hand_key = tuple(hand)
        new = tuple.__new__
        out: list[Action] = []
        for colour, wild_ok, special, shapes in _claim_shapes(self.edition):
            limit = total if special else (max_colour if colour == GRAY else hand[colour]) + (locos + plus4 if wild_ok else 0)
            if limit > trains:
                limit = trains
            if shapes[0][0] > limit:
                continue
            part = hand_key if colour == GRAY or special else (hand[colour], locos, plus4)
            for length, rep, entries in shapes:
                if length > limit:
                    break
                payments = None
                for ri, rid, siblings in entries:
                    if owner[ri] >= 0:
                        continue
                    blocked = False
                    for o in siblings:
                        oo = owner[o]
                        if oo >= 0 and (oo == p or not all_lanes):
                            blocked = True
                            break
                    if blocked:
                        continue
                    if payments is None:
                        payments = _payments(rules, rep, hand, part)
                    for cards in payments:
                        out.append(new(Action, (CLAIM, rid, cards, None, None, None, None, None)))
        return out

    def _station_actions(self, p: int) -> list[Action]:
        cost = self.rules.station_costs[self.rules.stations - self.stations_left[p]]
        payments = pay.station_payments(cost, self.hands[p])
        if not payments:
            return []
        ed = self.edition
        out = []
        for c, owner in enumerate(self.station_owner):
            if owner < 0 and ed.city_area[c] is None:
                cid = ed.city_ids[c]
                out.extend(Action(BUILD_STATION, city=cid, cards=cards) for cards in payments)
        return out

    def is_legal(self, action: Action | dict[str, Any]) -> bool:
        """Whether `action` would be accepted now (without changing anything)."""
        try:
            self._check(Action.from_json(action), self.current)
        except IllegalAction:
            return False
        return True

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action | dict[str, Any], player: int | None = None) -> list[Event]:
        """Apply one action for the player to move (or `player`, checked) and return its events.

        Raises IllegalAction (or MalformedAction) with the reason; the game is then unchanged.
        """
        events: list[Event] = []
        self._apply(action, player, events)
        return events

    def step(self, action: Action | dict[str, Any], player: int | None = None) -> None:
        """``apply`` without building events: the fast path for simulations and search."""
        self._apply(action, player, None)

    def _apply(self, action: Action | dict[str, Any], player: int | None, ev: list[Event] | None) -> None:
        a = action if isinstance(action, Action) else Action.from_json(action)
        p = self.current
        if player is not None and player != p:
            if self.phase == OVER:
                raise IllegalAction("the game is over", "game_over")
            raise IllegalAction(f"it is player {p}'s turn, not player {player}'s", "not_your_turn")
        checked = self._check(a, p)
        self._legal_cache = None
        self.history.append(a)
        kind = a.type
        if kind == DRAW_BLIND:
            self._draw_blind(p, ev)
        elif kind == DRAW_FACEUP:
            self._draw_faceup(p, a.slot, ev)  # type: ignore[arg-type]
        elif kind == CLAIM:
            self._claim(p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == DRAW_TICKETS:
            self._draw_tickets(p, a, ev)
        elif kind == KEEP_TICKETS:
            self._keep(p, checked, ev)
        elif kind == TUNNEL_PAY:
            self._tunnel_pay(p, a.cards, ev)  # type: ignore[arg-type]
        elif kind == TUNNEL_DECLINE:
            self._tunnel_decline(p, ev)
        elif kind == BUILD_STATION:
            self._build_station(p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == PLACE_PASSENGER:
            self._place(p, checked, ev)
        elif kind == MOVE_PASSENGER:
            self._move_passenger(p, checked, a.cards, ev)  # type: ignore[arg-type]
        elif kind == PASS:
            self.pass_streak += 1
            if ev is not None:
                ev.append(Event("pass", p, {}))
            self._end_turn(ev, passed=True)

    def _check(self, a: Action, p: int) -> Any:
        """Validate `a` for player `p` without side effects; returns what the handler needs."""
        phase = self.phase
        kind = a.type
        if phase == OVER:
            raise IllegalAction("the game is over", "game_over")
        hand = self.hands[p]
        ed = self.edition
        if kind in (DRAW_BLIND, DRAW_FACEUP):
            if phase not in (TURN, SECOND_CARD):
                raise IllegalAction(f"cannot draw train cards now (phase: {phase})", "wrong_phase")
            if kind == DRAW_BLIND:
                if not self.deck and not self.discard:
                    raise IllegalAction("the deck and the discard pile are empty", "deck_empty")
                return None
            slot = a.slot
            if slot is None or not 0 <= slot < len(self.market):
                raise IllegalAction(f"no market slot {slot}; slots are 0-{len(self.market) - 1}", "bad_slot")
            card = self.market[slot]
            if card == NO_CARD:
                raise IllegalAction(f"market slot {slot} is empty", "empty_slot")
            if phase == SECOND_CARD and card == LOCOMOTIVE and self.rules.faceup_locomotive_single:
                raise IllegalAction("a face-up locomotive cannot be taken as the second card", "second_locomotive")
            return None
        if kind == KEEP_TICKETS:
            if phase not in (SETUP, KEEP) or not self.offered[p]:
                raise IllegalAction("there are no drawn tickets to keep now", "wrong_phase")
            offered = {ed.tickets[t].id: t for t in self.offered[p]}
            chosen = a.tickets or ()
            for tid in chosen:
                if tid not in offered:
                    raise IllegalAction(
                        f"ticket {tid!r} is not among those drawn ({', '.join(sorted(offered))})", "unknown_ticket"
                    )
            need = min(self._keep_min(), len(offered))
            if len(chosen) < need:
                raise IllegalAction(f"keep at least {need} of the {len(offered)} tickets drawn", "keep_too_few")
            return [offered[t] for t in chosen]
        if kind == DRAW_TICKETS:
            if phase == SETUP:
                if not self.rules.initial_tickets.choose_mix or self.offered[p]:
                    raise IllegalAction("choose which of the dealt tickets to keep", "wrong_phase")
            elif phase != TURN:
                raise IllegalAction(f"cannot draw tickets now (phase: {phase})", "wrong_phase")
            pol = self.rules.initial_tickets if phase == SETUP else self.rules.draw_tickets
            if pol.choose_mix:
                mixes = self._ticket_mixes()
                if a.mix not in mixes:
                    shown = ", ".join(json.dumps(dict(m)) for m in mixes) or "none: the ticket decks are empty"
                    raise IllegalAction(f"name a mix of tickets to draw; possible: {shown}", "bad_mix")
            else:
                if a.mix is not None:
                    raise IllegalAction("this edition deals tickets without a mix", "bad_mix")
                if not any(self.ticket_decks.get(d) for d, _ in pol.deal):
                    raise IllegalAction("no destination tickets are left", "tickets_empty")
            return None
        if phase == SETUP:
            raise IllegalAction("first choose your destination tickets", "wrong_phase")
        if kind == CLAIM:
            if phase != TURN:
                raise IllegalAction(f"cannot claim a route now (phase: {phase})", "wrong_phase")
            ri = ed.route_index.get(a.route)  # type: ignore[arg-type]
            if ri is None:
                raise IllegalAction(f"unknown route {a.route!r}", "unknown_route")
            route = ed.routes[ri]
            problem = self.route_claim_problem(route, p)
            if problem:
                raise IllegalAction(problem, "route_unavailable")
            self._check_hand(a.cards, hand)  # type: ignore[arg-type]
            problem = pay.route_payment_problem(route, a.cards, self.rules)  # type: ignore[arg-type]
            if problem:
                raise IllegalAction(problem, "bad_payment")
            return route
        if kind in (TUNNEL_PAY, TUNNEL_DECLINE):
            if phase != TUNNEL or self.tunnel is None:
                raise IllegalAction("there is no tunnel to pay for", "wrong_phase")
            if kind == TUNNEL_PAY:
                self._check_hand(a.cards, hand)  # type: ignore[arg-type]
                problem = pay.tunnel_payment_problem(self.tunnel[3], self.tunnel[4], a.cards)  # type: ignore[arg-type]
                if problem:
                    raise IllegalAction(problem, "bad_payment")
            return None
        if kind == BUILD_STATION:
            if phase != TURN:
                raise IllegalAction(f"cannot build a station now (phase: {phase})", "wrong_phase")
            if not self.stations_left[p]:
                raise IllegalAction(
                    "you have no stations left" if self.rules.stations else "this edition has no stations", "no_stations"
                )
            c = ed.city_index.get(a.city)  # type: ignore[arg-type]
            if c is None or ed.city_area[c] is not None:
                raise IllegalAction(f"unknown city {a.city!r}", "unknown_city")
            if self.station_owner[c] >= 0:
                raise IllegalAction(f"{ed.city_names[c]} already has a station", "city_taken")
            self._check_hand(a.cards, hand)  # type: ignore[arg-type]
            cost = self.rules.station_costs[self.rules.stations - self.stations_left[p]]
            problem = pay.station_payment_problem(cost, a.cards)  # type: ignore[arg-type]
            if problem:
                raise IllegalAction(problem, "bad_payment")
            return c
        if kind == PLACE_PASSENGER:
            if phase != PLACE:
                raise IllegalAction("a passenger can be placed only right after claiming a route", "wrong_phase")
            if a.city is None:
                return -1
            c = ed.city_index.get(a.city, -1)
            route = ed.routes[self.last_claimed]
            if c not in (route.a, route.b):
                raise IllegalAction(
                    f"place the passenger on {ed.city_ids[route.a]} or {ed.city_ids[route.b]}, "
                    "the ends of the route just claimed",
                    "bad_city",
                )
            if not self._can_place(c):
                raise IllegalAction(f"a passenger already stands on {ed.city_names[c]}", "city_taken")
            return c
        if kind == MOVE_PASSENGER:
            if phase != TURN:
                raise IllegalAction(f"cannot move a passenger now (phase: {phase})", "wrong_phase")
            return self._check_trail(p, a)
        if kind == PASS:
            if phase != TURN:
                raise IllegalAction("pass is only a whole turn", "wrong_phase")
            if self._turn_actions(p):
                raise IllegalAction("pass is allowed only when no other action is possible", "pass_not_allowed")
            return None
        raise MalformedAction(f"unknown action type {kind!r}")

    @staticmethod
    def _check_hand(cards: Cards, hand: list[int]) -> None:
        if cards is None or len(cards) != NCARDS:
            raise MalformedAction("cards missing")
        for i, n in enumerate(cards):
            if n > hand[i]:
                raise IllegalAction(f"you have {hand[i]} {CARD_NAMES[i]} card(s), not {n}", "cards_not_in_hand")
        if sum(cards) == 0:
            raise IllegalAction("no cards offered", "bad_payment")

    # ------------------------------------------------------------------ handlers
    def _draw_blind(self, p: int, ev: list[Event] | None) -> None:
        card = self._draw_from_deck()
        self.hands[p][card] += 1
        if ev is not None:
            ev.append(Event("draw_blind", p, {}, {"card": CARD_NAMES[card]}))
        self._after_card(p, False, ev)

    def _draw_faceup(self, p: int, slot: int, ev: list[Event] | None) -> None:
        card = self.market[slot]
        self.market[slot] = NO_CARD
        self.hands[p][card] += 1
        self._refill_market(ev)
        if ev is not None:
            ev.append(Event("draw_faceup", p, {"slot": slot, "card": CARD_NAMES[card], "market": self._market_names()}))
        self._after_card(p, card == LOCOMOTIVE and self.rules.faceup_locomotive_single, ev)

    def _after_card(self, p: int, whole_draw: bool, ev: list[Event] | None) -> None:
        if self.phase == SECOND_CARD or whole_draw:
            self._end_turn(ev)
        elif self._can_take_second():
            self.phase = SECOND_CARD
        else:  # Ruling: no second card can legally be taken — the draw ends with one card
            self._end_turn(ev)

    def _draw_tickets(self, p: int, a: Action, ev: list[Event] | None) -> None:
        setup = self.phase == SETUP
        pol = self.rules.initial_tickets if setup else self.rules.draw_tickets
        drawn = self._deal_tickets(a.mix if pol.choose_mix else pol.deal)  # type: ignore[arg-type]
        self.offered[p] = drawn
        if not setup:
            self.phase = KEEP
        if ev is not None:
            ids = [self.edition.tickets[t].id for t in drawn]
            ev.append(Event("draw_tickets", p, {"count": len(drawn), "mix": dict(a.mix or ())}, {"tickets": ids}))

    def _keep(self, p: int, kept: list[int], ev: list[Event] | None) -> None:
        setup = self.phase == SETUP
        pol = self.rules.initial_tickets if setup else self.rules.draw_tickets
        returned = [t for t in self.offered[p] if t not in kept]
        self.tickets[p].extend(kept)
        self.offered[p] = []
        if pol.returned == "remove":
            self.removed_tickets.extend(returned)
        else:
            for t in returned:
                self.ticket_decks[self.edition.tickets[t].deck].insert(0, t)
        if ev is not None:
            ids = [self.edition.tickets[t].id for t in kept]
            ev.append(Event("keep_tickets", p, {"kept": len(kept), "returned": len(returned)}, {"tickets": ids}))
        if setup:
            self._finish_setup_player(ev)
            self._skip_empty_setup()
        else:
            self._end_turn(ev)

    def _claim(self, p: int, route: Route, cards: Cards, ev: list[Event] | None) -> None:
        hand = self.hands[p]
        for i, k in enumerate(cards):
            if k:
                hand[i] -= k
        if route.tunnel:
            revealed = []
            for _ in range(3):
                card = self._draw_from_deck()
                if card == NO_CARD:
                    break
                revealed.append(card)
            extra, colour = pay.tunnel_extra(cards, revealed)
            if ev is not None:
                ev.append(
                    Event(
                        "tunnel_reveal",
                        p,
                        {
                            "route": route.id,
                            "cards": cards_json(cards),
                            "revealed": [CARD_NAMES[c] for c in revealed],
                            "extra": extra,
                        },
                    )
                )
            if extra:
                self.tunnel = (route.index, cards, revealed, extra, colour)
                self.phase = TUNNEL
                return
            self.discard.extend(revealed)
        self._discard_cards(cards)
        self._complete_claim(p, route, cards, ev)

    def _discard_cards(self, cards: Cards) -> None:
        d = self.discard
        for i, k in enumerate(cards):
            if k:
                d.extend([i] * k)

    def _complete_claim(self, p: int, route: Route, cards: Cards, ev: list[Event] | None) -> None:
        self.route_owner[route.index] = p
        self.trains[p] -= route.length
        self.scores[p] += route.points
        self._labels[p] = None
        if ev is not None:
            ev.append(Event("claim", p, {"route": route.id, "cards": cards_json(cards), "points": route.points}))
        if (
            self.rules.passengers
            and PASSENGER_UNPLACED in self.passengers[p]
            and (self._can_place(route.a) or self._can_place(route.b))
        ):
            self.last_claimed = route.index
            self.phase = PLACE
            return
        self._end_turn(ev)

    def _tunnel_pay(self, p: int, extra_cards: Cards, ev: list[Event] | None) -> None:
        assert self.tunnel is not None
        ri, paid, revealed, _, _ = self.tunnel
        hand = self.hands[p]
        for i, k in enumerate(extra_cards):
            hand[i] -= k
        self.tunnel = None
        self.phase = TURN
        self.discard.extend(revealed)
        total = tuple(a + b for a, b in zip(paid, extra_cards, strict=True))
        self._discard_cards(total)
        if ev is not None:
            ev.append(Event("tunnel_pay", p, {"route": self.edition.routes[ri].id, "cards": cards_json(extra_cards)}))
        self._complete_claim(p, self.edition.routes[ri], total, ev)

    def _tunnel_decline(self, p: int, ev: list[Event] | None) -> None:
        assert self.tunnel is not None
        ri, paid, revealed, _, _ = self.tunnel
        hand = self.hands[p]
        for i, k in enumerate(paid):
            hand[i] += k
        self.discard.extend(revealed)
        self.tunnel = None
        if ev is not None:
            ev.append(Event("tunnel_decline", p, {"route": self.edition.routes[ri].id}))
        self._end_turn(ev)

    def _build_station(self, p: int, city: int, cards: Cards, ev: list[Event] | None) -> None:
        hand = self.hands[p]
        for i, k in enumerate(cards):
            hand[i] -= k
        self._discard_cards(cards)
        self.station_owner[city] = p
        self.stations_left[p] -= 1
        if ev is not None:
            ev.append(Event("build_station", p, {"city": self.edition.city_ids[city], "cards": cards_json(cards)}))
        self._end_turn(ev)

    # ------------------------------------------------------------------ passengers (Märklin)
    def _can_place(self, city: int) -> bool:
        return self.edition.city_area[city] is None and self.passenger_at[city] < 0

    def _place(self, p: int, city: int, ev: list[Event] | None) -> None:
        if city >= 0:
            slot = self.passengers[p].index(PASSENGER_UNPLACED)
            self.passengers[p][slot] = city
            self.passenger_at[city] = p
            if ev is not None:
                ev.append(Event("place_passenger", p, {"city": self.edition.city_ids[city]}))
        self.last_claimed = -1
        self._end_turn(ev)

    def _check_trail(self, p: int, a: Action) -> tuple[int, list[int], list[int]]:
        """Validate a passenger trip; returns (start city, route indices, cities entered)."""
        ed = self.edition
        start = ed.city_index.get(a.city, -1)  # type: ignore[arg-type]
        if start < 0 or start not in self.passengers[p]:
            raise IllegalAction(f"you have no passenger on {a.city!r}", "no_passenger")
        cards = a.cards or (0,) * NCARDS
        if any(k for i, k in enumerate(cards) if i != PASSENGER):
            raise IllegalAction("only passenger cards are discarded to move a passenger", "bad_payment")
        if not a.path:
            raise IllegalAction("a trip travels along at least one route", "empty_trip")
        here = start
        used: set[int] = set()
        entered: list[int] = []
        foreign = 0
        for rid in a.path or ():
            ri = ed.route_index.get(rid)
            if ri is None:
                raise IllegalAction(f"unknown route {rid!r}", "unknown_route")
            if ri in used:
                raise IllegalAction(f"the trip uses {rid} twice; a route is used at most once per trip", "route_reused")
            route = ed.routes[ri]
            if here not in (route.a, route.b):
                raise IllegalAction(f"{rid} does not leave from {ed.city_ids[here]}", "not_a_trail")
            owner = self.route_owner[ri]
            if owner < 0:
                raise IllegalAction(f"{rid} is unclaimed; passengers travel only on claimed routes", "unclaimed_route")
            if owner != p:
                foreign += 1
            here = route.b if route.a == here else route.a
            if ed.city_area[here] is not None:
                raise IllegalAction(f"passengers never enter country areas ({ed.city_names[here]})", "country_area")
            used.add(ri)
            entered.append(here)
        if foreign != cards[PASSENGER]:
            raise IllegalAction(
                f"the trip uses {foreign} opponent route(s): discard exactly that many passenger "
                f"cards (offered {cards[PASSENGER]})",
                "bad_payment",
            )
        if cards[PASSENGER] > self.hands[p][PASSENGER]:
            raise IllegalAction(f"you have {self.hands[p][PASSENGER]} passenger card(s)", "cards_not_in_hand")
        return start, [ed.route_index[r] for r in a.path or ()], entered

    def _move_passenger(self, p: int, checked: tuple[int, list[int], list[int]], cards: Cards, ev: list[Event] | None) -> None:
        start, _, entered = checked
        self.hands[p][PASSENGER] -= cards[PASSENGER]
        self.discard.extend([PASSENGER] * cards[PASSENGER])
        once = self.rules.passenger_one_token_per_city
        visited = {start}
        taken = []
        for city in entered:
            if once and city in visited:
                continue
            visited.add(city)
            stack = self.merch[city]
            if stack:
                value = stack.pop()
                taken.append((city, value))
                self.tokens[p].append(value)
                self.scores[p] += value
        slot = self.passengers[p].index(start)
        self.passengers[p][slot] = PASSENGER_GONE
        self.passenger_at[start] = -1
        if ev is not None:
            ed = self.edition
            ev.append(
                Event(
                    "move_passenger",
                    p,
                    {
                        "city": ed.city_ids[start],
                        "path": [ed.routes[r].id for r in checked[1]],
                        "tokens": [{"city": ed.city_ids[c], "value": v} for c, v in taken],
                        "points": sum(v for _, v in taken),
                        "passenger_cards": cards[PASSENGER],
                    },
                )
            )
        self._end_turn(ev)

    def passenger_trails(self, p: int, start: int, max_foreign: int) -> dict[int, tuple[int, list[int]]]:
        """Best trip found from `start` per number of opponent routes used (0..max_foreign), dominated ones
        dropped: {opponent routes: (token points, route indices)}. See trails.best_trails."""
        return best_trails(
            self.edition,
            self.route_owner,
            self.merch,
            p,
            start,
            max_foreign,
            self.rules.passenger_one_token_per_city,
            TRAIL_SEARCH_LIMIT,
        )

    def _passenger_moves(self, p: int) -> list[Action]:
        ed = self.edition
        out: list[Action] = []
        cards_in_hand = self.hands[p][PASSENGER]
        for city in self.passengers[p]:
            if city < 0:
                continue
            for foreign, (_, path) in sorted(self.passenger_trails(p, city, cards_in_hand).items()):
                cards = [0] * NCARDS
                cards[PASSENGER] = foreign
                out.append(
                    Action(MOVE_PASSENGER, city=ed.city_ids[city], path=tuple(ed.routes[r].id for r in path), cards=tuple(cards))
                )
        return out

    # ------------------------------------------------------------------ end of turn / game
    def _end_turn(self, ev: list[Event] | None, passed: bool = False) -> None:
        p = self.current
        if not passed:
            self.pass_streak = 0
        self.phase = TURN
        if self.final_turns >= 0:
            self.final_turns -= 1
            if self.final_turns == 0:
                self._finish(ev, "final round complete")
                return
        elif self.trains[p] <= self.rules.end_trigger_trains:
            self.final_turns = self.n
            if ev is not None:
                ev.append(Event("final_round", p, {"trains": self.trains[p]}))
        if self.pass_streak >= self.n:
            self._finish(ev, "stalemate: every player passed in one full round")
            return
        self.current = self._next(p)
        self.turn += 1

    def _finish(self, ev: list[Event] | None, why: str) -> None:
        self.phase = OVER
        if ev is not None:
            ev.append(Event("game_over", None, {"reason": why, "result": self.result()}))

    # ------------------------------------------------------------------ scoring
    def connectivity(self, p: int) -> list[int]:
        """Component label per city over player p's own routes (cached until p claims again)."""
        labels = self._labels[p]
        if labels is None:
            routes = self.edition.routes
            labels = components(
                self.edition.ncities, ((routes[i].a, routes[i].b) for i, o in enumerate(self.route_owner) if o == p)
            )
            self._labels[p] = labels
        return labels

    def ticket_status(self, p: int) -> list[tuple[Ticket, bool]]:
        labels = self.connectivity(p)
        return [(self.edition.tickets[t], ticket_done(labels, self.edition.tickets[t])) for t in self.tickets[p]]

    def result(self) -> dict[str, Any]:
        """Final-scoring breakdown (as if the game ended now) and ranks with the tie-breakers.

        Once the game is over the breakdown is computed once and the same dict is returned (treat it
        as read-only)."""
        if self._final_result is not None:
            return self._final_result
        res = self._score()
        if self.phase == OVER:
            self._final_result = res
        return res

    def _score(self) -> dict[str, Any]:
        ed, r = self.edition, self.rules
        players = []
        for p in range(self.n):
            own = [i for i, o in enumerate(self.route_owner) if o == p]
            route_points = sum(ed.routes[i].points for i in own)
            tickets = [ed.tickets[t] for t in self.tickets[p]]
            stations = [c for c, o in enumerate(self.station_owner) if o == p]
            ticket_points, borrowed, done = best_station_routes(ed, own, stations, self.route_owner, p, tickets)
            length, trail = longest_trail(ed, own)
            players.append(
                {
                    "player": p,
                    "route_points": route_points,
                    "merchandise": sum(self.tokens[p]),
                    "tickets": [{"id": t.id, "points": t.points, "completed": d} for t, d in zip(tickets, done, strict=True)],
                    "ticket_points": ticket_points,
                    "tickets_completed": sum(done),
                    "longest_path": length,
                    "longest_path_routes": [ed.routes[i].id for i in trail],
                    "longest_path_bonus": 0,
                    "stations_built": len(stations),
                    "station_routes": {ed.city_ids[c]: (ed.routes[b].id if b is not None else None) for c, b in borrowed.items()},
                    "unused_station_points": self.stations_left[p] * r.unused_station_points,
                    "most_tickets_bonus": 0,
                }
            )
        if r.longest_path_bonus:
            top = max(x["longest_path"] for x in players)
            for x in players:
                if top > 0 and x["longest_path"] == top:
                    x["longest_path_bonus"] = r.longest_path_bonus
        if r.most_tickets_bonus:
            top = max(x["tickets_completed"] for x in players)
            for x in players:
                if top > 0 and x["tickets_completed"] == top:
                    x["most_tickets_bonus"] = r.most_tickets_bonus
        for x in players:
            x["total"] = (
                x["route_points"]
                + x["merchandise"]
                + x["ticket_points"]
                + x["longest_path_bonus"]
                + x["unused_station_points"]
                + x["most_tickets_bonus"]
            )

        def key(x: dict[str, Any]) -> tuple[int, ...]:
            k = [x["total"]]
            for t in r.tiebreakers:
                k.append(
                    {
                        "tickets_completed": x["tickets_completed"],
                        "longest_path_bonus": 1 if x["longest_path_bonus"] else 0,
                        "longest_path_length": x["longest_path"],
                        "fewest_stations": -x["stations_built"],
                    }[t]
                )
            return tuple(k)

        keys = [key(x) for x in players]
        for x, k in zip(players, keys, strict=True):
            x["rank"] = 1 + sum(1 for other in keys if other > k)
        winners = [x["player"] for x in players if x["rank"] == 1]
        return {
            "edition": ed.id,
            "over": self.phase == OVER,
            "turns": self.turn,
            "players": players,
            "winners": winners,
            "tiebreakers": list(r.tiebreakers),
        }

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
        }
        if self.phase == OVER:
            res = self.result()
            rec["result"] = {"scores": [x["total"] for x in res["players"]], "winners": res["winners"]}
        return rec

    @classmethod
    def replay(cls, record: dict[str, Any], edition: Edition | None = None) -> Game:
        """Rebuild a game from its record; raises PositionError if an action does not apply."""
        try:
            g = cls(edition or record["edition"], record["players"], record["seed"], record.get("options"))
            actions = record["actions"]
        except (KeyError, TypeError) as exc:
            raise PositionError(f"malformed record: missing or bad field {exc}") from None
        for i, a in enumerate(actions):
            try:
                g.step(a)
            except IllegalAction as exc:
                raise PositionError(f"record action #{i} ({a}) is illegal: {exc}") from None
        return g

    # ------------------------------------------------------------------ positions
    def to_dict(self) -> dict[str, Any]:
        ed = self.edition
        names = CARD_NAMES
        state = self.rng.getstate()
        tunnel = None
        if self.tunnel is not None:
            ri, paid, revealed, extra, colour = self.tunnel
            tunnel = {
                "route": ed.routes[ri].id,
                "paid": cards_json(paid),
                "revealed": [names[c] for c in revealed],
                "extra": extra,
                "colour": COLOURS[colour] if colour >= 0 else None,
            }
        return {
            "format": POSITION_FORMAT,
            "edition": self.base_edition.id,
            "options": self.options,
            "players": self.n,
            "seed": self.seed,
            "rng": [state[0], list(state[1]), state[2]],
            "phase": self.phase,
            "current": self.current,
            "first_player": self.first_player,
            "setup_left": self.setup_left,
            "final_turns": self.final_turns,
            "pass_streak": self.pass_streak,
            "turn": self.turn,
            "deck": [names[c] for c in self.deck],
            "discard": [names[c] for c in self.discard],
            "market": self._market_names(),
            "hands": [cards_json(h) for h in self.hands],
            "trains": self.trains[:],
            "scores": self.scores[:],
            "routes": {ed.routes[i].id: o for i, o in enumerate(self.route_owner) if o >= 0},
            "tickets": [[ed.tickets[t].id for t in ts] for ts in self.tickets],
            "offered": [[ed.tickets[t].id for t in ts] for ts in self.offered],
            "ticket_decks": {d: [ed.tickets[t].id for t in ts] for d, ts in self.ticket_decks.items()},
            "removed_tickets": [ed.tickets[t].id for t in self.removed_tickets],
            "stations_left": self.stations_left[:],
            "stations": {ed.city_ids[c]: o for c, o in enumerate(self.station_owner) if o >= 0},
            "passengers": [[_passenger_json(ed, c) for c in ps] for ps in self.passengers],
            "merchandise": {ed.city_ids[c]: list(reversed(s)) for c, s in enumerate(self.merch) if ed.merchandise[c]},
            "tokens": [t[:] for t in self.tokens],
            "tunnel": tunnel,
            "last_claimed": ed.routes[self.last_claimed].id if self.last_claimed >= 0 else None,
            "history": [a.to_json() for a in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], edition: Edition | None = None) -> Game:
        """Rebuild a position saved by ``to_dict``. Raises PositionError naming the bad field."""
        try:
            return cls._from_dict(data, edition)
        except PositionError:
            raise
        except EditionError as exc:
            raise PositionError(f"position: {exc}") from None
        except IllegalAction as exc:
            raise PositionError(f"position: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise PositionError(f"malformed position: {type(exc).__name__}: {exc}") from None

    @classmethod
    def _from_dict(cls, d: dict[str, Any], edition: Edition | None) -> Game:
        if not isinstance(d, dict):
            raise PositionError("a position must be a JSON object")
        if d.get("format") != POSITION_FORMAT:
            raise PositionError(f"unsupported position format {d.get('format')!r}")
        g = cls(edition or d["edition"], 2, 0, d.get("options") or None, _blank=True)
        ed = g.edition
        n = d["players"]
        if not isinstance(n, int) or not 1 <= n <= 8:
            raise PositionError(f"bad player count {n!r}")
        g.n = n
        g.seed = d["seed"]
        st = d["rng"]
        g.rng = random.Random()
        g.rng.setstate((st[0], tuple(st[1]), st[2]))
        if d["phase"] not in PHASES:
            raise PositionError(f"unknown phase {d['phase']!r}")
        g.phase = d["phase"]
        g.current, g.first_player = _player(d["current"], n), _player(d["first_player"], n)
        g.setup_left, g.final_turns, g.pass_streak, g.turn = (
            int(d["setup_left"]),
            int(d["final_turns"]),
            int(d["pass_streak"]),
            int(d["turn"]),
        )

        def card(name: str) -> int:
            if name not in CARD_INDEX:
                raise PositionError(f"unknown card {name!r}")
            return CARD_INDEX[name]

        def ticket(tid: str) -> int:
            if tid not in ed.ticket_index:
                raise PositionError(f"unknown ticket {tid!r}")
            return ed.ticket_index[tid]

        def route(rid: str) -> int:
            if rid not in ed.route_index:
                raise PositionError(f"unknown route {rid!r}")
            return ed.route_index[rid]

        def city(cid: str) -> int:
            if cid not in ed.city_index:
                raise PositionError(f"unknown city {cid!r}")
            return ed.city_index[cid]

        def hand(h: dict[str, int]) -> list[int]:
            out = [0] * NCARDS
            for k, v in h.items():
                out[card(k)] = int(v)
            return out

        g.deck = [card(c) for c in d["deck"]]
        g.discard = [card(c) for c in d["discard"]]
        g.market = [NO_CARD if c is None else card(c) for c in d["market"]]
        g.hands = [hand(h) for h in _n_list(d["hands"], n, "hands")]
        g.trains = [int(x) for x in _n_list(d["trains"], n, "trains")]
        g.scores = [int(x) for x in _n_list(d["scores"], n, "scores")]
        g.route_owner = [-1] * len(ed.routes)
        for rid, o in d["routes"].items():
            g.route_owner[route(rid)] = _player(o, n)
        g.tickets = [[ticket(t) for t in ts] for ts in _n_list(d["tickets"], n, "tickets")]
        g.offered = [[ticket(t) for t in ts] for ts in _n_list(d["offered"], n, "offered")]
        g.ticket_decks = {k: [ticket(t) for t in v] for k, v in d["ticket_decks"].items()}
        g.removed_tickets = [ticket(t) for t in d["removed_tickets"]]
        g.stations_left = [int(x) for x in _n_list(d["stations_left"], n, "stations_left")]
        g.station_owner = [-1] * ed.ncities
        for cid, o in d["stations"].items():
            g.station_owner[city(cid)] = _player(o, n)
        g.passengers = [[_passenger_from(c, city) for c in ps] for ps in _n_list(d["passengers"], n, "passengers")]
        g.passenger_at = [-1] * ed.ncities
        for p, ps in enumerate(g.passengers):
            for c in ps:
                if c >= 0:
                    g.passenger_at[c] = p
        g.merch = [[] for _ in range(ed.ncities)]
        for cid, stack in d["merchandise"].items():
            g.merch[city(cid)] = [int(v) for v in reversed(stack)]
        g.tokens = [[int(v) for v in t] for t in _n_list(d["tokens"], n, "tokens")]
        t = d["tunnel"]
        g.tunnel = None
        if t is not None:
            colour = COLOURS.index(t["colour"]) if t["colour"] is not None else -1
            paid = tuple(hand(t["paid"]))
            g.tunnel = (route(t["route"]), paid, [card(c) for c in t["revealed"]], int(t["extra"]), colour)
        _check_card_census(g)
        g.last_claimed = route(d["last_claimed"]) if d["last_claimed"] is not None else -1
        g.history = [Action.from_json(a) for a in d["history"]]
        g._final_result = None
        g._legal_cache = None
        g._labels = [None] * n
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Game {self.edition.id} {self.n}p seed={self.seed} turn={self.turn} phase={self.phase} player={self.current}>"


def cards_json(cards: Iterable[int]) -> dict[str, int]:
    return {CARD_NAMES[i]: k for i, k in enumerate(cards) if k}


def _player(x: Any, n: int) -> int:
    if not isinstance(x, int) or not 0 <= x < n:
        raise PositionError(f"bad player index {x!r}")
    return x


def _check_card_census(g: Game) -> None:
    """A position must hold exactly the edition's cards (deck, discard, market, hands, a pending tunnel)."""
    counts = [0] * NCARDS
    for p, h in enumerate(g.hands):
        for i, k in enumerate(h):
            if k < 0:
                raise PositionError(f"player {p} holds a negative number of {CARD_NAMES[i]} cards ({k})")
            counts[i] += k
    held = [*g.deck, *g.discard, *(c for c in g.market if c != NO_CARD)]
    if g.tunnel is not None:
        held += g.tunnel[2]
        held += [i for i, k in enumerate(g.tunnel[1]) for _ in range(k)]
    for c in held:
        counts[c] += 1
    for i, k in enumerate(counts):
        if k != g.edition.deck[i]:
            raise PositionError(f"the position holds {k} {CARD_NAMES[i]} cards; the edition has {g.edition.deck[i]}")


def _n_list(x: Any, n: int, name: str) -> list[Any]:
    if not isinstance(x, list) or len(x) != n:
        raise PositionError(f"{name!r} must be a list with one entry per player ({n})")
    return x


def _passenger_json(ed: Edition, c: int) -> str | None:
    if c == PASSENGER_UNPLACED:
        return None
    if c == PASSENGER_GONE:
        return "gone"
    return ed.city_ids[c]


def _passenger_from(x: Any, city: Any) -> int:
    if x is None:
        return PASSENGER_UNPLACED
    if x == "gone":
        return PASSENGER_GONE
    return city(x)
