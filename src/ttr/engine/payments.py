"""What a set of cards may pay for: routes (plain, ferry, tunnel, substitution routes), tunnel extras
and stations. Two halves per rule: ``*_problem`` checks any payment a player names (returns the
reason it is refused, or None), ``*_payments`` lists the *canonical* payments offered as legal
actions (see docs/payments.md).

Canonical payments, in short: for every usable colour and every number of wild cards the full
range is offered; where some cards are "any cards" (Nordic 3-for-1 ferry substitutes, the 4-for-1
Murmansk–Lieksa sets) the engine fills them by a fixed rule: colours other than the set's colour,
fewest-held first, then the set's colour, then locomotives. Any other valid payment is still
accepted when named explicitly.
"""

from __future__ import annotations

from ..cards import COLOURS, GRAY, LOCOMOTIVE, NCARDS, PASSENGER, PLUS4, Cards
from ..editions import Route, Rules

_NCOL = len(COLOURS)


def wild_allowed(route: Route, rules: Rules) -> tuple[bool, bool]:
    """(plain locomotives wild here, +4 locomotives wild here)."""
    loco = rules.locomotives_wild == "all" or route.tunnel or route.ferry > 0
    if route.substitute:
        loco = loco and rules.locomotives_wild == "all"
    return loco, loco and route.length >= rules.plus4_min_length


def _colours_used(cards: Cards) -> list[int]:
    return [c for c in range(_NCOL) if cards[c]]


def route_payment_problem(route: Route, cards: Cards, rules: Rules) -> str | None:
    """Why `cards` cannot pay for `route` (None if they can). Tunnel extras are not part of this."""
    if cards[PASSENGER]:
        return "passenger cards cannot pay for routes"
    total = sum(cards)
    length = route.length
    loco_ok, plus4_ok = wild_allowed(route, rules)
    if route.substitute:
        # any `substitute` cards replace one card of the chosen colour; every card may be in such sets
        s = route.substitute
        if total < length or (total - length) % (s - 1):
            return (
                f"{route.id} needs {length} cards of one colour, where any {s} cards replace one; "
                f"{total} cards cannot be split that way"
            )
        sets = (total - length) // (s - 1)
        if sets > length:
            return f"{route.id}: too many cards"
        needed = length - sets  # cards that must be of the chosen colour (or wild)
        wild = (cards[LOCOMOTIVE] if loco_ok else 0) + (cards[PLUS4] if plus4_ok else 0)
        candidates = range(_NCOL) if route.colour == GRAY else (route.colour,)
        if needed and max(cards[c] for c in candidates) + wild < needed:
            hint = "" if loco_ok or not cards[LOCOMOTIVE] else f"; locomotives count only inside sets of {s}"
            return (
                f"{route.id}: with {sets} set(s) of {s} cards, {needed} cards must still be of one "
                f"colour{'' if route.colour == GRAY else ' (' + COLOURS[route.colour] + ')'}{hint}"
            )
        return None
    if cards[LOCOMOTIVE] and not loco_ok:
        return "locomotives are wild only on ferries and tunnels in this edition"
    if cards[PLUS4] and not plus4_ok:
        return f"+4 locomotives are wild only on routes of {rules.plus4_min_length} or more spaces"
    locos = cards[LOCOMOTIVE] + cards[PLUS4]
    subst = rules.ferry_substitute_cards
    if route.ferry and subst:
        # k required locomotives replaced by `subst` any cards each
        extra = total - length
        if extra < 0 or extra % (subst - 1):
            return (
                f"{route.id} is a ferry of length {length}: pay {length} cards, or {subst - 1} more for each "
                f"locomotive replaced by {subst} cards"
            )
        k = extra // (subst - 1)
        if k > route.ferry:
            return f"{route.id}: only {route.ferry} locomotive(s) can be replaced"
        if locos < route.ferry - k:
            return f"{route.id} needs {route.ferry - k} locomotive(s) (or {subst} cards for each missing one)"
        rest = length - route.ferry
        candidates = range(_NCOL) if route.colour == GRAY else (route.colour,)
        if rest and max(cards[c] for c in candidates) + locos - (route.ferry - k) < rest:
            return f"{route.id}: {rest} cards must be of one colour (locomotives wild)"
        return None
    if total != length:
        return f"{route.id} has {length} spaces; {total} cards were offered"
    used = _colours_used(cards)
    if len(used) > 1:
        return "a route is paid with cards of one colour (plus locomotives)"
    if used and route.colour != GRAY and used[0] != route.colour:
        return f"{route.id} is {COLOURS[route.colour]}; {COLOURS[used[0]]} cards cannot pay for it"
    if locos < route.ferry:
        return f"{route.id} is a ferry: it needs {route.ferry} locomotive(s)"
    return None


def fill_order(hand: list[int] | Cards) -> list[int]:
    """The colours held, fewest first (ties: in colour order): the order "any" cards are taken in (see _fill_any)."""
    return sorted([c for c in range(_NCOL) if hand[c]], key=hand.__getitem__)  # a stable sort keeps ties in order


def any_payment(route: Route, hand: list[int] | Cards, rules: Rules) -> bool:
    """Whether ``route_payments`` offers anything for a route with "any cards" (a ferry with substitutes or
    a substitution route), without listing the payments. With the fewest sets of "any" cards the wild
    cards allow (the route's colour, or for a gray route the colour held most, plus usable wild cards),
    the rest of the hand must fill them; more sets only need more cards."""
    loco_ok, plus4_ok = wild_allowed(route, rules)
    wild = (hand[LOCOMOTIVE] if loco_ok else 0) + (hand[PLUS4] if plus4_ok else 0)
    have = max(hand[:_NCOL]) if route.colour == GRAY else hand[route.colour]
    total = sum(hand[:_NCOL]) + hand[LOCOMOTIVE] + hand[PLUS4]
    length = route.length
    if route.substitute:
        if not have and not wild:
            return False
        sets = max(0, length - have - wild)
        return total >= length + (route.substitute - 1) * sets
    subst = rules.ferry_substitute_cards
    replaced = max(0, route.ferry + max(0, length - route.ferry - have) - wild)  # locomotives replaced
    return replaced <= route.ferry and total >= length + (subst - 1) * replaced


def fill_key(hand: list[int] | Cards, order: list[int], colour: int, n: int) -> tuple[int, ...]:
    """What ``_fill_any`` of at most `n` "any" cards for `colour` takes from the other colours, as (colour,
    count) pairs, flat: the colours of `order` other than `colour` while fewer than `n` are taken, each
    count capped at what is still missing. Two hands with the same key give the same cards from the other
    colours for any fill of at most `n` (a fill takes min(held, still missing) from each in turn)."""
    out: list[int] = []
    for c in order:
        if n <= 0:
            break
        if c == colour:
            continue
        t = min(hand[c], n)
        out += (c, t)
        n -= t
    return tuple(out)


def _fill_any(hand: list[int] | Cards, pay: list[int], n: int, colour: int, order: list[int]) -> bool:
    """Add n "any" cards to `pay` (the cards already in it are not available): the colours of
    `order` other than `colour`, then `colour`, then +4 locomotives, then locomotives. False if
    the hand runs out."""
    for c in order:
        if not n:
            return True
        if c == colour:
            continue
        t = min(hand[c] - pay[c], n)
        pay[c] += t
        n -= t
    for c in (colour, PLUS4, LOCOMOTIVE):
        if not n:
            return True
        t = min(hand[c] - pay[c], n)
        pay[c] += t
        n -= t
    return not n


def route_payments(route: Route, hand: list[int] | Cards, rules: Rules, order: list[int] | None = None) -> list[Cards]:
    """Canonical legal payments for `route` from `hand` (ignores trains and ownership). `order`: the hand's
    ``fill_order``, if the caller has it already (it is computed otherwise)."""
    loco_ok, plus4_ok = wild_allowed(route, rules)
    length = route.length
    nloco = hand[LOCOMOTIVE] if loco_ok else 0
    nplus = hand[PLUS4] if plus4_ok else 0
    colours = range(_NCOL) if route.colour == GRAY else (route.colour,)
    out: list[Cards] = []
    if route.substitute:
        s = route.substitute
        if order is None:
            order = fill_order(hand)
        for c in colours:
            if not hand[c] and not nloco + nplus:
                continue
            for sets in range(0, length + 1):
                needed = length - sets
                pay = [0] * NCARDS
                pay[c] = min(hand[c], needed)
                short = needed - pay[c]
                pay[PLUS4] = min(nplus, short)
                pay[LOCOMOTIVE] = min(nloco, short - pay[PLUS4])
                if short - pay[PLUS4] - pay[LOCOMOTIVE]:
                    continue
                if not _fill_any(hand, pay, sets * s, c, order):
                    break
                out.append(tuple(pay))
        return _dedupe(out)
    subst = rules.ferry_substitute_cards if route.ferry else 0
    if order is None:
        order = fill_order(hand) if subst else []
    for c in colours:
        have = hand[c]
        if subst:
            rest = length - route.ferry
            for k in range(route.ferry + 1):  # locomotives replaced by `subst` any cards
                need_locos = route.ferry - k
                for w in range(max(0, rest - have), rest + 1):  # wilds in the coloured part
                    wilds = need_locos + w
                    if wilds > nloco + nplus:
                        break
                    pay = [0] * NCARDS
                    pay[c] = rest - w
                    pay[PLUS4] = min(wilds, nplus)
                    pay[LOCOMOTIVE] = wilds - pay[PLUS4]
                    if _fill_any(hand, pay, subst * k, c, order):
                        out.append(tuple(pay))
            continue
        out.extend(plain_payments(length, route.ferry, c, have, nloco, nplus, c == colours[0]))
    return _dedupe(out)


def plain_payments(length: int, ferry: int, c: int, have: int, nloco: int, nplus: int, first: bool) -> list[Cards]:
    """The canonical payments in colour c of a route without "any cards" (``route_payments`` lists them colour
    by colour): `have` cards of c, `nloco` and `nplus` wild ones usable here, `ferry` locomotives required;
    the all-wild payment only when `first` (it is the same for every colour). They depend on each count only
    up to the length, so a caller may cap the counts at it."""
    out: list[Cards] = []
    for w in range(max(ferry, length - have), min(length, nloco + nplus) + 1):
        if w == length and not first:
            continue
        pay = [0] * NCARDS
        pay[c] = length - w
        p4 = min(w, nplus)
        pay[PLUS4] = p4
        pay[LOCOMOTIVE] = w - p4
        out.append(tuple(pay))
    return out


def _dedupe(items: list[Cards]) -> list[Cards]:
    return list(dict.fromkeys(items))


def tunnel_extra(paid: Cards, revealed: list[int]) -> tuple[int, int]:
    """(extra cards owed, colour they must be: a colour index, or -1 = locomotives only)."""
    used = _colours_used(paid)
    if not used:
        return sum(1 for card in revealed if card in (LOCOMOTIVE, PLUS4)), -1
    colour = used[0]
    return sum(1 for card in revealed if card in (colour, LOCOMOTIVE, PLUS4)), colour


def tunnel_payment_problem(extra: int, colour: int, cards: Cards) -> str | None:
    if sum(cards) != extra:
        return f"the tunnel asks for {extra} more card(s); {sum(cards)} offered"
    if cards[PASSENGER]:
        return "passenger cards cannot pay for routes"
    for c in range(_NCOL):
        if cards[c] and c != colour:
            return (
                "the extra cards must be locomotives"
                if colour < 0
                else f"the extra cards must be {COLOURS[colour]} or locomotives"
            )
    return None


def tunnel_payments(extra: int, colour: int, hand: list[int]) -> list[Cards]:
    wild = hand[LOCOMOTIVE] + hand[PLUS4]
    have = hand[colour] if colour >= 0 else 0
    out = []
    for w in range(max(0, extra - have), min(extra, wild) + 1):
        pay = [0] * NCARDS
        if colour >= 0:
            pay[colour] = extra - w
        p4 = min(w, hand[PLUS4])
        pay[PLUS4] = p4
        pay[LOCOMOTIVE] = w - p4
        out.append(tuple(pay))
    return out


def station_payment_problem(cost: int, cards: Cards) -> str | None:
    if sum(cards) != cost:
        return f"this station costs {cost} card(s); {sum(cards)} offered"
    if cards[PASSENGER]:
        return "passenger cards cannot pay for stations"
    if len(_colours_used(cards)) > 1:
        return "a station is paid with cards of one colour (locomotives wild)"
    return None


def station_payments(cost: int, hand: list[int]) -> list[Cards]:
    wild = hand[LOCOMOTIVE] + hand[PLUS4]
    out: list[Cards] = []
    for c in range(_NCOL):
        have = hand[c]
        if not have:
            continue
        for w in range(max(0, cost - have), min(cost - 1, wild) + 1):
            pay = [0] * NCARDS
            pay[c] = cost - w
            p4 = min(w, hand[PLUS4])
            pay[PLUS4] = p4
            pay[LOCOMOTIVE] = w - p4
            out.append(tuple(pay))
    if wild >= cost:
        pay = [0] * NCARDS
        p4 = min(cost, hand[PLUS4])
        pay[PLUS4] = p4
        pay[LOCOMOTIVE] = cost - p4
        out.append(tuple(pay))
    return out
