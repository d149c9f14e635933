"""ttr play: play a game in the terminal against bots (or several humans at one keyboard)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..notation import format_move

HELP = "play in the terminal against bots: type a move (claim denver-omaha 3red+1L, blind, draw 2...) or its number"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="usa", help="usa, europe, nordic, marklin or a map .json file (default usa)")
    p.add_argument("--players", type=int, default=None, help="player count (default: one per seat named)")
    p.add_argument(
        "--seats", default="human,medium", help="comma-separated seat kinds: 'human' or a bot name/level (default human,medium)"
    )
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random)")


def describe(game: Any, action: Any) -> str:
    """One action in words, for the numbered menu."""
    ed = game.edition
    j = action.to_json()
    kind = j["type"]
    cards = ", ".join(f"{n} {c}" for c, n in j.get("cards", {}).items())
    if kind == "draw_faceup":
        from ..cards import CARD_NAMES

        return f"take face-up card {j['slot'] + 1}: {CARD_NAMES[game.market[j['slot']]]}"
    if kind == "claim":
        r = ed.routes[ed.route_index[j["route"]]]
        extra = " (tunnel)" if r.tunnel else (f" (ferry x{r.ferry})" if r.ferry else "")
        return f"claim {ed.city_names[r.a]}–{ed.city_names[r.b]} ({r.length}){extra} paying {cards}"
    if kind == "keep_tickets":
        return "keep " + "; ".join(_ticket(ed, t) for t in j["tickets"])
    if kind == "build_station":
        return f"build a station in {ed.city_names[ed.city_index[j['city']]]} paying {cards}"
    if kind == "tunnel_pay":
        return f"pay the tunnel's extra cards: {cards}"
    if kind == "place_passenger":
        return "place no passenger" if j["city"] is None else f"place a passenger on {j['city']}"
    if kind == "move_passenger":
        return f"move the passenger from {j['city']} along {' → '.join(j['path'])} ({cards or 'no passenger cards'})"
    if kind == "draw_tickets" and "mix" in j:
        return "draw tickets: " + ", ".join(f"{n} {d}" for d, n in j["mix"].items())
    return kind.replace("_", " ")


def choose(game: Any, legal: Sequence[Any], answer: str) -> Any:
    """The legal action the player typed (a number from the list, or a move in ttr's notation; a claim
    may leave out the cards when only one payment is legal), or a sentence saying what is wrong."""
    from ..notation import NotationError, parse_move

    if answer.isdigit():
        return legal[int(answer)] if int(answer) < len(legal) else f"no move number {answer} (0-{len(legal) - 1})"
    words = answer.split()
    if len(words) == 2 and words[0].lower() == "claim":
        payments = [a for a in legal if a.type == "claim" and a.route == words[1]]
        if len(payments) == 1:
            return payments[0]
        if payments:
            return f"several payments for {words[1]}: " + "; ".join(format_move(game, a) for a in payments)
    try:
        action = parse_move(game, answer)
    except NotationError as exc:
        return str(exc)
    return action if action in legal else f"not legal now: {answer}"


def _ticket(ed: Any, tid: str) -> str:
    t = ed.tickets[ed.ticket_index[tid]]
    return f"{ed.place_name(t.a)}–{ed.place_name(t.b)} ({t.points})"


def show(console: Any, game: Any, me: int) -> None:
    from rich.table import Table

    from ..cards import CARD_NAMES, NO_CARD

    v = game.view(me)
    t = Table(title=f"{game.edition.name} — turn {v.turn}, player {v.current} to play ({v.phase})")
    for col in ("player", "score", "trains", "cards", "tickets", "stations"):
        t.add_column(col, justify="right")
    for p in range(v.players):
        t.add_row(
            f"{p}{' (you)' if p == me else ''}",
            str(v.scores[p]),
            str(v.trains[p]),
            str(v.hand_sizes[p]),
            str(v.ticket_counts[p]),
            str(v.stations_left[p]),
        )
    console.print(t)
    console.print("market: " + ", ".join(CARD_NAMES[c] if c != NO_CARD else "—" for c in v.market) + f"   deck: {v.deck_size}")
    hand = ", ".join(f"{n} {CARD_NAMES[i]}" for i, n in enumerate(v.hand or []) if n)
    console.print(f"your hand: {hand or 'empty'}")
    for ticket, done in game.ticket_status(me):
        label = _ticket(game.edition, ticket.id)
        console.print(f"  ticket {label} {'✔ connected' if done else '… not yet'}")


def run(args: argparse.Namespace) -> int:
    import random

    from rich.console import Console

    from ..bots import make_bot
    from ..engine import Game

    seats = [s.strip() for s in args.seats.split(",")]
    players = args.players or len(seats)
    if len(seats) == 1:
        seats *= players
    if len(seats) != players:
        print(f"ttr play: --seats names {len(seats)} seats for {players} players", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    game = Game(args.edition, players, seed)
    bots = {i: make_bot(s, seed=seed + i) for i, s in enumerate(seats) if s != "human"}
    console = Console()
    console.print(f"seed {seed}; seats: {', '.join(f'{i}={s}' for i, s in enumerate(seats))}")
    while not game.is_over:
        p = game.current
        legal = game.legal_actions()
        if p in bots:
            action = bots[p].act(game.view(p), legal)
            console.print(f"[dim]player {p}: {describe(game, action)}[/dim]")
            game.apply(action)
            continue
        show(console, game, p)
        for i, a in enumerate(legal):
            console.print(f"  [bold]{i:3}[/bold]  {format_move(game, a):<44} {describe(game, a)}")
        while True:
            answer = console.input(f"player {p}, your move (notation or 0-{len(legal) - 1}; q to quit): ").strip()
            if answer.lower() == "q":
                console.print(f"record so far: seed {seed}, {len(game.history)} actions")
                return 0
            action = choose(game, legal, answer)
            if isinstance(action, str):
                console.print(action)
                continue
            game.apply(action)
            break
    res = game.result()
    for x in res["players"]:
        console.print(f"player {x['player']}: {x['total']} points (rank {x['rank']})")
    console.print(f"winner(s): {res['winners']}")
    return 0
