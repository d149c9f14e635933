"""The lab's HTML: tables and figures for one set of games (``ttr tournament --report``) or two side by
side (``ttr compare``), rendered with Jinja2 templates shipped in ``ttr/sim/templates``.

Figures are matplotlib SVGs embedded as base64 data URIs, so one file holds the whole report.
jinja2 and matplotlib are optional dependencies (``pip install 'ttr[report]'``), imported here only.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from .lab import MECHANISM_FIELDS, SCORE_PARTS
from .stats import mean_difference, two_proportions, wilson

SIGNIFICANT = 0.05  # rows whose difference has p below this are highlighted


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.1%}"


def _num(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _signed(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{x:+.{digits}f}"


def _p(p: float | None) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def row(*cells: Any, mark: bool = False) -> dict[str, Any]:
    return {"cells": [str(c) for c in cells], "mark": mark}


def table(head: Sequence[str], rows: list[dict[str, Any]], fold: str | None = None) -> dict[str, Any]:
    return {"head": list(head), "rows": rows, "fold": fold}


def section(
    sid: str,
    title: str,
    tables: Sequence[dict[str, Any]] = (),
    figures: Sequence[dict[str, str]] = (),
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    return {"id": sid, "title": title, "tables": list(tables), "figures": list(figures), "notes": list(notes)}


def svg_uri(fig: Any) -> str:
    """A matplotlib figure as a self-contained data URI (SVG, base64), then closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure(fig: Any, alt: str, caption: str = "") -> dict[str, str]:
    return {"src": svg_uri(fig), "alt": alt, "caption": caption}


def render(title: str, intro: Sequence[str], sections: Sequence[dict[str, Any]]) -> str:
    import jinja2

    from .. import __version__

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ttr.sim", "templates"), autoescape=jinja2.select_autoescape(["j2", "html"])
    )
    return env.get_template("base.html.j2").render(title=title, intro=list(intro), sections=list(sections), version=__version__)


# ------------------------------------------------------------------ figures
def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fig_lengths(sides: Sequence[dict[str, Any]]) -> Any:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 3.6))
    every = [t for s in sides for t in s["lab"]["turns"]]
    lo, hi = min(every), max(every)
    bins = range(lo - lo % 5, hi + 6, 5)
    for s in sides:
        turns = s["lab"]["turns"]
        ax.hist(turns, bins=bins, alpha=0.55, label=f"{s['label']} (mean {sum(turns) / len(turns):.1f})")
    ax.set_xlabel("turns in the game (all seats)")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    ax.legend(fontsize=8)
    return fig


def fig_win_rates(sides: Sequence[dict[str, Any]]) -> Any:
    plt = _plt()
    names = sorted({b for s in sides for b in s["summary"]["bots"]})
    fig, ax = plt.subplots(figsize=(max(5, 1.4 * len(names) * len(sides)), 3.6))
    width = 0.8 / len(sides)
    for k, s in enumerate(sides):
        bots = s["summary"]["bots"]
        xs = [i - 0.4 + width * (k + 0.5) for i in range(len(names))]
        rates = [bots[n]["win_rate"] if n in bots else 0.0 for n in names]
        err = [
            [max(0.0, bots[n]["win_rate"] - bots[n]["win_rate_ci95"][0]) if n in bots else 0.0 for n in names],
            [max(0.0, bots[n]["win_rate_ci95"][1] - bots[n]["win_rate"]) if n in bots else 0.0 for n in names],
        ]
        ax.bar(xs, rates, width, yerr=err, capsize=3, label=s["label"])
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylabel("win rate")
    ax.set_title("Win rate per bot (error bars: 95% Wilson interval)")
    ax.legend(fontsize=8)
    return fig


def fig_score_parts(sides: Sequence[dict[str, Any]]) -> Any:
    plt = _plt()
    names = sorted({b for s in sides for b in s["lab"]["bots"]})
    labels = [f"{n}\n{s['label']}" if len(sides) > 1 else n for n in names for s in sides]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(labels)), 4))
    x = range(len(labels))
    pos = [0.0] * len(labels)
    neg = [0.0] * len(labels)
    for key, title in SCORE_PARTS:
        vals = [s["lab"]["bots"].get(n, {}).get("score_parts", {}).get(key, 0.0) for n in names for s in sides]
        if not any(vals):
            continue
        base = [neg[i] if v < 0 else pos[i] for i, v in enumerate(vals)]
        ax.bar(x, vals, 0.7, bottom=base, label=title)
        for i, v in enumerate(vals):
            if v < 0:
                neg[i] += v
            else:
                pos[i] += v
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set_ylabel("mean points a seat")
    ax.set_title("Where the points come from")
    ax.legend(fontsize=7, ncol=2)
    return fig


def fig_mechanisms(sides: Sequence[dict[str, Any]]) -> Any | None:
    fields = [(f, t) for s in sides for g in s["lab"]["mechanisms"] for f, t in MECHANISM_FIELDS[g]]
    fields = list(dict.fromkeys(fields))
    if not fields:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(fields) * len(sides) + 1.2))
    height = 0.8 / len(sides)
    for k, s in enumerate(sides):
        per = s["lab"]["mechanisms_per_game"]
        ys = [i - 0.4 + height * (k + 0.5) for i in range(len(fields))]
        ax.barh(ys, [per.get(f, 0.0) for f, _ in fields], height, label=s["label"])
    ax.set_yticks(range(len(fields)), [t for _, t in fields], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("per game (all seats)")
    ax.set_title("Mechanisms")
    ax.legend(fontsize=8)
    return fig


# ------------------------------------------------------------------ sections
def _bot_names(sides: Sequence[dict[str, Any]]) -> list[str]:
    return sorted({b for s in sides for b in s["summary"]["bots"]})


def win_section(sides: Sequence[dict[str, Any]], paired: dict[str, Any] | None = None) -> dict[str, Any]:
    """Win rates per bot; with two sides also their difference, and with `paired` (``compare.paired_tests``
    of the two sides' games) the game-by-game comparison."""
    names = _bot_names(sides)
    head = ["bot"]
    for s in sides:
        head += [f"{s['label']}: seats", f"{s['label']}: win rate", f"{s['label']}: 95% CI"]
    if len(sides) == 2:
        head += ["difference (B − A)", "95% CI", "z", "p (two-proportion z test)"]
        if paired:
            head += ["games better on A / on B", "p (paired sign test)"]
    rows = []
    for n in names:
        cells: list[Any] = [n]
        got: list[dict[str, Any] | None] = []
        for s in sides:
            b = s["summary"]["bots"].get(n)
            if b is None:
                cells += ["—", "—", "—"]
                got.append(None)
                continue
            lo, hi = wilson(b["wins"], b["seats"])
            cells += [b["seats"], _pct(b["win_rate"]), f"{lo:.1%} – {hi:.1%}"]
            got.append(b)
        mark = False
        if len(sides) == 2:
            a, b = got
            if a and b:
                t = two_proportions(b["wins"], b["seats"], a["wins"], a["seats"])
                ci = t["ci95"]
                cells += [
                    _signed(100 * t["diff"]) + " pts" if t["diff"] is not None else "—",
                    f"{100 * ci[0]:+.1f} – {100 * ci[1]:+.1f}" if ci else "—",
                    _num(t["z"], 2),
                    _p(t["p"]),
                ]
                mark = t["p"] is not None and t["p"] < SIGNIFICANT
            else:
                cells += ["—"] * 4
            if paired:
                pr = paired.get(n)
                cells += ["—", "—"] if pr is None else [f"{pr['a_only']} / {pr['b_only']}", _p(pr["p_sign"])]
                mark = mark or (pr is not None and pr["p_sign"] < SIGNIFICANT)
        rows.append(row(*cells, mark=mark))
    notes = ["Shared wins count fractionally. Percentage points; highlighted rows: p < 0.05."] if len(sides) == 2 else []
    if paired:
        notes.append(
            "Both sides played the same deals and seatings, so each game is compared with its twin: the games in "
            "which the bot's win share was larger on A, and on B, and the exact sign test over them (the games "
            "with the same result on both sides, decided by the deal, are left out). It is more sensitive than "
            "the two-proportion test."
        )
    return section("wins", "Win rate per bot", [table(head, rows)], [figure(fig_win_rates(sides), "win rates")], notes)


def score_section(sides: Sequence[dict[str, Any]]) -> dict[str, Any]:
    names = _bot_names(sides)
    head = ["bot", "part", *(s["label"] for s in sides)]
    if len(sides) == 2:
        head += ["B − A", "95% CI", "p (Welch)"]
    rows = []
    for n in names:
        for key, title in (("total", "total score"), *SCORE_PARTS):
            vals = []
            for s in sides:
                b = s["lab"]["bots"].get(n)
                vals.append(None if b is None else (b["mean_score"] if key == "total" else b["score_parts"][key]))
            if key != "total" and not any(vals):
                continue
            cells: list[Any] = [n, title, *(_num(v) for v in vals)]
            mark = False
            if len(sides) == 2:
                xs = [s["per_seat"].get(n, {}).get(key, []) for s in sides]
                d = mean_difference(xs[1], xs[0])
                ci = d["ci95"]
                cells += [_signed(d["diff"]), f"{ci[0]:+.1f} – {ci[1]:+.1f}" if ci else "—", _p(d["p"])]
                mark = key == "total" and d["p"] is not None and d["p"] < SIGNIFICANT
            rows.append(row(*cells, mark=mark))
    notes = [
        "Mean points a seat. Longest path: the longest-route bonus (USA, Europe); Globetrotter: the "
        "most-tickets bonus (Nordic, Märklin); unused stations: 4 points for each station not built (Europe)."
    ]
    return section(
        "scores",
        "Mean score and where it comes from",
        [table(head, rows)],
        [figure(fig_score_parts(sides), "score parts")],
        notes,
    )


def length_section(sides: Sequence[dict[str, Any]]) -> dict[str, Any]:
    head = ["", *(s["label"] for s in sides)]
    rows = [row("games", *(s["lab"]["games"] for s in sides))]
    turns = [s["lab"]["turns"] for s in sides]
    rows.append(row("mean turns", *(_num(sum(t) / len(t)) for t in turns)))
    rows.append(row("shortest – longest", *(f"{min(t)} – {max(t)}" for t in turns)))
    for key, title in (("trains", "ended by trains running low"), ("stalemate", "ended in a stalemate (every player passed)")):
        rows.append(row(title, *(f"{s['lab']['ends'][key]} ({s['lab']['ends'][key] / s['lab']['games']:.1%})" for s in sides)))
    rows.append(
        row(
            "games with a forced pass",
            *(f"{(k := s['lab']['ends']['games_with_forced_pass'])} ({k / s['lab']['games']:.1%})" for s in sides),
        )
    )
    if len(sides) == 2:
        d = mean_difference(turns[1], turns[0])
        rows.append(row("mean turns, B − A (p, Welch)", "", f"{_signed(d['diff'])} ({_p(d['p'])})"))
    bins = list(dict.fromkeys(b for s in sides for b in s["lab"]["length_histogram"]))
    bins.sort(key=lambda b: int(b.split("-")[0]))
    hist = table(
        ["turns", *(s["label"] for s in sides)],
        [row(b, *(s["lab"]["length_histogram"].get(b, 0) for s in sides)) for b in bins],
        fold="histogram as a table",
    )
    notes = ["How a game ended is the engine's Game.outcome (EndReason); a forced pass is a turn with no other legal action."]
    return section(
        "length",
        "Game length and how games end",
        [table(head, rows), hist],
        [figure(fig_lengths(sides), "game length histogram")],
        notes,
    )


def _per_item_table(
    sides: Sequence[dict[str, Any]],
    key: str,
    ids: list[str],
    first: tuple[str, str],
    columns: Sequence[str],
    cells: Any,
) -> tuple[list[str], list[Any]]:
    """One row per ticket/route id: its id, a fixed field (points, length), then `columns` per side from `cells(item)`."""
    head = [key.rstrip("s"), first[0]]
    for s in sides:
        head += [f"{s['label']}: {c}" for c in columns]
    rows = []
    for item_id in ids:
        fixed = next(s["lab"][key][item_id][first[1]] for s in sides if item_id in s["lab"][key])
        out: list[Any] = [item_id, fixed]
        for s in sides:
            item = s["lab"][key].get(item_id)
            out += ["not on this map", *[""] * (len(columns) - 1)] if item is None else cells(item)
        rows.append(row(*out))
    return head, rows


def ticket_section(sides: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ids = list(dict.fromkeys(t for s in sides for t in s["lab"]["tickets"]))
    head, rows = _per_item_table(
        sides,
        "tickets",
        ids,
        ("points", "points"),
        ("kept / offered", "completed when kept", "mean ±"),
        lambda t: [
            f"{t['kept']} / {t['offered']} ({_pct(t['kept_rate'])})",
            f"{_pct(t['completed_rate'])} of {t['held']}",
            _signed(t["mean_points"]),
        ],
    )
    notes = [
        "Offered: dealt at setup or drawn; kept: chosen to keep; completed when kept: share of the kept "
        "tickets completed at the end; mean ±: the mean points a kept ticket scored (+ completed, − failed)."
    ]
    return section("tickets", "Tickets", [table(head, rows, fold=f"{len(ids)} tickets")], notes=notes)


def route_section(sides: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ids = list(dict.fromkeys(r for s in sides for r in s["lab"]["routes"]))
    if len(sides) == 2:

        def change(rid: str) -> float:
            a, b = (s["lab"]["routes"].get(rid, {}).get("claim_rate", 0.0) for s in sides)
            return -abs(b - a)

        ids.sort(key=change)
    head, rows = _per_item_table(
        sides,
        "routes",
        ids,
        ("length", "length"),
        ("claim rate", "mean turn", "by whom"),
        lambda r: [
            _pct(r["claim_rate"]),
            _num(r["mean_claim_turn"]),
            ", ".join(f"{k} {v}" for k, v in r["by"].items()) or "—",
        ],
    )
    notes = [
        "Claim rate: share of games in which the route was claimed; turn: the game's turn counter "
        "(all seats); by whom: claims per bot."
    ]
    if len(sides) == 2:
        notes.append("Sorted by the change in claim rate, largest first.")
    return section("routes", "Routes", [table(head, rows, fold=f"{len(ids)} routes")], notes=notes)


def mechanism_section(sides: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    fields = list(dict.fromkeys((f, t) for s in sides for g in s["lab"]["mechanisms"] for f, t in MECHANISM_FIELDS[g]))
    if not fields:
        return None
    names = _bot_names(sides)
    head = ["", *(f"{s['label']}: per game" for s in sides)]
    for s in sides:
        head += [f"{s['label']}: per seat of {n}" for n in names if n in s["lab"]["bots"]]
    rows = []
    for f, title in fields:
        cells: list[Any] = [title]
        for s in sides:
            cells.append(_num(s["lab"]["mechanisms_per_game"].get(f), 2) if f in s["lab"]["mechanisms_per_game"] else "—")
        for s in sides:
            for n in names:
                if n in s["lab"]["bots"]:
                    v = s["lab"]["bots"][n]["mechanisms"].get(f)
                    cells.append("—" if v is None else f"{v:.2f}")
        rows.append(row(*cells))
    notes = [
        "Counted from the engine's events: tunnel_reveal (attempted; no extra cards), tunnel_pay (extra "
        "cards paid and spent), tunnel_decline; claims of ferries and the locomotives paid; card sets "
        "that replaced a ferry locomotive (Nordic 3-for-1) or paid a substitution route; build_station; "
        "move_passenger and the merchandise it took (Märklin). A ticket completed only thanks to "
        "stations is one the engine's ticket report marks 'station' (not done over the player's own routes)."
    ]
    fig = fig_mechanisms(sides)
    return section("mechanisms", "Mechanisms", [table(head, rows)], [figure(fig, "mechanisms")] if fig else [], notes)


def lab_sections(sides: Sequence[dict[str, Any]], paired: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    out = [win_section(sides, paired), score_section(sides), length_section(sides), ticket_section(sides), route_section(sides)]
    mech = mechanism_section(sides)
    if mech:
        out.append(mech)
    return out


def per_seat_values(facts: Sequence[dict[str, Any]]) -> dict[str, dict[str, list[int]]]:
    """bot -> part -> every seat's value (for the score differences' intervals)."""
    out: dict[str, dict[str, list[int]]] = {}
    for f in facts:
        for s in f["seats"]:
            d = out.setdefault(s["bot"], {})
            d.setdefault("total", []).append(s["total"])
            for key, _ in SCORE_PARTS:
                d.setdefault(key, []).append(s["parts"][key])
    return out
