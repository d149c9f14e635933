"""Worst cases of legal-move generation with payment choices (Nordic 3-for-1 ferries and 4-for-1
Murmansk–Lieksa; Europe stations and gray routes): how many legal actions, and how long one
``legal_actions()`` call takes for adversarial hands.

    python benchmarks/bench_payments.py [--search 2000] [--repeat 30] [--json]

Hands: fixed adversarial ones (every card of the deck; 4 of each colour + 4 locomotives; ...),
the largest of many random 30–45-card hands, then a hill climb (add or remove one card while the
number of legal actions does not drop). Each position is a fresh game (``Game.from_dict``) with
nothing claimed, so every route is open. "cold" clears the engine's payment memo before each
call (a hand never seen before), "warm" repeats the call on fresh copies of the same position.
Times are CPU time of this process (``time.process_time``), so other load on the machine barely
moves them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from typing import Any

from ttr.cards import CARD_NAMES
from ttr.engine import Action, Game
from ttr.engine import game as game_module
from ttr.engine.payments import route_payment_problem, route_payments

KINDS = 9  # 8 colours + locomotive (Europe and Nordic decks)


def base_position(edition: str, players: int) -> dict[str, Any]:
    g = Game(edition, players, 7)
    while g.phase == "setup":
        g.apply(g.legal_actions()[0])
    return g.to_dict()


def position(base: dict[str, Any], deck: tuple[int, ...], hand: list[int], stations_left: int) -> Game:
    """Player 0 to move with `hand`; the market empty; every other card in the deck."""
    d = json.loads(json.dumps(base))
    n = d["players"]
    d["hands"] = [{CARD_NAMES[i]: k for i, k in enumerate(hand) if k}] + [{} for _ in range(n - 1)]
    d["market"] = [None] * len(d["market"])
    d["deck"] = [CARD_NAMES[i] for i in range(KINDS) for _ in range(deck[i] - hand[i])]
    d["discard"] = []
    d["current"] = 0
    d["phase"] = "turn"
    if d["stations_left"][0]:
        d["stations_left"][0] = stations_left
    return Game.from_dict(d)


def count(base: dict[str, Any], deck: tuple[int, ...], hand: list[int], stations_left: int) -> int:
    return len(position(base, deck, hand, stations_left).legal_actions())


def clear_memo() -> None:
    memo = getattr(game_module, "_payment_cache", None)
    if memo is not None:
        memo.clear()


def time_legal(base: dict[str, Any], deck: tuple[int, ...], hand: list[int], stations_left: int, repeat: int) -> dict[str, float]:
    cold, warm = [], []
    for _ in range(repeat):
        g = position(base, deck, hand, stations_left)
        clear_memo()
        t = time.process_time()
        g.legal_actions()
        cold.append(time.process_time() - t)
        g = position(base, deck, hand, stations_left)
        t = time.process_time()
        g.legal_actions()
        warm.append(time.process_time() - t)
    return {
        "cold_ms_median": statistics.median(cold) * 1e3,
        "cold_ms_max": max(cold) * 1e3,
        "warm_ms_median": statistics.median(warm) * 1e3,
    }


def worst_hand(
    base: dict[str, Any], deck: tuple[int, ...], stations_left: int, search: int, rng: random.Random
) -> tuple[list[int], int]:
    """The hand with the most legal actions found: fixed candidates, random hands, then a hill climb."""
    candidates = [list(deck), [4] * 8 + [4], [min(6, deck[i]) for i in range(KINDS)], [3] * 8 + [deck[8]], [12] * 8 + [0]]
    for _ in range(search // 2):
        size = rng.randint(30, 45)
        hand = [0] * KINDS
        pool = [i for i in range(KINDS) for _ in range(deck[i])]
        for c in rng.sample(pool, size):
            hand[c] += 1
        candidates.append(hand)
    scored = [(count(base, deck, h, stations_left), h) for h in candidates]
    best_n, best = max(scored, key=lambda x: x[0])
    best = best[:]
    for _ in range(search // 2):
        trial = best[:]
        i = rng.randrange(KINDS)
        trial[i] = max(0, min(deck[i], trial[i] + rng.choice((-1, 1))))
        n = count(base, deck, trial, stations_left)
        if n >= best_n:
            best_n, best = n, trial
    return best, best_n


def per_call_us(fn: Any, *args: Any, repeat: int = 2000) -> float:
    t = time.process_time()
    for _ in range(repeat):
        fn(*args)
    return (time.process_time() - t) / repeat * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--search", type=int, default=2000, help="hands tried per case (half random, half hill climb)")
    parser.add_argument("--repeat", type=int, default=30, help="timed calls per case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    cases = [("nordic", 3, 0), ("europe", 5, 3), ("europe", 5, 2), ("europe", 5, 1), ("usa", 5, 0)]
    for edition, players, stations_left in cases:
        base = base_position(edition, players)
        deck = Game(edition, players, 0).edition.deck
        hand, n = worst_hand(base, deck, stations_left, args.search, rng)
        g = position(base, deck, hand, stations_left)
        kinds = Counter(a.type for a in g.legal_actions())
        per_route = Counter(a.route for a in g.legal_actions() if a.type == "claim")
        row: dict[str, Any] = {
            "edition": edition,
            "players": players,
            "stations_left": stations_left,
            "hand": {CARD_NAMES[i]: k for i, k in enumerate(hand) if k},
            "hand_size": sum(hand),
            "legal_actions": n,
            "by_type": dict(kinds),
            "most_per_route": per_route.most_common(3),
        }
        row.update(time_legal(base, deck, hand, stations_left, args.repeat))
        ed = g.edition
        special = [r for r in ed.routes if r.substitute or r.ferry >= 2]
        if special:
            r = max(special, key=lambda r: len(route_payments(r, hand, ed.rules)))
            row["route_payments_us"] = {
                "route": r.id,
                "payments": len(route_payments(r, hand, ed.rules)),
                "us_per_call": per_call_us(route_payments, r, hand, ed.rules),
            }
        claim = max((a for a in g.legal_actions() if a.type == "claim"), key=lambda a: sum(a.cards or ()))
        route = ed.routes[ed.route_index[claim.route]]
        row["largest_listed_payment"] = f"{claim.route} {sum(claim.cards or ())} cards"
        row["route_payment_problem_us"] = per_call_us(route_payment_problem, route, claim.cards, ed.rules)
        row["is_legal_us"] = per_call_us(g.is_legal, claim)
        rows.append(row)
    # the largest explicit payment the rules allow: 36 cards on Murmansk–Lieksa, checked by apply()
    base = base_position("nordic", 3)
    deck = Game("nordic", 3, 0).edition.deck
    g = position(base, deck, [12, 12, 12, 0, 0, 0, 0, 0, 0], 0)
    action = Action("claim", route="lieksa-murmansk", cards=(12, 12, 12, 0, 0, 0, 0, 0, 0, 0, 0))
    rows.append(
        {
            "edition": "nordic",
            "case": "36-card Murmansk–Lieksa payment named explicitly",
            "is_legal": g.is_legal(action),
            "is_legal_us": per_call_us(g.is_legal, action),
        }
    )
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        if "legal_actions" not in row:
            print(f"{row['edition']}: {row['case']}: legal={row['is_legal']}, is_legal {row['is_legal_us']:.1f} µs")
            continue
        print(
            f"{row['edition']} ({row['players']}p, stations left {row['stations_left']}): worst hand "
            f"{row['hand_size']} cards {row['hand']}"
        )
        print(f"  legal actions {row['legal_actions']} {row['by_type']}; most per route {row['most_per_route']}")
        print(
            f"  legal_actions(): cold median {row['cold_ms_median']:.2f} ms (max {row['cold_ms_max']:.2f}), "
            f"warm median {row['warm_ms_median']:.2f} ms"
        )
        if "route_payments_us" in row:
            rp = row["route_payments_us"]
            print(f"  route_payments({rp['route']}): {rp['payments']} payments, {rp['us_per_call']:.1f} µs/call")
        print(
            f"  checking the largest listed payment ({row['largest_listed_payment']}): route_payment_problem "
            f"{row['route_payment_problem_us']:.2f} µs, is_legal {row['is_legal_us']:.1f} µs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
