"""An HTML tournament report with matplotlib plots: score distributions, win rate by seat, and map
heatmaps (how often each route is claimed, how often each city is in a completed ticket).

matplotlib is an optional dependency (``pip install 'ttr[report]'``); it is imported here only.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..editions import Edition


def route_claim_rates(records: Sequence[dict[str, Any]]) -> Counter[str]:
    """Route id -> share of games in which someone claimed it."""
    counts: Counter[str] = Counter()
    for rec in records:
        counts.update(rec.get("routes", {}).keys())
    n = max(1, len(records))
    return Counter({r: c / n for r, c in counts.items()})


def city_ticket_counts(records: Sequence[dict[str, Any]], edition: Edition) -> Counter[int]:
    """City index -> number of completed tickets naming it (a country area counts on all its endpoints)."""
    counts: Counter[int] = Counter()
    for rec in records:
        for row in rec["breakdown"]:
            for t in row["tickets"]:
                if t["completed"]:
                    ticket = edition.tickets[edition.ticket_index[t["id"]]]
                    counts.update(ticket.a_nodes)
                    counts.update(ticket.b_nodes)
    return counts


def _project(edition: Edition) -> tuple[list[float], list[float]]:
    """Equirectangular x/y with longitude shrunk by cos(mean latitude), so maps keep their shape."""
    mean_lat = sum(edition.lat) / len(edition.lat)
    k = math.cos(math.radians(mean_lat))
    return [lon * k for lon in edition.lon], list(edition.lat)


def plot_route_heatmap(records: Sequence[dict[str, Any]], edition: Edition, path: Path) -> None:
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib import cm, colors

    xs, ys = _project(edition)
    rates = route_claim_rates(records)
    norm = colors.Normalize(vmin=0.0, vmax=max(rates.values(), default=1.0) or 1.0)
    cmap = matplotlib.colormaps["inferno_r"]
    fig, ax = plt.subplots(figsize=(11, 7))
    lanes: Counter[frozenset[int]] = Counter()
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    for r in edition.routes:
        key = frozenset((r.a, r.b))
        lane = lanes[key]
        lanes[key] += 1
        x0, y0, x1, y1 = xs[r.a], ys[r.a], xs[r.b], ys[r.b]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy) or 1.0
        off = (lane - 0.5 * (len(edition.group_routes[r.group]) - 1 if r.group >= 0 else 0)) * span * 0.006
        ox, oy = -dy / length * off, dx / length * off
        rate = rates.get(r.id, 0.0)
        ax.plot(
            [x0 + ox, x1 + ox],
            [y0 + oy, y1 + oy],
            color=cmap(norm(rate)),
            linewidth=1 + 5 * norm(rate),
            solid_capstyle="round",
            zorder=1,
        )
    ax.scatter(xs, ys, s=12, color="#333", zorder=2)
    for i, name in enumerate(edition.city_names):
        if edition.city_area[i] is None:
            ax.annotate(name, (xs[i], ys[i]), fontsize=6, xytext=(2, 2), textcoords="offset points")
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="share of games in which the route is claimed")
    ax.set_title(f"{edition.name}: how often each route is claimed ({len(records)} games)")
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_city_heatmap(records: Sequence[dict[str, Any]], edition: Edition, path: Path) -> None:
    import matplotlib.pyplot as plt

    xs, ys = _project(edition)
    counts = city_ticket_counts(records, edition)
    top = max(counts.values(), default=1)
    fig, ax = plt.subplots(figsize=(11, 7))
    for r in edition.routes:
        ax.plot([xs[r.a], xs[r.b]], [ys[r.a], ys[r.b]], color="#ccc", linewidth=0.8, zorder=1)
    values = [counts.get(i, 0) for i in range(edition.ncities)]
    sc = ax.scatter(
        xs, ys, s=[20 + 400 * v / top for v in values], c=values, cmap="viridis", zorder=2, edgecolors="#333", linewidths=0.5
    )
    for i, name in enumerate(edition.city_names):
        if edition.city_area[i] is None:
            ax.annotate(name, (xs[i], ys[i]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    fig.colorbar(sc, ax=ax, label="completed tickets naming the city")
    ax.set_title(f"{edition.name}: cities in completed tickets ({len(records)} games)")
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_scores(records: Sequence[dict[str, Any]], path: Path) -> None:
    import matplotlib.pyplot as plt

    scores: dict[str, list[int]] = {}
    for rec in records:
        for seat, name in enumerate(rec["bots"]):
            scores.setdefault(name, []).append(rec["breakdown"][seat]["total"])
    names = sorted(scores)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    lo = min(min(v) for v in scores.values())
    hi = max(max(v) for v in scores.values())
    bins = range(lo - lo % 10 - 10, hi + 20, 10)
    for name in names:
        ax.hist(scores[name], bins=bins, alpha=0.5, label=f"{name} (mean {sum(scores[name]) / len(scores[name]):.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("seats")
    ax.set_title("Score distribution per bot")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_seats(summary: dict[str, Any], path: Path) -> None:
    import matplotlib.pyplot as plt

    seats = summary["seats"]
    bots = summary["bots"]
    names = sorted(bots)
    n = len(seats)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / (len(names) + 1)
    xs = range(n)
    rates = [s["win_rate"] for s in seats]
    err = [
        [max(0.0, s["win_rate"] - s["win_rate_ci95"][0]) for s in seats],
        [max(0.0, s["win_rate_ci95"][1] - s["win_rate"]) for s in seats],
    ]
    ax.bar([x - 0.4 + width / 2 for x in xs], rates, width, yerr=err, capsize=3, label="all bots", color="#888")
    for j, name in enumerate(names):
        by_seat = bots[name]["win_rate_by_seat"]
        ax.bar([x - 0.4 + width * (j + 1.5) for x in xs], [v or 0.0 for v in by_seat], width, label=name)
    ax.axhline(1.0 / n, color="#444", linestyle=":", linewidth=1)
    ax.set_xticks(list(xs), [f"seat {s + 1}" for s in xs])
    ax.set_ylabel("win rate")
    ax.set_title("Win rate by turn position (seat 1 moves first; error bars: 95% Wilson interval)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(
    directory: str | Path, records: Sequence[dict[str, Any]], summary: dict[str, Any], edition: Edition, config: dict[str, Any]
) -> Path:
    """Write index.html, the plots (PNG) and summary.json into `directory`; returns the HTML path."""
    import matplotlib

    matplotlib.use("Agg")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    plot_scores(records, out / "scores.png")
    plot_seats(summary, out / "seats.png")
    plot_route_heatmap(records, edition, out / "routes.png")
    plot_city_heatmap(records, edition, out / "cities.png")
    from . import labreport
    from .lab import facts_for, lab_summary

    facts = facts_for(records, edition)
    side = {
        "label": "all games",
        "summary": summary,
        "lab": lab_summary(facts, edition, summary["players"], config.get("options")),
        "per_seat": labreport.per_seat_values(facts),
    }
    (out / "summary.json").write_text(
        json.dumps({"config": config, "summary": summary, "lab": side["lab"]}, indent=2), encoding="utf-8"
    )
    row, table, section = labreport.row, labreport.table, labreport.section
    bots = summary["bots"]
    bot_rows = [
        row(
            name,
            b["seats"],
            f"{b['win_rate']:.1%}",
            f"{b['win_rate_ci95'][0]:.1%} – {b['win_rate_ci95'][1]:.1%}",
            f"{b['mean_score']:.1f}",
            f"{b['score_sd']:.1f}",
            f"{b['mean_route_points']:.1f}",
            f"{b['mean_ticket_points']:.1f}",
            f"{b['tickets_completed']:.2f}",
            f"{b['tickets_failed']:.2f}",
        )
        for name, b in bots.items()
    ]
    bot_head = [
        "bot",
        "seats",
        "win rate",
        "95% CI (Wilson)",
        "mean score",
        "sd",
        "route pts",
        "ticket pts",
        "tickets done",
        "tickets failed",
    ]
    seat_rows = [
        row(
            f"seat {s['seat'] + 1}",
            s["games"],
            f"{s['win_rate']:.1%}",
            f"{s['win_rate_ci95'][0]:.1%} – {s['win_rate_ci95'][1]:.1%}",
            f"{s['mean_score']:.1f}",
        )
        for s in summary["seats"]
    ]
    match_rows = [
        row(
            k,
            v["games"],
            f"{v['first_ahead']} ({v['first_ahead'] / v['games']:.1%})",
            f"{v['second_ahead']} ({v['second_ahead'] / v['games']:.1%})",
            v["level"],
        )
        for k, v in summary["matchups"].items()
    ]

    sections = [
        section("bots", "Bots", [table(bot_head, bot_rows)]),
        section(
            "seats",
            "Seats",
            [table(["seat", "games", "win rate", "95% CI", "mean score"], seat_rows)],
            [{"src": "seats.png", "alt": "win rate by seat", "caption": ""}],
        ),
        section(
            "head",
            "Head to head (who had the higher score when both played)",
            [table(["pair (first vs second)", "games together", "first ahead", "second ahead", "level"], match_rows)],
        ),
        section("score-plots", "Scores", figures=[{"src": "scores.png", "alt": "score distributions", "caption": ""}]),
        *labreport.lab_sections([side])[1:],  # the bots' win rates are the first table above
        section(
            "map",
            "Map",
            figures=[
                {"src": "routes.png", "alt": "route claim heatmap", "caption": ""},
                {"src": "cities.png", "alt": "city ticket heatmap", "caption": ""},
            ],
        ),
    ]
    intro = [
        f"{summary['games']} games, {summary['players']} players, bots {', '.join(config.get('bots', []))}, "
        f"seed {config.get('seed')}, seats rotated on each deal.",
        f"Games with a pass: {summary['games_with_pass']} ({summary['pass_rate']:.1%}), passes in all: {summary['passes']}; "
        f"stalemates (every player passed in one round): {summary['stalemates']} ({summary['stalemate_rate']:.1%}).",
    ]
    index = out / "index.html"
    index.write_text(labreport.render(f"Tournament on {edition.name}", intro, sections), encoding="utf-8")
    return index
