"""Tournaments: a seat-rotated, seeded schedule of games between bots, run on local processes or Ray.

Scheduling: the bot list is turned into lineups (one lineup when it names one bot per seat, all
combinations when it names more bots than seats, repeated in order when it names fewer). Every
lineup is played in each of its seat rotations on the same deal (same game seed), so every bot
meets the same cards from every seat; the next block of games uses the next seed. Game i is a
pure function of (edition, players, seed, bots, options, i): the same arguments give the same
records on any number of processes or machines.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .runner import GameSpec, play_game


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The seatings to rotate: see the module docstring."""
    if not bots:
        raise ValueError("name at least one bot")
    if len(bots) > players:
        return list(itertools.combinations(bots, players))
    return [tuple(bots[i % len(bots)] for i in range(players))]


def schedule(
    edition: str, players: int, bots: Sequence[str], games: int, seed: int = 1, options: dict[str, Any] | None = None
) -> list[GameSpec]:
    """`games` GameSpecs: blocks of (lineup x seat rotation) sharing one deal seed each."""
    opts = tuple(sorted((options or {}).items()))
    seatings = [lineup[r:] + lineup[:r] for lineup in lineups(bots, players) for r in range(players)]
    block = len(seatings)
    return [GameSpec(edition, players, seed + i // block, seatings[i % block], opts) for i in range(games)]


def _play_chunk(specs: Sequence[GameSpec]) -> list[dict[str, Any]]:
    return [play_game(s) for s in specs]


def run_local(specs: Sequence[GameSpec], jobs: int = 1) -> Iterator[dict[str, Any]]:
    """Records in schedule order, on `jobs` worker processes (1 = in this process)."""
    if jobs <= 1 or len(specs) <= 1:
        for spec in specs:
            yield play_game(spec)
        return
    chunk = max(1, min(8, len(specs) // (jobs * 50)))  # small chunks: steady progress even with slow bots
    chunks = [specs[i : i + chunk] for i in range(0, len(specs), chunk)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for records in pool.map(_play_chunk, chunks):
            yield from records


def run_ray(
    specs: Sequence[GameSpec], jobs: int | None = None, address: str | None = None, chunk: int = 8
) -> Iterator[dict[str, Any]]:
    """Records in schedule order, computed as Ray tasks (a local Ray unless `address` names a cluster)."""
    import ray  # optional dependency: pip install 'ttr[ray]'

    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        elif jobs:
            kwargs["num_cpus"] = jobs
        ray.init(**kwargs)
        started_here = True
    try:
        remote = ray.remote(_play_chunk)
        chunks = [list(specs[i : i + chunk]) for i in range(0, len(specs), chunk)]
        futures = [remote.remote(c) for c in chunks]
        for f in futures:  # in order: a finished later chunk waits for the earlier ones
            yield from ray.get(f)
    finally:
        if started_here:
            ray.shutdown()


def run(
    specs: Sequence[GameSpec],
    backend: str = "local",
    jobs: int = 1,
    address: str | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every spec on the chosen backend; returns the records in schedule order."""
    if backend == "local":
        stream = run_local(specs, jobs)
    elif backend == "ray":
        stream = run_ray(specs, jobs, address)
    else:
        raise ValueError(f"unknown backend {backend!r} (local or ray)")
    out = []
    for i, rec in enumerate(stream):
        rec["game"] = i
        out.append(rec)
        if on_record is not None:
            on_record(rec)
    return out
