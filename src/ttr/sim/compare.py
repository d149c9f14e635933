"""A/B comparison of two editions or variants: the same seeded, seat-rotated schedule played on both,
then side-by-side statistics (``ttr compare``).

Both sides get the same deal seeds, the same lineups and the same seat rotations
(``ttr.sim.tournament.schedule``), so a difference comes from the map or the rule options, not from
the schedule. Each side's records are replayed once to collect the lab facts (``ttr.sim.lab``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..editions import get_edition
from . import tournament
from .lab import SCORE_PARTS, facts_for, lab_summary
from .stats import mean_difference, paired_comparison, tournament_summary, two_proportions


@dataclass
class Side:
    label: str
    edition: str  # an edition id or a map file
    options: dict[str, Any] = field(default_factory=dict)


def describe(edition: str, options: dict[str, Any]) -> str:
    name = Path(edition).name if edition.endswith(".json") else edition
    opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(options.items()))
    return f"{name} ({opts})" if opts else name


def play_side(
    side: Side,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    jobs: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play one side's schedule; returns its records, tournament summary, lab summary and per-seat values."""
    from .labreport import per_seat_values

    specs = tournament.schedule(side.edition, players, bots, games, seed, side.options)
    records = tournament.run(specs, "local", jobs, None, on_record)
    edition = get_edition(side.edition)
    facts = facts_for(records, edition)
    return {
        "label": side.label,
        "edition": side.edition,
        "options": side.options,
        "records": records,
        "summary": tournament_summary(records),
        "lab": lab_summary(facts, edition, players, side.options),
        "per_seat": per_seat_values(facts),
    }


def tests(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """B against A: win rate per bot (two-proportion z test), mean score and its parts (Welch), game length;
    and per bot the same games compared one by one (``paired``, see paired_tests)."""
    out: dict[str, Any] = {"win_rate": {}, "score": {}, "turns": mean_difference(b["lab"]["turns"], a["lab"]["turns"])}
    for name in sorted(set(a["summary"]["bots"]) & set(b["summary"]["bots"])):
        x, y = a["summary"]["bots"][name], b["summary"]["bots"][name]
        out["win_rate"][name] = two_proportions(y["wins"], y["seats"], x["wins"], x["seats"])
        out["score"][name] = {
            key: mean_difference(b["per_seat"][name][key], a["per_seat"][name][key])
            for key in ("total", *(k for k, _ in SCORE_PARTS))
        }
    out["paired"] = paired_tests(a["records"], b["records"])
    return out


def _bot_in_game(name: str, rec: dict[str, Any]) -> tuple[float, float]:
    """`name`'s (win share, mean score) in one game, over the seats it holds."""
    seats = [i for i, n in enumerate(rec["bots"]) if n == name]
    winners = rec["result"]["winners"]
    scores = rec["result"]["scores"]
    share = sum(1 for i in seats if i in winners) / len(winners) if winners else 0.0
    return share, sum(scores[i] for i in seats) / len(seats)


def paired_tests(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Game i of both sides has the same deal seed and seating, so each bot is compared game by game
    (``stats.paired_comparison``, A as its A): the games in which its win share was larger on one side, the
    exact sign test over them, and the mean paired difference of its score (A − B). A difference in rules
    that helps a bot shows in these before it shows in two win rates measured apart, because the deal, which
    decides most games, is the same on both sides. Empty if the sides' games are not the same schedule."""
    if len(a) != len(b) or any((x["seed"], x["bots"]) != (y["seed"], y["bots"]) for x, y in zip(a, b, strict=True)):
        return {}
    out: dict[str, Any] = {}
    for name in sorted({n for rec in a for n in rec["bots"]}):
        games = [(x, y) for x, y in zip(a, b, strict=True) if name in x["bots"]]
        out[name] = paired_comparison([_bot_in_game(name, x) for x, _ in games], [_bot_in_game(name, y) for _, y in games])
    return out


def write_compare(directory: str | Path, a: dict[str, Any], b: dict[str, Any], config: dict[str, Any]) -> tuple[Path, Path]:
    """compare.html (self-contained) and compare.json in `directory`; returns both paths."""
    from . import labreport

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    sides = [a, b]
    results = tests(a, b)
    data = {
        "config": config,
        "a": {k: a[k] for k in ("label", "edition", "options", "summary", "lab")},
        "b": {k: b[k] for k in ("label", "edition", "options", "summary", "lab")},
        "tests": results,
    }
    json_path = out / "compare.json"
    json_path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    intro = [
        f"{a['label']} = {describe(a['edition'], a['options'])}; {b['label']} = {describe(b['edition'], b['options'])}.",
        f"{config['games']} games on each side, {config['players']} players, bots {', '.join(config['bots'])}, "
        f"deal seeds from {config['seed']}: both sides play the same schedule (same deals, lineups and seat rotations).",
        "Differences are B − A with 95% intervals; win rates are compared with a pooled two-proportion z test, "
        "means with a Welch (normal) test. With many rows, some p < 0.05 happen by chance.",
    ]
    title = f"ttr compare: {describe(a['edition'], a['options'])} vs {describe(b['edition'], b['options'])}"
    html = labreport.render(title, intro, labreport.lab_sections(sides, results["paired"]))
    html_path = out / "compare.html"
    html_path.write_text(html, encoding="utf-8")
    return html_path, json_path
