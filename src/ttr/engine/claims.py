"""Claiming routes, with tunnels and ferries: which lanes of a double are open, the claims offered (by
route shape, with canonical payments from payments.py), paying, revealing tunnel cards and paying or
declining the extra."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..cards import CARD_NAMES, COLOURS, GRAY, LOCOMOTIVE, NO_CARD, PASSENGER, PLUS4, Cards
from ..editions import Edition, Route, per_edition
from ..errors import IllegalAction
from . import drawing, ending, passengers
from . import payments as pay
from .actions import (
    CLAIM,
    TUNNEL_PAY,
    Action,
)
from .drawing import cards_json
from .events import Event
from .passengers import PASSENGER_UNPLACED
from .phases import PLACE, TUNNEL, TURN

if TYPE_CHECKING:
    from .game import Game


PLAIN_COLOURS = len(COLOURS)
RouteEntry = tuple[int, str, tuple[int, ...]]  # route index, id, the other lanes of its group
# length, a route of the shape (its payments stand for all), the shape's routes, and its slot in a row of
# ``_ClaimTables.by_hand`` (special shapes; -1: a plain shape, see _ClaimTables)
Shape = tuple[int, Route, tuple[RouteEntry, ...], int]
ShapeGroup = tuple[int, bool, bool, list[Shape]]
PAYMENT_CACHE_MAX = 50_000  # canonical payments (or pieces) of plain shapes kept per edition (cleared when full)
HAND_CACHE_MAX = 20_000  # hands whose payments for special shapes are kept per edition (cleared when full)


class _ClaimTables:
    """Per edition: routes grouped by what their payments depend on, and memos of canonical payments (they
    depend only on the route's shape and the part of the hand that can pay), so legal-move generation
    mostly skips recomputing them:

    * ``payments``: a coloured plain shape's, by (shape, (colour count, locomotives, +4 locomotives));
    * ``pieces``: a gray plain shape's payments in one colour (``payments.plain_payments``), by (shape,
      colour, that colour's count, locomotives, +4 locomotives usable), every count capped at the length:
      a gray shape's payments are its pieces one colour after the other (``_plain_payments``), so they
      are put together from a few small, always-hit memos although the whole hand differs at every turn;
      A ferry with substitutes is put together the same way while the hand holds too few cards for any
      substitute (its payments are then those of a plain ferry);
    * ``by_hand``: for special shapes (which fill "any cards" in the order of the whole hand), one row
      per hand (without passenger cards), one slot per shape, filled when first asked. One lookup per
      move serves every such shape; hands recur a lot (in random play about four moves in five meet a
      hand already seen), while per shape the keys were too many to keep;
    * ``ferries``: a coloured ferry's with substitutes (Nordic), behind the rows (when a row has no slot
      yet), by (shape, ``payments.fill_key`` of the most "any" cards it can need, its colour's count,
      +4 locomotives, locomotives, each count capped at the length plus those "any" cards): its payments
      read nothing else of the hand, and this key recurs where whole hands do not;
    * ``interned``: every special payment list once, so the rows hold references only.

    `touched[r]`: the groups whose claims change when route r is claimed (its own group and its twin
    lanes' groups). Freed with the edition's entry in the bounded cache."""

    __slots__ = ("by_hand", "ferries", "groups", "interned", "payments", "pieces", "slots", "touched", "wild")

    def __init__(self, groups: list[ShapeGroup], routes: Sequence[Route], slots: int) -> None:
        self.groups = groups
        self.slots = slots
        self.payments: dict[tuple[int, tuple[int, ...]], list[Cards]] = {}
        self.by_hand: dict[tuple[int, ...], list[list[Cards] | None]] = {}
        self.interned: dict[tuple[Cards, ...], list[Cards]] = {}
        self.ferries: dict[tuple[int, tuple[int, ...], int, int, int], list[Cards]] = {}
        self.pieces: dict[tuple[int, int, int, int, int], list[Cards]] = {}
        self.wild: dict[int, tuple[bool, bool]] = {}  # per shape (its route's index): payments.wild_allowed
        nroutes = len(routes)
        group_of = [0] * nroutes
        for gi, (_, _, _, shapes) in enumerate(groups):
            for _, _, entries, _ in shapes:
                for ri, _, _ in entries:
                    group_of[ri] = gi
        touched: list[tuple[int, ...]] = [() for _ in range(nroutes)]
        for _, _, _, shapes in groups:
            for _, _, entries, _ in shapes:
                for ri, _, siblings in entries:
                    touched[ri] = tuple(sorted({group_of[ri], *(group_of[o] for o in siblings)}))
        self.touched = touched

    def hand_row(self, whole: tuple[int, ...]) -> list[list[Cards] | None]:
        """The row of payments for the hand `whole` (passenger cards left out), made empty if new."""
        row = self.by_hand.get(whole)
        if row is None:
            if len(self.by_hand) >= HAND_CACHE_MAX:
                self.by_hand.clear()
            row = self.by_hand[whole] = [None] * self.slots
        return row

    def intern(self, payments: list[Cards]) -> list[Cards]:
        """`payments`, or the equal list already kept (the memos hold each list once)."""
        key = tuple(payments)
        kept = self.interned.get(key)
        if kept is None:
            if len(self.interned) >= PAYMENT_CACHE_MAX:
                self.interned.clear()
            kept = self.interned[key] = payments
        return kept


def _plain_payments(tables: _ClaimTables, rules: Any, rep: Route, hand: list[int]) -> list[Cards]:
    """The canonical payments of `rep`'s shape without "any cards" (a gray plain shape, or a ferry whose
    substitutes the hand cannot afford): its pieces colour by colour (``pieces``), in the order
    ``payments.route_payments`` lists them."""
    length = rep.length
    wild = tables.wild.get(rep.index)
    if wild is None:
        wild = tables.wild[rep.index] = pay.wild_allowed(rep, rules)
    nloco = min(hand[LOCOMOTIVE], length) if wild[0] else 0
    nplus = min(hand[PLUS4], length) if wild[1] else 0
    pieces = tables.pieces
    out: list[Cards] = []
    first = 0 if rep.colour == GRAY else rep.colour
    need = max(1, length - nloco - nplus)  # the fewest cards of a colour that a payment in it takes
    for c in range(PLAIN_COLOURS) if rep.colour == GRAY else (first,):
        have = hand[c]
        if have < need and c != first:
            continue  # no payment in this colour (the all-wild payment comes with the first colour)
        key = (rep.index, c, min(have, length), nloco, nplus)
        piece = pieces.get(key)
        if piece is None:
            if len(pieces) > PAYMENT_CACHE_MAX:
                pieces.clear()
            piece = pieces[key] = pay.plain_payments(length, rep.ferry, c, have, nloco, nplus, c == first)
        out += piece
    return out


def _special_payments(tables: _ClaimTables, rules: Any, rep: Route, hand: list[int], order: list[int]) -> list[Cards]:
    """The canonical payments of `rep`'s special shape from `hand` (`order`: its ``payments.fill_order``),
    interned; none without listing them when ``payments.any_payment`` says so; a coloured ferry's memoised
    in ``ferries`` (see _ClaimTables)."""
    if not pay.any_payment(rep, hand, rules):
        return tables.intern([])
    if rep.colour == GRAY or rep.substitute:
        return tables.intern(pay.route_payments(rep, hand, rules, order))
    n = rules.ferry_substitute_cards * rep.ferry  # the most "any" cards a payment can hold
    cap = rep.length + n
    key = (
        rep.index,
        pay.fill_key(hand, order, rep.colour, n),
        min(hand[rep.colour], cap),
        min(hand[PLUS4], cap),
        min(hand[LOCOMOTIVE], cap),
    )
    memo = tables.ferries
    payments = memo.get(key)
    if payments is None:
        if len(memo) >= PAYMENT_CACHE_MAX:
            memo.clear()
        payments = memo[key] = tables.intern(pay.route_payments(rep, hand, rules, order))
    return payments


def _payments(tables: _ClaimTables, rules: Any, rep: Route, hand: list[int], part: tuple[int, ...]) -> list[Cards]:
    """The canonical payments of `rep`'s coloured plain shape from `hand`, of which they depend only on `part`."""
    key = (rep.index, part)
    memo = tables.payments
    payments = memo.get(key)
    if payments is None:
        if len(memo) > PAYMENT_CACHE_MAX:
            memo.clear()
        payments = memo[key] = pay.route_payments(rep, hand, rules)
    return payments


GroupClaims = tuple[tuple[tuple[int, ...], int], list[Action]]  # ((part of the hand, limit), the group's claims)


class ClaimCache:
    """A game's claims kept between moves: per player and route group, (what the group's claims depended
    on, those claims), or None once a claim touched the group (see claim_actions). Entries are never
    changed in place, so a copy shares them. Holds the edition's tables too (no cache lookup per move).
    (Keeping every key's claims until the next claim was tried: hands seldom recur within a game, so it
    rebuilt nearly as often and cost a hash per group and move.)"""

    __slots__ = ("players", "tables")

    def __init__(self, tables: _ClaimTables, players: list[list[GroupClaims | None]]) -> None:
        self.tables = tables
        self.players = players

    def copy(self) -> ClaimCache:
        return ClaimCache(self.tables, [c[:] for c in self.players])


def new_claim_cache(g: Game) -> ClaimCache:
    tables = _claim_tables(g.edition)
    return ClaimCache(tables, [[None] * len(tables.groups) for _ in range(g.n)])


@per_edition
def _claim_tables(ed: Edition) -> _ClaimTables:
    """Routes grouped by everything their payments depend on. Groups are keyed by (colour,
    locomotives usable, needs only a total-count check); within a group, shapes (length, tunnel,
    ferry, substitution) come shortest first so the affordability scan can stop early. Gray and special
    shapes get a slot in the rows of payments per hand (see _ClaimTables)."""
    rules = ed.rules
    by_shape: dict[tuple[int, int, bool, int, int], list[Route]] = {}
    for r in ed.routes:
        by_shape.setdefault((r.colour, r.length, r.tunnel, r.ferry, r.substitute), []).append(r)
    by_group: dict[tuple[int, bool, bool], list[Shape]] = {}
    slots = 0
    for (colour, length, _tunnel, ferry, substitute), routes in sorted(by_shape.items()):
        wild_ok = pay.wild_allowed(routes[0], rules)[0]
        special = bool(substitute or (ferry and rules.ferry_substitute_cards))
        entries = tuple(
            (r.index, r.id, tuple(o for o in ed.group_routes[r.group] if o != r.index) if r.group >= 0 else ()) for r in routes
        )
        slot = -1
        if special:
            slot = slots
            slots += 1
        by_group.setdefault((colour, wild_ok, special), []).append((length, routes[0], entries, slot))
    return _ClaimTables(
        [
            (colour, wild_ok, special, sorted(shapes, key=lambda s: s[0]))
            for (colour, wild_ok, special), shapes in by_group.items()
        ],
        ed.routes,
        slots,
    )


# ------------------------------------------------------------------ legality
def lane_closed(g: Game, route: Route, p: int) -> bool:
    """Whether the double-route rule closes `route` to p (lane_problem gives which way)."""
    return lane_problem(g, route, p) is not None


def lane_problem(g: Game, route: Route, p: int) -> str | None:
    """``own_lane`` if p owns a twin lane of `route`, ``lane_closed`` if another twin closes it to p (fewer players
    than all_lanes_min_players), else None: the double-route rule, for the problem codes and the refusals alike."""
    if route.group < 0:
        return None
    return lane_code(g.route_owner, g.edition.group_routes[route.group], p, g.n >= g.rules.all_lanes_min_players)


def lane_code(owner: list[int], lanes: Sequence[int], p: int, all_lanes: bool) -> str | None:
    """lane_problem from its parts: the route owners, the lanes of the double, and whether every lane is open at
    this player count (own_lane wins over lane_closed)."""
    code = None
    for lane in lanes:
        o = owner[lane]
        if o == p:
            return "own_lane"
        if o >= 0 and not all_lanes:
            code = "lane_closed"
    return code


ProblemRow = tuple[int, str, int, int, tuple[int, ...]]  # route index, id, length, colour, the other lanes of its double


@per_edition
def _problem_rows(ed: Edition) -> tuple[ProblemRow, ...]:
    """Per route, what claim_problem_codes reads: its index, id, length, colour and the other lanes of its double."""
    return tuple(
        (r.index, r.id, r.length, r.colour, tuple(o for o in ed.group_routes[r.group] if o != r.index) if r.group >= 0 else ())
        for r in ed.routes
    )


def claim_problem_codes(g: Game, p: int) -> dict[str, str]:
    """Why p cannot claim each route it cannot claim now, as a code: route id -> ``claimed``, ``own_lane``,
    ``lane_closed``, ``trains`` (fewer trains than its length) or ``cards`` (no legal payment in p's hand); a
    route left out is claimable. Whether a payment exists is read from the claims of ``claim_actions`` (cached
    between calls), so these answers and the legal claims cannot disagree; the double-route answers are
    ``lane_code``'s, as the refusals' (lane_problem). What the server sends (the parameters of each answer
    are facts of the map and the view: see claim_problems)."""
    payable = {a.route for a in claim_actions(g, p)}
    owner = g.route_owner
    trains = g.trains[p]
    all_lanes = g.n >= g.rules.all_lanes_min_players
    out: dict[str, str] = {}
    for index, rid, length, _, twins in _problem_rows(g.edition):
        if rid in payable:
            continue
        if owner[index] >= 0:
            out[rid] = "claimed"
            continue
        lane = lane_code(owner, twins, p, all_lanes) if twins else None
        out[rid] = lane if lane is not None else "trains" if trains < length else "cards"
    return out


def claim_problems(g: Game, p: int) -> dict[str, dict[str, Any]]:
    """claim_problem_codes with each answer's parameters, for a reader without the map and the view at hand:
    route id -> {"code": ..., parameters}: ``claimed`` (owner), ``own_lane``, ``lane_closed`` (players,
    all_lanes_min_players), ``trains`` (length, trains), ``cards`` (length, colour)."""
    codes = claim_problem_codes(g, p)
    rules = g.rules
    out: dict[str, dict[str, Any]] = {}
    for index, rid, length, colour, _ in _problem_rows(g.edition):
        code = codes.get(rid)
        if code is None:
            continue
        why: dict[str, Any] = {"code": code}
        if code == "claimed":
            why["owner"] = g.route_owner[index]
        elif code == "lane_closed":
            why.update(players=g.n, all_lanes_min_players=rules.all_lanes_min_players)
        elif code == "trains":
            why.update(length=length, trains=g.trains[p])
        elif code == "cards":
            why.update(length=length, colour=COLOURS[colour] if colour >= 0 else "gray")
        out[rid] = why
    return out


def route_claim_problem(g: Game, route: Route, p: int) -> str | None:
    if g.route_owner[route.index] >= 0:
        return f"{route.id} is already claimed by player {g.route_owner[route.index]}"
    lane = lane_problem(g, route, p)
    if lane == "own_lane":
        return f"you already own a lane between these cities; {route.id} is closed to you"
    if lane == "lane_closed":
        return (
            f"{route.id}: with {g.n} players only one lane of a double route can be used "
            f"(all lanes open from {g.rules.all_lanes_min_players} players)"
        )
    if g.trains[p] < route.length:
        return f"{route.id} needs {route.length} trains; you have {g.trains[p]}"
    return None


def claim_actions(g: Game, p: int) -> list[Action]:
    """Claims with canonical payments. Routes are grouped by shape (colour, length, tunnel,
    ferry, substitution), so each shape's affordability and payments are computed once.

    Incremental: a group's claims depend only on the part of p's hand that can pay for it, on how many
    trains p has left (both in the group's key) and on the owners of its routes and their twin lanes
    (a claim clears the groups it touches: ``forget_claims``). So a group is rebuilt only when one of
    these changed; drawing a red card rebuilds the red and the gray groups, not the others."""
    hand = g.hands[p]
    trains = g.trains[p]
    owner = g.route_owner
    rules = g.rules
    all_lanes = g.n >= rules.all_lanes_min_players
    locos = hand[LOCOMOTIVE]
    plus4 = hand[PLUS4]
    max_colour = max(hand[:8])
    total = sum(hand) - hand[PASSENGER]
    new = tuple.__new__
    whole: tuple[int, ...] | None = None  # the hand without passenger cards (they never pay for routes)
    row: list[list[Cards] | None] | None = None  # its payments for special shapes (once one is needed)
    order: list[int] | None = None  # its fill order (payments.fill_order), once a payment needs it
    out: list[Action] = []
    tables = g._claim_cache.tables
    cache = g._claim_cache.players[p]
    for gi, (colour, wild_ok, special, shapes) in enumerate(tables.groups):
        limit = total if special else (max_colour if colour == GRAY else hand[colour]) + (locos + plus4 if wild_ok else 0)
        if limit > trains:
            limit = trains
        if shapes[0][0] > limit:
            continue
        if special or colour == GRAY:
            if whole is None:
                whole = tuple(hand[:PASSENGER])
            part = whole
        else:
            part = (hand[colour], locos, plus4)
        key = (part, limit)
        entry = cache[gi]
        if entry is not None and entry[0] == key:
            out.extend(entry[1])
            continue
        acts: list[Action] = []
        for length, rep, entries, slot in shapes:
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
                    if special and rep.ferry and not rep.substitute and total < length + rules.ferry_substitute_cards - 1:
                        # a ferry whose substitutes would need more cards than the hand holds (the length,
                        # less one per replaced locomotive, plus the substitutes): only its plain payments
                        payments = _plain_payments(tables, rules, rep, hand)
                    elif special:
                        if row is None:
                            row = tables.hand_row(part)
                        payments = row[slot]
                        if payments is None:
                            if order is None:
                                order = pay.fill_order(hand)
                            payments = row[slot] = _special_payments(tables, rules, rep, hand, order)
                    elif colour == GRAY:
                        payments = _plain_payments(tables, rules, rep, hand)
                    else:
                        payments = _payments(tables, rules, rep, hand, part)
                for cards in payments:
                    acts.append(new(Action, (CLAIM, rid, cards, None, None, None, None, None)))
        cache[gi] = (key, acts)
        out.extend(acts)
    return out


def forget_claims(g: Game, route: Route) -> None:
    """`route` was just claimed: every player's cached claims of the groups it touches are stale."""
    claim_cache = g._claim_cache
    touched = claim_cache.tables.touched[route.index]
    for cache in claim_cache.players:
        for gi in touched:
            cache[gi] = None


def claim(g: Game, p: int, route: Route, cards: Cards, ev: list[Event] | None) -> None:
    hand = g.hands[p]
    for i, k in enumerate(cards):
        if k:
            hand[i] -= k
    if route.tunnel:
        revealed = []
        for _ in range(3):
            card = drawing.draw_from_deck(g)
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
            g.tunnel = (route.index, cards, revealed, extra, colour)
            g.phase = TUNNEL
            return
        g.discard.extend(revealed)
    discard_cards(g, cards)
    complete_claim(g, p, route, cards, ev)


def discard_cards(g: Game, cards: Cards) -> None:
    d = g.discard
    for i, k in enumerate(cards):
        if k:
            d.extend([i] * k)


def complete_claim(g: Game, p: int, route: Route, cards: Cards, ev: list[Event] | None) -> None:
    g.route_owner[route.index] = p
    forget_claims(g, route)
    if g.rules.passengers:
        passengers.forget_trails(g, (route.a, route.b), p)
    g.trains[p] -= route.length
    g.scores[p] += route.points
    g._labels[p] = None
    if ev is not None:
        ev.append(Event("claim", p, {"route": route.id, "cards": cards_json(cards), "points": route.points}))
    if (
        g.rules.passengers
        and PASSENGER_UNPLACED in g.passengers[p]
        and (passengers.can_place(g, route.a) or passengers.can_place(g, route.b))
    ):
        g.last_claimed = route.index
        g.phase = PLACE
        return
    ending.end_turn(g, ev)


def tunnel_pay(g: Game, p: int, extra_cards: Cards, ev: list[Event] | None) -> None:
    assert g.tunnel is not None
    ri, paid, revealed, _, _ = g.tunnel
    hand = g.hands[p]
    for i, k in enumerate(extra_cards):
        hand[i] -= k
    g.tunnel = None
    g.phase = TURN
    g.discard.extend(revealed)
    total = tuple(a + b for a, b in zip(paid, extra_cards, strict=True))
    discard_cards(g, total)
    if ev is not None:
        ev.append(Event("tunnel_pay", p, {"route": g.edition.routes[ri].id, "cards": cards_json(extra_cards)}))
    complete_claim(g, p, g.edition.routes[ri], total, ev)


def tunnel_decline(g: Game, p: int, ev: list[Event] | None) -> None:
    assert g.tunnel is not None
    ri, paid, revealed, _, _ = g.tunnel
    hand = g.hands[p]
    for i, k in enumerate(paid):
        hand[i] += k
    g.discard.extend(revealed)
    g.tunnel = None
    if ev is not None:
        ev.append(Event("tunnel_decline", p, {"route": g.edition.routes[ri].id}))
    ending.end_turn(g, ev)


def check_claim(g: Game, a: Action, p: int) -> Route:
    """A claim: the route is open to p and the cards pay for it. Returns the route."""
    if g.phase != TURN:
        raise IllegalAction(f"cannot claim a route now (phase: {g.phase})", "wrong_phase")
    ed = g.edition
    ri = ed.route_index.get(a.route)  # type: ignore[arg-type]
    if ri is None:
        raise IllegalAction(f"unknown route {a.route!r}", "unknown_route")
    route = ed.routes[ri]
    problem = route_claim_problem(g, route, p)
    if problem:
        raise IllegalAction(problem, "route_unavailable")
    drawing.check_hand(a.cards, g.hands[p])  # type: ignore[arg-type]
    problem = pay.route_payment_problem(route, a.cards, g.rules)  # type: ignore[arg-type]
    if problem:
        raise IllegalAction(problem, "bad_payment")
    return route


def check_tunnel(g: Game, a: Action, p: int) -> None:
    """Paying a tunnel's extra cards, or declining."""
    if g.phase != TUNNEL or g.tunnel is None:
        raise IllegalAction("there is no tunnel to pay for", "wrong_phase")
    if a.type == TUNNEL_PAY:
        drawing.check_hand(a.cards, g.hands[p])  # type: ignore[arg-type]
        problem = pay.tunnel_payment_problem(g.tunnel[3], g.tunnel[4], a.cards)  # type: ignore[arg-type]
        if problem:
            raise IllegalAction(problem, "bad_payment")
