"""Card-level decisions shared by the scripted bots: what the hand still needs, which card to draw,
how to pay, tunnels, stations, passengers and ticket mixes. All inputs come from a ``PlayerView``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..cards import GRAY, LOCOMOTIVE, NCARDS, PASSENGER, PLUS4
from ..editions import Rules
from ..engine.actions import (
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    MOVE_PASSENGER,
    TUNNEL_DECLINE,
    TUNNEL_PAY,
    Action,
)
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .board import MapInfo

NCOL = 8


@dataclass
class Needs:
    """Cards a set of routes still needs beyond the hand."""

    need: list[int]  # per colour: cards the routes ask for (gray routes assigned to a colour)
    deficit: list[int]  # per colour: need - held (>= 0)
    wild_deficit: int  # locomotives that must be locomotives (ferry icons) still missing
    total_deficit: int  # cards still missing overall, after counting usable locomotives
    route_colour: dict[int, int]  # gray route -> colour it will be paid with
    route_missing: dict[int, int]  # route -> cards still missing for it alone (hand counted once)


def locos_wild_on(info: MapInfo, rules: Rules, r: int) -> bool:
    return rules.locomotives_wild == "all" or info.tunnel[r] or info.ferry[r] > 0


def card_needs(info: MapInfo, rules: Rules, routes: Sequence[int], hand: Sequence[int]) -> Needs:
    """Colour requirements of `routes` (in priority order) against `hand`."""
    need = [0] * NCOL
    wild_need = 0
    gray: list[int] = []
    route_colour: dict[int, int] = {}
    for r in routes:
        rest = info.length[r] - info.ferry[r]
        wild_need += info.ferry[r]
        c = info.colour[r]
        if c == GRAY:
            gray.append(r)
        else:
            need[c] += rest
    for r in sorted(gray, key=lambda x: -info.length[x]):
        rest = info.length[r] - info.ferry[r]
        c = max(range(NCOL), key=lambda k: (hand[k] - need[k], -k))
        route_colour[r] = c
        need[c] += rest
    deficit = [max(0, need[c] - hand[c]) for c in range(NCOL)]
    wilds = hand[LOCOMOTIVE] + hand[PLUS4]
    wild_deficit = max(0, wild_need - wilds)
    spare_wilds = max(0, wilds - wild_need)
    wild_everywhere = rules.locomotives_wild == "all"
    total = sum(deficit) + wild_deficit
    if wild_everywhere:
        total = max(wild_deficit, total - spare_wilds)
    # Missing cards per route, serving routes in priority order from one shared hand.
    left = list(hand)
    route_missing: dict[int, int] = {}
    for r in routes:
        c = route_colour.get(r, info.colour[r])
        rest = info.length[r] - info.ferry[r]
        take = min(left[c], rest)
        left[c] -= take
        short = rest - take
        icons = info.ferry[r]
        wild_needed = icons + (short if locos_wild_on(info, rules, r) else 0)
        use = min(left[LOCOMOTIVE] + left[PLUS4], wild_needed)
        missing = wild_needed - use + (0 if locos_wild_on(info, rules, r) else short)
        for k in (PLUS4, LOCOMOTIVE):
            t = min(left[k], use)
            left[k] -= t
            use -= t
        route_missing[r] = missing
    return Needs(need, deficit, wild_deficit, total, route_colour, route_missing)


def card_values(info: MapInfo, rules: Rules, needs: Needs, routes: Sequence[int], hand: Sequence[int]) -> list[float]:
    """How much one more card of each kind helps (0.05 = filler, about 1 = a needed card)."""
    values = [0.05] * NCARDS
    for c in range(NCOL):
        if needs.deficit[c] > 0:
            values[c] = 1.0
    # A card that finishes (or nearly finishes) the first routes of the plan is worth more.
    for rank, r in enumerate(routes[:4]):
        missing = needs.route_missing.get(r, 0)
        if missing <= 0:
            continue
        bonus = (0.6 if missing == 1 else 0.3 if missing == 2 else 0.1) / (1 + rank)
        c = needs.route_colour.get(r, info.colour[r])
        values[c] += bonus
    any_deficit = needs.total_deficit > 0
    wild_value = 0.0
    if needs.wild_deficit > 0:
        wild_value = 2.2
    elif any_deficit:
        wild_value = 1.2 if rules.locomotives_wild == "all" else 0.3
    values[LOCOMOTIVE] = wild_value
    long_need = any(info.length[r] >= rules.plus4_min_length for r in routes)
    values[PLUS4] = wild_value if long_need else 0.05
    values[PASSENGER] = 0.05
    return values


def blind_value(values: Sequence[float], view: PlayerView) -> float:
    """Expected value of a blind card, from the cards not visible to this player."""
    ed = view.edition
    unseen = list(ed.deck)
    for i, k in enumerate(view.hand or ()):
        unseen[i] -= k
    for c in view.market:
        if c >= 0:
            unseen[c] -= 1
    for i, k in enumerate(view.discard):
        unseen[i] -= k
    total = sum(max(0, u) for u in unseen)
    if total <= 0:
        return 0.0
    return sum(max(0, u) * v for u, v in zip(unseen, values, strict=False)) / total


def choose_draw(view: PlayerView, legal: Sequence[Action], values: Sequence[float]) -> Action | None:
    """The best card draw among `legal` by card value (a face-up locomotive ends the draw at once)."""
    second = view.phase == Phase.SECOND_CARD
    bv = blind_value(values, view)
    best: Action | None = None
    best_score = -1.0
    single = view.edition.rules.faceup_locomotive_single
    for a in legal:
        if a.type == DRAW_BLIND:
            score = bv + 0.01  # tie goes to the blind card: it reveals nothing
        elif a.type == DRAW_FACEUP:
            card = view.market[a.slot]  # type: ignore[index]
            score = values[card]
            if card == LOCOMOTIVE and single and not second:
                score -= bv  # a face-up locomotive is the whole draw: it costs the second card
        else:
            continue
        if score > best_score:
            best, best_score = a, score
    return best


def claims_by_route(legal: Iterable[Action]) -> dict[str, list[Action]]:
    out: dict[str, list[Action]] = {}
    for a in legal:
        if a.type == CLAIM:
            out.setdefault(a.route, []).append(a)  # type: ignore[arg-type]
    return out


def payment_cost(cards: Sequence[int], needs: Needs | None, scarce_wild: bool) -> float:
    """How much a payment hurts the rest of the plan (lower is better)."""
    cost = 0.0
    for c in range(NCOL):
        k = cards[c]
        if k:
            needed = needs is not None and needs.need[c] > 0
            cost += k * (1.0 if needed else 0.25)
    cost += cards[LOCOMOTIVE] * (4.0 if scarce_wild else 2.5)
    cost += cards[PLUS4] * (3.0 if scarce_wild else 2.0)
    cost += cards[PASSENGER] * 0.5
    return cost


def best_payment(options: Sequence[Action], needs: Needs | None, scarce_wild: bool = False) -> Action:
    return min(options, key=lambda a: (payment_cost(a.cards, needs, scarce_wild), a.cards))  # type: ignore[arg-type]


def tunnel_choice(view: PlayerView, legal: Sequence[Action], wanted: bool, max_extra: int = 1) -> Action:
    """Pay a revealed tunnel surcharge when the route is wanted (or cheap), else decline."""
    pays = [a for a in legal if a.type == TUNNEL_PAY]
    decline = next(a for a in legal if a.type == TUNNEL_DECLINE)
    if not pays:
        return decline
    extra = view.tunnel[3] if view.tunnel else 0
    if not wanted and extra > max_extra:
        return decline
    return min(pays, key=lambda a: (a.cards[LOCOMOTIVE] * 3 + a.cards[PLUS4] * 2, a.cards))  # type: ignore[index]


def tunnel_spare(hand: Sequence[int], cards: Sequence[int]) -> int:
    """Cards left after paying `cards` that could pay a tunnel surcharge (same colour or wild)."""
    colours = [c for c in range(NCOL) if cards[c]]
    spare = hand[LOCOMOTIVE] - cards[LOCOMOTIVE] + hand[PLUS4] - cards[PLUS4]
    if colours:
        spare += hand[colours[0]] - cards[colours[0]]
    return spare


def trip_value(view: PlayerView, action: Action) -> int:
    """Merchandise points a passenger move would collect (same rule as the engine)."""
    ed = view.edition
    once = ed.rules.passenger_one_token_per_city
    here = ed.city_index[action.city]  # type: ignore[index]
    visited = {here}
    taken: dict[int, int] = {}
    total = 0
    for rid in action.path or ():
        route = ed.routes[ed.route_index[rid]]
        here = route.b if route.a == here else route.a
        if once and here in visited:
            continue
        visited.add(here)
        k = taken.get(here, 0)
        stack = view.merch[here]
        if k < len(stack):
            total += stack[-1 - k]
            taken[here] = k + 1
    return total


def best_passenger_move(view: PlayerView, legal: Sequence[Action]) -> tuple[Action | None, int]:
    best: Action | None = None
    best_value = 0
    for a in legal:
        if a.type == MOVE_PASSENGER:
            v = trip_value(view, a) - (a.cards[PASSENGER] if a.cards else 0)  # a passenger card kept has some use
            if v > best_value:
                best, best_value = a, v
    return best, best_value


def place_choice(view: PlayerView, legal: Sequence[Action], network: set[int]) -> Action:
    """Put a passenger where its own token is low (the start city pays nothing) next to our network."""
    places = [a for a in legal if a.city is not None]
    if not places:
        return legal[-1]
    ed = view.edition

    def score(a: Action) -> float:
        c = ed.city_index[a.city]  # type: ignore[index]
        own = view.merch[c][-1] if view.merch[c] else 0
        around = 0
        for r, other in ed.adjacency[c]:
            if view.route_owner[r] == view.me or r in network:
                around += view.merch[other][-1] if view.merch[other] else 0
        return around - own

    return max(places, key=lambda a: (score(a), a.city))
