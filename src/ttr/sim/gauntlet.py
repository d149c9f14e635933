"""The gauntlet: one bot against each sparring style, on every edition and player count asked.

A *match* is (edition, players, opponent): at 2 players the bot against one opponent, at more the
bot against copies of that opponent. Each match is an ordinary tournament schedule of one lineup
(``tournament.schedule``: seats rotated on the same deal, fixed seeds), run by the tournament
runner with decision timing on, and summarised by ``stats.tournament_summary`` (Wilson intervals).

With a *baseline* bot the same schedule is played a second time with the baseline in the tested bot's
seats: game i of both runs has the same deal, seat and opponents (whose seeds depend on the deal and
the seat only), so the two bots are compared game by game (``stats.paired_comparison``): an A/B test
that needs far fewer games than comparing two win rates measured apart.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..bots import GAUNTLET
from ..editions import get_edition
from . import tournament
from .runner import GameSpec
from .stats import paired_comparison, tournament_summary, wilson


@dataclass(frozen=True)
class Match:
    edition: str
    players: int
    opponent: str

    def lineup(self, bot: str) -> tuple[str, ...]:
        return (bot, *([self.opponent] * (self.players - 1)))


def matches(
    bot: str,
    editions: Sequence[str],
    players: Sequence[int],
    opponents: Sequence[str] | None = None,
    baseline: str | None = None,
) -> tuple[list[Match], list[str]]:
    """The matches to play, and notes on those left out (an edition's player limits, the bot itself, the
    baseline)."""
    out: list[Match] = []
    notes: list[str] = []
    opps = list(opponents) if opponents else list(GAUNTLET)
    tested = {bot} if baseline is None else {bot, baseline}
    for ed_name in editions:
        lo, hi = get_edition(ed_name).rules.players
        for n in players:
            if not lo <= n <= hi:
                notes.append(f"{ed_name} is for {lo}-{hi} players: {n} players skipped")
                continue
            for opp in opps:
                if opp in tested:
                    continue  # a bot against itself tells nothing and its rows would merge
                out.append(Match(ed_name, n, opp))
    if bot in opps:
        notes.append(f"{bot} is not played against itself")
    if baseline is not None and baseline in opps and baseline != bot:
        notes.append(f"{baseline} (the baseline) is not played as an opponent")
    return out, notes


def percentile(xs: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of xs by the nearest-rank method (0 for no data)."""
    if not xs:
        return 0.0
    ordered = sorted(xs)
    k = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 1)) - 1))
    return ordered[k]


def bot_times(bot: str, records: Sequence[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Milliseconds per decision of `bot`, and of the other seats, over the timed records among `records`."""
    ms: list[float] = []
    opp_ms: list[float] = []
    for rec in records:
        times = rec.get("decision_ms")
        if times is not None:
            for seat, name in enumerate(rec["bots"]):
                (ms if name == bot else opp_ms).extend(times[seat])
    return ms, opp_ms


def timing(ms: Sequence[float]) -> dict[str, float]:
    return {
        "decisions": len(ms),
        "ms_mean": statistics.fmean(ms) if ms else 0.0,
        "ms_median": statistics.median(ms) if ms else 0.0,
        "ms_p99": percentile(ms, 0.99),
    }


def summarise_match(bot: str, match: Match, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One table row: the bot's win rate and interval, mean scores, game length, time per decision."""
    summary = tournament_summary(records)
    mine = summary["bots"][bot]
    theirs = summary["bots"][match.opponent]
    ms, opp_ms = bot_times(bot, records)
    return {
        "edition": match.edition,
        "players": match.players,
        "opponent": match.opponent,
        "games": summary["games"],
        "wins": mine["wins"],
        "win_rate": mine["win_rate"],
        "win_rate_ci95": mine["win_rate_ci95"],
        "score": mine["mean_score"],
        "opponent_score": theirs["mean_score"],
        "route_points": mine["mean_route_points"],
        "opponent_route_points": theirs["mean_route_points"],
        "tickets_failed": mine["tickets_failed"],
        "turns": summary["turns"]["mean"],
        **timing(ms),
        "opponent_ms_mean": timing(opp_ms)["ms_mean"],
    }


def outcome(bot: str, rec: dict[str, Any]) -> tuple[float, float]:
    """`bot`'s (win share, margin over the best other score) in one record (the bot holds one seat)."""
    seat = rec["bots"].index(bot)
    scores = rec["result"]["scores"]
    winners = rec["result"]["winners"]
    share = 1.0 / len(winners) if seat in winners else 0.0
    return share, scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def paired(bot: str, baseline: str, records: Sequence[dict[str, Any]], base: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The game-by-game comparison of `bot` (in `records`) with `baseline` (in `base`, the same schedule)."""
    for rec, other in zip(records, base, strict=True):
        if (rec["seed"], rec["bots"].index(bot)) != (other["seed"], other["bots"].index(baseline)):
            raise ValueError("the baseline's games are not the same deals and seats as the bot's")
    return paired_comparison([outcome(bot, r) for r in records], [outcome(baseline, r) for r in base])


def run(
    bot: str,
    match_list: Sequence[Match],
    games: int,
    seed: int = 1,
    jobs: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    baseline: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play `games` games of every match (one pool for all of them): a summary row per match, and totals.
    With a `baseline`, every match is played by the baseline too (the same schedule) and each row and the
    totals get ``baseline`` (its row) and ``paired`` (``stats.paired_comparison``, the bot as A, its score being
    the margin over the best other score)."""
    specs: list[GameSpec] = []
    testers = (bot,) if baseline is None else (bot, baseline)
    for m in match_list:
        by_tester = [tournament.schedule(m.edition, m.players, m.lineup(t), games, seed) for t in testers]
        for same_game in zip(*by_tester, strict=True):  # a baseline's game right after the bot's: pairs complete early
            specs.extend(replace(s, timed=True) for s in same_game)
    records = tournament.run(specs, "local", jobs, on_record=on_record)
    step = len(testers)
    size = games * step
    mine = [records[i * size : (i + 1) * size : step] for i in range(len(match_list))]
    theirs = None if baseline is None else [records[i * size + 1 : (i + 1) * size : step] for i in range(len(match_list))]
    return summarise(bot, match_list, mine, baseline, theirs)


def summarise(
    bot: str,
    match_list: Sequence[Match],
    mine: Sequence[Sequence[dict[str, Any]]],
    baseline: str | None = None,
    theirs: Sequence[Sequence[dict[str, Any]]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and totals of `run` from the records of each match: `mine` the bot's, `theirs` the baseline's
    (the same games, in the same order)."""
    rows = [summarise_match(bot, m, recs) for m, recs in zip(match_list, mine, strict=True)]
    games = sum(r["games"] for r in rows)
    wins = sum(r["wins"] for r in rows)
    lo, hi = wilson(wins, games)
    total = {"games": games, "wins": wins, "win_rate": wins / games if games else 0.0, "win_rate_ci95": [lo, hi]}
    total.update(timing(bot_times(bot, [r for recs in mine for r in recs])[0]))
    if baseline is not None:
        assert theirs is not None
        for m, row, recs, base in zip(match_list, rows, mine, theirs, strict=True):
            row["baseline"] = summarise_match(baseline, m, base)
            row["paired"] = paired(bot, baseline, recs, base)
        total["baseline"] = timing(bot_times(baseline, [r for recs in theirs for r in recs])[0])
        total["paired"] = paired(bot, baseline, [r for recs in mine for r in recs], [r for recs in theirs for r in recs])
    return rows, total


def from_records(
    bot: str, records: Sequence[dict[str, Any]], baseline: str | None = None
) -> tuple[list[Match], list[dict[str, Any]], dict[str, Any], int]:
    """Summarise the records of a ``ttr gauntlet --out`` file, whole or cut short, without playing: the matches
    found (in order of first appearance), the rows and totals of `run`, and how many records were left out:
    games of neither the bot nor the baseline, and with a `baseline` a bot's game whose baseline game is
    missing (the last one of a run stopped early)."""
    tested = (bot,) if baseline is None else (bot, baseline)
    by_match: dict[Match, list[list[dict[str, Any]]]] = {}
    pending: dict[str, Any] | None = None
    left_out = 0
    for rec in records:
        names = rec["bots"]
        tester = next((t for t in tested if t in names), None)
        if tester is None:
            left_out += 1
            continue
        others = {n for n in names if n != tester}
        if len(others) != 1:
            raise ValueError(f"a record of {', '.join(names)} is not a game of {tester} against one style")
        match = Match(rec["edition"], rec["players"], others.pop())
        slot = by_match.setdefault(match, [[] for _ in tested])
        if baseline is None:
            slot[0].append(rec)
        elif tester == bot:
            left_out += pending is not None  # a bot's game without its baseline game
            pending = rec
        else:
            if pending is None:
                raise ValueError("a baseline game without the bot's game before it: not a gauntlet --baseline file")
            slot[0].append(pending)
            slot[1].append(rec)
            pending = None
    left_out += pending is not None
    match_list = list(by_match)
    mine = [by_match[m][0] for m in match_list]
    theirs = None if baseline is None else [by_match[m][1] for m in match_list]
    rows, total = summarise(bot, match_list, mine, baseline, theirs)
    return match_list, rows, total, left_out
