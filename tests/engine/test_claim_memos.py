"""The claims kept between moves and across games (claims.py: per player and group, and the edition's
payment memos, payments per whole hand) must equal claims computed from scratch, at every turn of random
games of every edition, in a clone played on differently too, and must offer exactly the canonical
payments of every open route."""

from __future__ import annotations

import random

import pytest

from ttr.engine import Game, claims
from ttr.engine import payments as pay
from ttr.engine.phases import Phase

CASES = [
    ("usa", 2),
    ("usa", 4),
    ("europe", 2),
    ("europe", 4),
    ("nordic", 2),
    ("nordic", 3),
    ("marklin", 2),
    ("marklin", 4),
]


def _from_scratch(g: Game, p: int) -> list[object]:
    """p's claims with new, empty tables for the edition (no memo, nothing kept between moves)."""
    fresh = g.clone()
    tables = claims._claim_tables.__wrapped__(g.edition)  # type: ignore[attr-defined]
    fresh._claim_cache = claims.ClaimCache(tables, [[None] * len(tables.groups) for _ in range(g.n)])
    return list(claims.claim_actions(fresh, p))


def _by_definition(g: Game, p: int) -> set[tuple[str, tuple[int, ...]]]:
    """Every (route, canonical payment) p may claim, route by route, ignoring order."""
    out = set()
    for route in g.edition.routes:
        if g.route_claim_problem(route, p) is None:
            out.update((route.id, cards) for cards in pay.route_payments(route, g.hands[p], g.rules))
    return out


@pytest.mark.parametrize(("edition", "players"), CASES)
def test_kept_claims_equal_claims_from_scratch(edition: str, players: int) -> None:
    rng = random.Random(11)
    compared = 0
    for seed in range(3):
        g = Game(edition, players, 700 + seed)
        twin: Game | None = None
        while not g.is_over:
            if g.phase == Phase.TURN:
                p = g.current
                kept = claims.claim_actions(g, p)
                assert kept == _from_scratch(g, p)
                assert {(a.route, a.cards) for a in kept} == _by_definition(g, p)
                compared += 1
                if twin is None and g.turn > 15:
                    twin = g.clone()
            g.step(rng.choice(g.legal_actions()))
        assert twin is not None
        while not twin.is_over:  # the clone shares the kept entries, then goes its own way
            if twin.phase == Phase.TURN:
                assert claims.claim_actions(twin, twin.current) == _from_scratch(twin, twin.current)
            twin.step(rng.choice(twin.legal_actions()))
    assert compared > 100


def test_payments_per_hand_survive_a_full_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """With tiny memos (cleared again and again) the claims are still those computed from scratch."""
    monkeypatch.setattr(claims, "HAND_CACHE_MAX", 3)
    monkeypatch.setattr(claims, "PAYMENT_CACHE_MAX", 5)
    rng = random.Random(3)
    for edition in ("nordic", "usa"):
        g = Game(edition, 2, 41)
        while not g.is_over:
            if g.phase == Phase.TURN:
                assert claims.claim_actions(g, g.current) == _from_scratch(g, g.current)
            g.step(rng.choice(g.legal_actions()))


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_gray_payments_from_pieces_equal_route_payments(edition: str) -> None:
    """A gray plain shape's payments put together from capped per-colour pieces equal route_payments on the
    whole hand, in the same order, for hands small and large."""
    g = Game(edition, 2, 0)
    tables = claims._claim_tables(g.edition)
    gray = [rep for colour, _, special, shapes in tables.groups if colour == -1 and not special for _, rep, _, _ in shapes]
    assert gray
    rng = random.Random(9)
    for _ in range(400):
        top = rng.choice([2, 4, 9])
        hand = [rng.randint(0, top) if rng.random() < 0.6 else 0 for _ in range(10)] + [rng.randint(0, 2)]
        for rep in gray:
            assert claims._plain_payments(tables, g.rules, rep, hand) == pay.route_payments(rep, hand, g.rules)


def test_ferries_the_hand_cannot_substitute_have_their_plain_payments() -> None:
    """A ferry with substitutes (Nordic), from a hand too small for any substitute, is offered exactly the
    payments of route_payments, put together from the plain pieces."""
    g = Game("nordic", 2, 0)
    tables = claims._claim_tables(g.edition)
    ferries = [r for r in g.edition.routes if r.ferry and not r.substitute]
    subst = g.rules.ferry_substitute_cards
    rng = random.Random(4)
    checked = 0
    for _ in range(3000):
        hand = [0] * 11
        for _ in range(rng.randint(0, 8)):
            hand[rng.choice([*range(9), 10])] += 1
        total = sum(hand) - hand[10]
        for route in ferries:
            if total < route.length + subst - 1:
                assert claims._plain_payments(tables, g.rules, route, hand) == pay.route_payments(route, hand, g.rules)
                checked += 1
    assert checked > 1000


def _random_hand(rng: random.Random) -> list[int]:
    """A hand of up to 30 cards, sometimes heavy in one colour, with locomotives and +4 locomotives."""
    hand = [0] * 11
    heavy = rng.randrange(8)
    for _ in range(rng.randint(0, 30)):
        hand[rng.choice([*range(10), heavy, heavy])] += 1
    return hand


def test_any_payment_says_whether_route_payments_offers_any() -> None:
    """payments.any_payment (used to skip listing the payments of special shapes) is exactly whether
    route_payments offers a payment, for ferries with substitutes and substitution routes, with the rules'
    variants of wild cards."""
    from dataclasses import replace

    g = Game("nordic", 2, 0)
    routes = [r for r in g.edition.routes if r.substitute or r.ferry]
    assert any(r.substitute for r in routes)
    rng = random.Random(8)
    offered = refused = 0
    for rules in (
        g.rules,
        replace(g.rules, locomotives_wild="ferries_and_tunnels"),
        replace(g.rules, plus4_min_length=2, ferry_substitute_cards=2),
    ):
        for _ in range(1500):
            hand = _random_hand(rng)
            for route in routes:
                some = bool(pay.route_payments(route, hand, rules))
                assert pay.any_payment(route, hand, rules) == some, (route.id, hand)
                offered += some
                refused += not some
    assert offered > 1000 and refused > 1000


def test_memoised_ferry_payments_equal_route_payments(monkeypatch: pytest.MonkeyPatch) -> None:
    """A coloured ferry's payments with substitutes memoised by fill_key and capped counts (``ferries``), also
    with a memo cleared again and again, equal route_payments on the whole hand, in the same order."""
    g = Game("nordic", 2, 0)
    rng = random.Random(6)
    for limit in (50_000, 5):
        monkeypatch.setattr(claims, "PAYMENT_CACHE_MAX", limit)
        tables = claims._claim_tables.__wrapped__(g.edition)  # type: ignore[attr-defined]
        specials = [rep for _, _, special, shapes in tables.groups if special for _, rep, _, _ in shapes]
        assert any(rep.colour >= 0 and rep.ferry for rep in specials)
        hands = [_random_hand(rng) for _ in range(1500)]
        for hand in hands + hands:  # the second time from the memo (unless cleared)
            order = pay.fill_order(hand)
            for rep in specials:
                assert claims._special_payments(tables, g.rules, rep, hand, order) == pay.route_payments(rep, hand, g.rules)
        assert tables.ferries
