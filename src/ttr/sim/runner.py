"""Play games between bots. A game is fully determined by (edition, players, seed, bots, options)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..bots import make_bot
from ..engine import EndReason, Game


@dataclass(frozen=True)
class GameSpec:
    edition: str
    players: int
    seed: int
    bots: tuple[str, ...]  # one per seat
    options: tuple[tuple[str, Any], ...] = ()
    timed: bool = False  # record each seat's CPU time per decision (milliseconds) under "decision_ms"


# A game between bots that has not ended after this many decisions is stopped with GameDidNotEnd: the
# rules let a player repeat some moves forever (claim a tunnel, decline its extra cards, again: the
# revealed cards go back to the deck once it is reshuffled), and a tournament must not hang on such a
# pair of bots. Random play needs fewer than 1,000 decisions on every edition (``ttr bench``).
MAX_DECISIONS = 10_000


class GameDidNotEnd(RuntimeError):
    """A bot game went past MAX_DECISIONS (the bots repeat moves that never end it)."""


def play_game(spec: GameSpec) -> dict[str, Any]:
    """Play one game; returns its record with the result and per-seat bot names."""
    game = Game(spec.edition, spec.players, spec.seed, dict(spec.options) or None)
    bots = [make_bot(name, seed=spec.seed * 100 + seat) for seat, name in enumerate(spec.bots)]
    wants_events = [b.wants_events for b in bots]
    decisions = 0
    passes = 0
    times: list[list[float]] = [[] for _ in bots]
    clock = time.process_time  # CPU time: a busy shared machine does not inflate it
    while not game.is_over:
        if decisions >= MAX_DECISIONS:
            raise GameDidNotEnd(
                f"{spec.edition} {spec.players}p seed {spec.seed} ({', '.join(spec.bots)}): not over after "
                f"{decisions} decisions, at turn {game.turn}"
            )
        p = game.current
        view, legal = game.view(p), game.legal_actions()
        if spec.timed:
            start = clock()
            action = bots[p].act(view, legal)
            times[p].append(round((clock() - start) * 1000.0, 4))
        else:
            action = bots[p].act(view, legal)
        if action.type == "pass":
            passes += 1
        if any(wants_events):
            events = game.apply(action)
            for seat, bot in enumerate(bots):
                if wants_events[seat]:
                    for e in events:
                        bot.observe(e.for_player(seat))
        else:
            game.step(action)
        decisions += 1
    rec = game.record()
    res = game.result()
    outcome = game.outcome
    assert outcome is not None
    rec["bots"] = list(spec.bots)
    rec["stats"] = {
        "decisions": decisions,
        "turns": game.turn,
        "passes": passes,
        "stalemate": outcome.reason == EndReason.STALEMATE,
        "end": outcome.reason.value,
    }
    rec["breakdown"] = res["players"]
    ed = game.edition
    rec["routes"] = {ed.routes[i].id: o for i, o in enumerate(game.route_owner) if o >= 0}  # final owners, for heatmaps
    rec["first_player"] = game.first_player
    if spec.timed:
        rec["decision_ms"] = times  # machine-dependent: only in records asked for it
    return rec


def run_games(specs: Sequence[GameSpec], jobs: int = 1) -> Iterator[dict[str, Any]]:
    """Records in the order of `specs`, computed on `jobs` processes."""
    if jobs <= 1:
        for spec in specs:
            yield play_game(spec)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(play_game, specs, chunksize=max(1, min(32, len(specs) // (jobs * 8) or 1)))


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Wins per seat and per bot, score statistics, tickets and game length."""
    if not records:
        return {"games": 0}
    n = records[0]["players"]
    seat_wins = [0.0] * n
    bot_stats: dict[str, dict[str, Any]] = {}
    lengths = []
    for rec in records:
        winners = rec["result"]["winners"]
        lengths.append(rec["stats"]["turns"])
        for seat, name in enumerate(rec["bots"]):
            b = bot_stats.setdefault(name, {"seats": 0, "wins": 0.0, "scores": [], "tickets_done": 0, "tickets": 0})
            b["seats"] += 1
            row = rec["breakdown"][seat]
            b["scores"].append(row["total"])
            b["tickets_done"] += row["tickets_completed"]
            b["tickets"] += len(row["tickets"])
            if seat in winners:
                share = 1.0 / len(winners)
                b["wins"] += share
                seat_wins[seat] += share
    bots = {}
    for name, b in bot_stats.items():
        bots[name] = {
            "seats": b["seats"],
            "win_rate": b["wins"] / b["seats"],
            "mean_score": statistics.fmean(b["scores"]),
            "median_score": statistics.median(b["scores"]),
            "tickets_completed": b["tickets_done"] / b["seats"],
            "tickets_held": b["tickets"] / b["seats"],
        }
    return {
        "games": len(records),
        "seat_win_rate": [w / len(records) for w in seat_wins],
        "bots": bots,
        "mean_turns": statistics.fmean(lengths),
        "median_turns": statistics.median(lengths),
        "stalemates": sum(1 for r in records if r["stats"]["stalemate"]),
    }
