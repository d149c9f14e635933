"""A fixed discrete action space per edition: every legal engine decision <-> one integer.

The engine offers claims, stations and tunnel extras with *canonical payments* (see
``ttr.engine.payments``); this module gives each of them a stable index whose meaning does not
depend on the hand. Blocks, in order (only those the edition uses; sizes in docs/rl.md):

* ``draw_blind`` (1), ``draw_faceup`` (one per market slot);
* ``draw_tickets`` (1) — or, where the player names a mix (Märklin), one per split of the count
  between the ticket decks plus one "take all that is left" (when fewer remain than the count);
* ``keep_tickets``: one per non-empty subset of the *offered positions* (bit j = the j-th ticket
  of ``view.offered``), index ``start + bits - 1``;
* ``claim``: per route, a payment code (see ``RouteCodes``):
  plain routes, tunnels and ferries without substitution: (colour c, w wild cards) for w below
  the length, plus one "all wild"; Nordic ferries (any N cards replace a ferry locomotive):
  (colour c, k locomotives replaced, w wilds among the coloured cards); routes where any N cards
  replace one coloured card (Murmansk–Lieksa): (colour c, number of N-card sets). Wild cards are
  split between +4 and plain locomotives, and "any" cards are chosen, by the engine's canonical rule;
* ``tunnel_pay`` (w = wild cards among the extra cards, 0..3) and ``tunnel_decline`` (1);
* ``build_station``: per city, (colour c, w wild cards) for w below the largest station cost,
  plus one "all wild";
* ``place_passenger``: on end A of the route just claimed, on end B, or none;
* ``move_passenger``: (own passenger slot, opponent routes used) — the engine offers one best trip
  per (passenger, number of opponent routes), and this is its index;
* ``pass`` (1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from ..cards import COLOURS, GRAY, LOCOMOTIVE, NCARDS, PASSENGER, PLUS4, Cards
from ..editions import Edition, Route, Rules, per_edition
from ..engine import Action, IllegalAction
from ..engine import payments as pay
from ..engine.actions import (
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
    normalise_mix,
)

if TYPE_CHECKING:
    from ..engine import PlayerView
    from .seatview import SeatView

ACTION_SPACE_VERSION = 0
TUNNEL_REVEAL = 3  # cards turned over for a tunnel: at most this many extra cards are owed
_NCOL = len(COLOURS)
_CACHE_LIMIT = 200_000  # context-free action -> index entries kept per edition

# payment-code kinds of a route
PLAIN = "plain"  # one colour + w wilds (w in [lo, hi]), or all wild
FERRY_SUBST = "ferry_subst"  # (colour, k ferry locomotives replaced by N any cards, w wilds in the coloured part)
SUBSTITUTE = "substitute"  # (colour, sets of N any cards each replacing one coloured card)


class IllegalActionIndex(IllegalAction):
    """An action index whose mask entry is 0 (or that is not an index at all)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "masked_action")


@dataclass(frozen=True, slots=True)
class RouteCodes:
    """How one route's payments are numbered: ``start`` + a code in ``range(size)``."""

    route: int
    kind: str
    start: int
    size: int
    colours: tuple[int, ...]  # colour choices (8 for a gray route, else the route's colour)
    lo: int  # PLAIN: fewest wild cards with a colour; FERRY_SUBST: unused
    hi: int  # PLAIN: most wild cards with a colour (hi < lo: only "all wild"); FERRY_SUBST: coloured part
    all_wild: bool  # PLAIN: whether the last code is "every card wild"


@dataclass(frozen=True, slots=True)
class Block:
    name: str
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size


def _route_codes(route: Route, rules: Rules, start: int) -> RouteCodes:
    colours = tuple(range(_NCOL)) if route.colour == GRAY else (route.colour,)
    loco_ok, _ = pay.wild_allowed(route, rules)
    length = route.length
    if route.substitute:
        return RouteCodes(route.index, SUBSTITUTE, start, len(colours) * (length + 1), colours, 0, length, False)
    if route.ferry and rules.ferry_substitute_cards:
        rest = length - route.ferry
        size = len(colours) * (route.ferry + 1) * (rest + 1)
        return RouteCodes(route.index, FERRY_SUBST, start, size, colours, 0, rest, False)
    lo = route.ferry
    hi = length - 1 if loco_ok else 0
    width = max(0, hi - lo + 1)
    return RouteCodes(route.index, PLAIN, start, len(colours) * width + (1 if loco_ok else 0), colours, lo, hi, loco_ok)


def _mix_choices(rules: Rules) -> list[tuple[tuple[str, int], ...]]:
    """Every split of the ticket count between the decks, for the policies that let a player name one."""
    out: list[tuple[tuple[str, int], ...]] = []
    for pol in (rules.initial_tickets, rules.draw_tickets):
        if not pol.choose_mix:
            continue
        for counts in product(range(pol.count + 1), repeat=len(pol.decks)):
            if sum(counts) == pol.count:
                mix = normalise_mix(dict(zip(pol.decks, counts, strict=True)))
                if mix not in out:
                    out.append(mix)
    return out


def max_offered_tickets(rules: Rules) -> int:
    """The most tickets a player is ever offered at once (setup or a draw)."""
    return max(
        sum(n for _, n in pol.deal) if not pol.choose_mix else pol.count for pol in (rules.initial_tickets, rules.draw_tickets)
    )


class ActionCodec:
    """The action layout of one edition (with its rule options). Shared by every env of that edition."""

    def __init__(self, edition: Edition) -> None:
        self.edition = ed = edition
        r = ed.rules
        self.blocks: dict[str, Block] = {}
        pos = 0

        def block(name: str, size: int) -> Block:
            nonlocal pos
            b = Block(name, pos, size)
            self.blocks[name] = b
            pos += size
            return b

        block("draw_blind", 1)
        block("draw_faceup", r.market_size)
        self.mixes = _mix_choices(r)
        self.mix_index = {m: i for i, m in enumerate(self.mixes)}
        block("draw_tickets", len(self.mixes) + 1 if self.mixes else 1)
        self.max_offered = max_offered_tickets(r)
        block("keep_tickets", (1 << self.max_offered) - 1)
        claim_start = pos
        self.route_codes: list[RouteCodes] = []
        for route in ed.routes:
            rc = _route_codes(route, r, pos)
            self.route_codes.append(rc)
            pos += rc.size
        self.blocks["claim"] = Block("claim", claim_start, pos - claim_start)
        self.has_tunnels = any(x.tunnel for x in ed.routes)
        if self.has_tunnels:
            block("tunnel_pay", TUNNEL_REVEAL + 1)
            block("tunnel_decline", 1)
        self.station_cities = [c for c in range(ed.ncities) if ed.city_area[c] is None] if r.stations else []
        self.station_city_slot = {ed.city_ids[c]: i for i, c in enumerate(self.station_cities)}
        self.max_station_cost = max(r.station_costs[: r.stations]) if r.stations else 0
        self.station_width = _NCOL * self.max_station_cost + 1
        if r.stations:
            block("build_station", len(self.station_cities) * self.station_width)
        self.passenger_slots = r.passengers
        self.max_foreign = ed.deck[PASSENGER]  # one passenger card per opponent route used
        if r.passengers:
            block("place_passenger", 3)
            block("move_passenger", r.passengers * (self.max_foreign + 1))
        block("pass", 1)
        self.size = pos
        self._route_by_id = {x.id: self.route_codes[x.index] for x in ed.routes}
        self._special = {x.id for x in ed.routes if self.route_codes[x.index].kind != PLAIN}
        self._cache: dict[Action, int] = {}
        self._mirror_cache: dict[tuple[int, tuple[int, ...]], dict[Cards, int]] = {}
        # per route, a number shared by the routes whose payments _mirror numbers alike (the same walk, the same codes)
        shapes: dict[tuple[object, ...], int] = {}
        self._shape = [
            shapes.setdefault((rc.kind, rc.colours, x.length, x.ferry, x.substitute, pay.wild_allowed(x, r)), len(shapes))
            for x, rc in zip(ed.routes, self.route_codes, strict=True)
        ]
        self._labels: list[str] | None = None
        self.unencoded = 0  # legal actions seen that had no index (stays 0 with the current engine)

    # ------------------------------------------------------------------ legal actions -> indices
    def legal_table(self, legal: Sequence[Action], view: PlayerView | SeatView) -> dict[int, Action]:
        """{index: engine action} for the legal actions of the player whose view this is."""
        cache = self._cache
        indices = list(map(cache.get, legal))  # most turns: every action's index is cached (one C loop)
        if None not in indices:
            table = dict(zip(indices, legal, strict=True))
            if len(table) == len(indices):
                return table
        return self._table(legal, indices, view)

    def _table(self, legal: Sequence[Action], indices: list[int | None], view: PlayerView | SeatView) -> dict[int, Action]:
        """The table from the cached `indices` of `legal` (None: not cached), the others indexed here."""
        table: dict[int, Action] = {}
        pos = _Position(view, self.edition)
        for a, i in zip(legal, indices, strict=True):
            if i is None:
                i = self._index(a, pos)
            if i < 0 or i in table:  # no index, or one already taken: leave it out, the mask stays exact
                self.unencoded += 1
                continue
            table[i] = a
        return table

    def legal_mask(self, legal: Sequence[Action], view: PlayerView | SeatView) -> tuple[np.ndarray, list[int], Sequence[Action]]:
        """(mask, indices, actions): a new int8 mask with 1 at the legal indices, and the items of
        ``legal_table(legal, view)`` as two aligned sequences (indices in the engine's order; the action
        of index i is ``actions[indices.index(i)]``). The same result as the table, without building a
        dict: in the usual case the mask is filled straight from the cached indices, and the count of
        its 1s tells that no index came twice (else the table's rules apply: the first action wins)."""
        indices = list(map(self._cache.get, legal))  # most turns: every action's index is cached (one C loop)
        if None not in indices:
            mask = bytearray(self.size)
            for i in indices:
                mask[i] = 1
            if mask.count(1) == len(indices):
                return np.frombuffer(mask, dtype=np.int8), indices, legal  # type: ignore[return-value]
        table = self._table(legal, indices, view)
        mask = bytearray(self.size)
        for i in table:
            mask[i] = 1
        return np.frombuffer(mask, dtype=np.int8), list(table), list(table.values())

    def _index(self, a: Action, pos: _Position) -> int:
        """Index of `a` (caching it when its index does not depend on the position); -1 if none."""
        kind = a.type
        blocks = self.blocks
        view = pos.view
        if kind == KEEP_TICKETS:
            where = pos.offered_positions
            bits = 0
            for tid in a.tickets or ():
                bits |= 1 << where[tid]
            return blocks["keep_tickets"].start + bits - 1 if 0 < bits < 1 << self.max_offered else -1
        if kind == PLACE_PASSENGER:
            start = blocks["place_passenger"].start
            if a.city is None:
                return start + 2
            route = self.edition.routes[view.last_claimed]
            c = self.edition.city_index[a.city]
            return start + (0 if c == route.a else 1)
        if kind == MOVE_PASSENGER:
            c = self.edition.city_index[a.city]  # type: ignore[index]
            slot = view.passengers[view.me].index(c)  # type: ignore[index]
            foreign = (a.cards or (0,) * NCARDS)[PASSENGER]
            if foreign > self.max_foreign:
                return -1
            return blocks["move_passenger"].start + slot * (self.max_foreign + 1) + foreign
        if kind == CLAIM and a.route in self._special:
            rc = self._route_by_id[a.route]  # type: ignore[index]
            code = self._mirror(rc, pos.hand).get(a.cards)  # type: ignore[arg-type]
            return -1 if code is None else rc.start + code
        i = self._context_free_index(a)
        if i >= 0:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[a] = i
        return i

    def _context_free_index(self, a: Action) -> int:
        kind = a.type
        blocks = self.blocks
        if kind == DRAW_BLIND:
            return blocks["draw_blind"].start
        if kind == DRAW_FACEUP:
            return blocks["draw_faceup"].start + a.slot if 0 <= (a.slot or 0) < blocks["draw_faceup"].size else -1  # type: ignore[operator]
        if kind == DRAW_TICKETS:
            b = blocks["draw_tickets"]
            if not self.mixes:
                return b.start if a.mix is None else -1
            return b.start + self.mix_index.get(a.mix, len(self.mixes))  # type: ignore[arg-type]
        if kind == PASS:
            return blocks["pass"].start
        if kind == TUNNEL_DECLINE:
            return blocks["tunnel_decline"].start
        cards = a.cards
        if cards is None:
            return -1
        wild = cards[LOCOMOTIVE] + cards[PLUS4]
        if kind == TUNNEL_PAY:
            return blocks["tunnel_pay"].start + wild if wild <= TUNNEL_REVEAL else -1
        if kind == BUILD_STATION:
            slot = self.station_city_slot.get(a.city)  # type: ignore[arg-type]
            if slot is None:
                return -1
            base = blocks["build_station"].start + slot * self.station_width
            if wild == sum(cards):
                return base + self.station_width - 1
            c = _single_colour(cards)
            if c < 0 or wild >= self.max_station_cost:
                return -1
            return base + c * self.max_station_cost + wild
        if kind == CLAIM:
            rc = self._route_by_id.get(a.route)  # type: ignore[arg-type]
            if rc is None:
                return -1
            length = self.edition.routes[rc.route].length
            if wild == length and rc.all_wild and sum(cards) == length:
                return rc.start + rc.size - 1
            c = _single_colour(cards)
            if c < 0 or c not in rc.colours or not rc.lo <= wild <= rc.hi:
                return -1
            return rc.start + rc.colours.index(c) * (rc.hi - rc.lo + 1) + wild - rc.lo
        return -1

    def _mirror(self, rc: RouteCodes, hand: tuple[int, ...]) -> dict[Cards, int]:
        """Canonical payments of a substitution route with their codes (first code wins, like the engine's dedupe).

        Walks the same choices as ``payments.route_payments`` for these routes (colour, locomotives
        replaced or sets of any cards, wilds) and fills the "any" cards by the documented canonical
        rule (the engine's own ``_fill_any``); the tests check payment for payment that the engine offers the same set.
        Routes of the same shape (``_shape``: what this walk reads of a route) share one cached answer per hand.
        """
        key = (self._shape[rc.route], hand)
        got = self._mirror_cache.get(key)
        if got is not None:
            return got
        route = self.edition.routes[rc.route]
        rules = self.edition.rules
        loco_ok, plus4_ok = pay.wild_allowed(route, rules)
        nloco = hand[LOCOMOTIVE] if loco_ok else 0
        nplus = hand[PLUS4] if plus4_ok else 0
        length = route.length
        out: dict[Cards, int] = {}
        order = pay.fill_order(hand)
        if rc.kind == SUBSTITUTE:
            s = route.substitute
            for ci, c in enumerate(rc.colours):
                if not hand[c] and not nloco + nplus:
                    continue
                for sets in range(length + 1):
                    needed = length - sets
                    p = [0] * NCARDS
                    p[c] = min(hand[c], needed)
                    short = needed - p[c]
                    p[PLUS4] = min(nplus, short)
                    p[LOCOMOTIVE] = min(nloco, short - p[PLUS4])
                    if short - p[PLUS4] - p[LOCOMOTIVE]:
                        continue
                    if not pay._fill_any(hand, p, sets * s, c, order):
                        break
                    out.setdefault(tuple(p), ci * (length + 1) + sets)
        else:
            subst = rules.ferry_substitute_cards
            ferry = route.ferry
            rest = length - ferry
            for ci, c in enumerate(rc.colours):
                for k in range(ferry + 1):
                    for w in range(max(0, rest - hand[c]), rest + 1):
                        wilds = ferry - k + w
                        if wilds > nloco + nplus:
                            break
                        p = [0] * NCARDS
                        p[c] = rest - w
                        p[PLUS4] = min(wilds, nplus)
                        p[LOCOMOTIVE] = wilds - p[PLUS4]
                        if pay._fill_any(hand, p, subst * k, c, order):
                            out.setdefault(tuple(p), (ci * (ferry + 1) + k) * (rest + 1) + w)
        if len(self._mirror_cache) >= _CACHE_LIMIT // 10:
            self._mirror_cache.clear()
        self._mirror_cache[key] = out
        return out

    # ------------------------------------------------------------------ descriptions
    def describe(self, index: int) -> str:
        """What an index means, in words (for error messages and docs)."""
        if self._labels is None:
            self._labels = self._build_labels()
        return self._labels[index]

    def block_of(self, index: int) -> str:
        for b in self.blocks.values():
            if b.start <= index < b.stop and b.name != "claim":
                return b.name
        return "claim"

    def _build_labels(self) -> list[str]:
        ed = self.edition
        labels = [""] * self.size
        b = self.blocks
        labels[b["draw_blind"].start] = "draw the top card of the deck"
        for k in range(b["draw_faceup"].size):
            labels[b["draw_faceup"].start + k] = f"draw face-up card from market slot {k}"
        if self.mixes:
            for i, m in enumerate(self.mixes):
                labels[b["draw_tickets"].start + i] = f"draw tickets, mix {dict(m)}"
            labels[b["draw_tickets"].start + len(self.mixes)] = "draw tickets: all that are left (fewer than the count)"
        else:
            labels[b["draw_tickets"].start] = "draw destination tickets"
        for bits in range(1, 1 << self.max_offered):
            kept = [j for j in range(self.max_offered) if bits >> j & 1]
            labels[b["keep_tickets"].start + bits - 1] = f"keep the offered tickets at positions {kept}"
        for rc in self.route_codes:
            rid = ed.routes[rc.route].id
            for code in range(rc.size):
                labels[rc.start + code] = f"claim {rid} paying {self._payment_words(rc, code)}"
        if self.has_tunnels:
            for w in range(TUNNEL_REVEAL + 1):
                labels[b["tunnel_pay"].start + w] = f"pay the tunnel's extra cards with {w} locomotive(s)"
            labels[b["tunnel_decline"].start] = "decline the tunnel (take the cards back)"
        if "build_station" in b:
            for slot, c in enumerate(self.station_cities):
                base = b["build_station"].start + slot * self.station_width
                for ci in range(_NCOL):
                    for w in range(self.max_station_cost):
                        labels[base + ci * self.max_station_cost + w] = (
                            f"build a station in {ed.city_ids[c]} paying {COLOURS[ci]} cards and {w} locomotive(s)"
                        )
                labels[base + self.station_width - 1] = f"build a station in {ed.city_ids[c]} paying locomotives only"
        if self.passenger_slots:
            s = b["place_passenger"].start
            labels[s] = "place a passenger on end A of the route just claimed"
            labels[s + 1] = "place a passenger on end B of the route just claimed"
            labels[s + 2] = "place no passenger"
            for slot in range(self.passenger_slots):
                for f in range(self.max_foreign + 1):
                    labels[b["move_passenger"].start + slot * (self.max_foreign + 1) + f] = (
                        f"move passenger {slot} on the best trip using {f} opponent route(s)"
                    )
        labels[b["pass"].start] = "pass (nothing else is legal)"
        return labels

    def _payment_words(self, rc: RouteCodes, code: int) -> str:
        route = self.edition.routes[rc.route]
        if rc.kind == PLAIN:
            if rc.all_wild and code == rc.size - 1:
                return "locomotives only"
            width = rc.hi - rc.lo + 1
            ci, w = divmod(code, width)
            return f"{COLOURS[rc.colours[ci]]} cards and {w + rc.lo} locomotive(s)"
        if rc.kind == SUBSTITUTE:
            ci, sets = divmod(code, route.length + 1)
            return (
                f"{COLOURS[rc.colours[ci]]} cards (locomotives wild where allowed) with {sets} set(s) of "
                f"{route.substitute} other cards"
            )
        rest = rc.hi
        ci, rem = divmod(code, (route.ferry + 1) * (rest + 1))
        k, w = divmod(rem, rest + 1)
        return (
            f"{COLOURS[rc.colours[ci]]} cards with {w} locomotive(s) among them, and {k} of the {route.ferry} ferry "
            f"locomotive(s) replaced by {self.edition.rules.ferry_substitute_cards} other cards each"
        )


class _Position:
    """The view an index table is built for, and what the position-dependent indices read of it,
    each computed at most once per table."""

    def __init__(self, view: PlayerView | SeatView, edition: Edition) -> None:
        self.view = view
        self.edition = edition

    @cached_property
    def offered_positions(self) -> dict[str, int]:
        """Ticket id -> its position in my current offer."""
        ids = self.edition.tickets
        return {ids[t].id: j for j, t in enumerate(self.view.offered)}

    @cached_property
    def hand(self) -> tuple[int, ...]:
        return tuple(self.view.hand)


def _single_colour(cards: Cards) -> int:
    """The one colour used in `cards` (-1 if none or several)."""
    found = -1
    for c in range(_NCOL):
        if cards[c]:
            if found >= 0:
                return -1
            found = c
    return found


@per_edition
def codec_for(edition: Edition) -> ActionCodec:
    """The (shared) codec of an edition object; editions with rule options are distinct objects."""
    return ActionCodec(edition)
