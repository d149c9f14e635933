"""What rendering one seat's state costs the server, piece by piece (issue 14: where an action's CPU goes).

    python benchmarks/bench_render.py [--edition usa] [--positions 20] [--reps 5]

A served state (GET .../state, every WebSocket update) is the seat's view, its legal actions on its turn,
``public_rules`` and ``seat_rules`` (claim problems, ticket report), as JSON. Positions are seeded random
games stopped after 20-140 actions. "warm" calls reuse the position (the engine's claim cache is filled);
"cold" ones first clone it, as the server meets a position right after an action. Microseconds per seat, of
wall time (run it on a quiet machine and compare with ``ttr loadtest``'s server CPU ms per action).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from ttr.engine import Game
from ttr.server.service import dumps_text, public_rules, served_rules


def positions(edition: str, count: int) -> list[Game]:
    rng = random.Random(1)
    out = []
    for seed in range(count):
        g = Game(edition, 2, seed)
        for _ in range(rng.randint(20, 140)):
            if g.is_over:
                break
            p = g.to_act()[0]
            g.step(rng.choice(g.legal_actions(p)), p)
        out.append(g)
    return out


def served(g: Game, p: int) -> str:
    legal = [a.to_json() for a in g.legal_actions(p)] if p in g.to_act() else []
    return dumps_text({"view": g.view(p).to_dict(), "legal": legal, **served_rules(g, p)})


def timed(games: list[Game], reps: int, fn: Callable[[Game, int], Any]) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        for g in games:
            for p in range(g.n):
                fn(g, p)
    return (time.perf_counter() - t0) / (reps * sum(g.n for g in games)) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edition", default="usa")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    games = positions(args.edition, args.positions)
    rows: list[tuple[str, Callable[[Game, int], Any]]] = [
        ("view.to_dict", lambda g, p: g.view(p).to_dict()),
        ("legal actions (JSON)", lambda g, p: [a.to_json() for a in g.legal_actions(p)] if p in g.to_act() else []),
        ("claim_problem_codes (served)", lambda g, p: g.claim_problem_codes(p)),
        ("ticket_report", lambda g, p: g.ticket_report(p)),
        ("public_rules", lambda g, p: public_rules(g)),
        ("whole state + JSON", served),
        ("clone (cold baseline)", lambda g, p: g.clone()),
        ("clone + claim_problem_codes", lambda g, p: g.clone().claim_problem_codes(p)),
        ("clone + whole state + JSON", lambda g, p: served(g.clone(), p)),
    ]
    size = sum(len(served(g, p)) for g in games for p in range(g.n)) / sum(g.n for g in games)
    print(f"{args.edition}: {len(games)} positions, a state is {size:,.0f} bytes of JSON on average")
    for name, fn in rows:
        print(f"{name:28s} {timed(games, args.reps, fn):8.1f} µs per seat")


if __name__ == "__main__":
    main()
