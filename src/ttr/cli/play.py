"""ttr play: play a game in the terminal against bots (or several humans at one keyboard)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..notation import format_cards, format_move

HELP = (
    "play in the terminal against bots: the moves are grouped (draw: f1-f5, b, t; claim: c<n> or c ROUTE, with a payment"
    " number if there are several; the rest numbered) and any move in ttr's notation is read too (claim denver-omaha 3red+1L)"
)


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
    cards = format_cards(action.cards) if action.cards and any(action.cards) else ""  # the notation's cards
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


class Menu:
    """The legal actions grouped for the terminal: draws (f1-f5 face-up, b blind, t tickets), claims by route
    (numbered routes, each with its payments), and the rest (keep tickets, tunnels, stations, passengers...) numbered."""

    def __init__(self, game: Any, legal: Sequence[Any]) -> None:
        self.draws: dict[str, Any] = {}
        self.routes: dict[str, list[Any]] = {}
        self.rest: list[Any] = []
        for a in legal:
            if a.type == "draw_faceup":
                self.draws[f"f{a.slot + 1}"] = a
            elif a.type == "draw_blind":
                self.draws["b"] = a
            elif a.type == "draw_tickets" and not a.mix:
                self.draws["t"] = a
            elif a.type == "claim":
                self.routes.setdefault(a.route, []).append(a)
            else:
                self.rest.append(a)
        self.route_ids = sorted(self.routes)
        for pays in self.routes.values():  # fewest locomotives first, then fewest cards: "c3 1" is the thrifty one
            pays.sort(key=lambda a: (_wild(a.to_json()["cards"]), sum(a.to_json()["cards"].values())))

    def lines(self, game: Any) -> list[str]:
        from ..cards import CARD_NAMES

        out = []
        if self.draws:
            words = []
            for key, a in self.draws.items():
                if a.type == "draw_faceup":
                    words.append(f"{key} {CARD_NAMES[game.market[a.slot]]}")
                elif a.type == "draw_blind":
                    words.append(f"b deck ({len(game.deck)})")
                else:
                    words.append("t tickets")
            out.append("draw:   " + "   ".join(words))
        if self.route_ids:
            out.append("claim:  c<n> (or c ROUTE), then the payment's number if there are several")
            cells = [
                f"c{i + 1:<3} {route_label(game, rid):<34} {_ways(len(self.routes[rid]))}" for i, rid in enumerate(self.route_ids)
            ]
            out.extend("  " + "   ".join(cells[i : i + 2]) for i in range(0, len(cells), 2))
        for i, a in enumerate(self.rest):
            out.append(f"  {i:3}  {format_move(game, a):<44} {describe(game, a)}")
        return out

    def claim(self, game: Any, which: str, payment: str | None) -> Any:
        """`c3` / `c denver-omaha/2` (and a payment number): the claim, or a sentence saying what is missing."""
        if which.isdigit():
            n = int(which)
            if not 1 <= n <= len(self.route_ids):
                return f"no route c{n} (c1-c{len(self.route_ids)})" if self.route_ids else "no route can be claimed now"
            rid = self.route_ids[n - 1]
        else:
            lanes = [r for r in self.route_ids if r == which or r.split("/")[0] == which]
            if len(lanes) != 1:
                return f"{which}: " + ("lanes " + ", ".join(lanes) if lanes else "cannot be claimed now")
            rid = lanes[0]
        pays = self.routes[rid]
        if payment is not None:
            if payment.isdigit() and 1 <= int(payment) <= len(pays):
                return pays[int(payment) - 1]
            return f"no payment {payment} for {rid} (1-{len(pays)})"
        if len(pays) == 1:
            return pays[0]
        from ..notation import format_cards

        return f"{rid}: several payments, add its number: " + "; ".join(
            f"{i + 1} = {format_cards(a.cards)}" for i, a in enumerate(pays)
        )


def _wild(cards: dict[str, int]) -> int:
    return cards.get("locomotive", 0) + cards.get("locomotive_plus4", 0)


def _ways(n: int) -> str:
    return "1 way" if n == 1 else f"{n} ways"


def route_label(game: Any, rid: str) -> str:
    """`denver-omaha/2 4 black tunnel`: the id (a double's lane suffix tells its lanes apart), length, colour."""
    from ..cards import CARD_NAMES, GRAY

    ed = game.edition
    r = ed.routes[ed.route_index[rid]]
    colour = "gray" if r.colour == GRAY else CARD_NAMES[r.colour]
    extra = " tunnel" if r.tunnel else (f" ferry{r.ferry}" if r.ferry else "")
    return f"{rid} {r.length} {colour}{extra}"


def choose(game: Any, legal: Sequence[Any], answer: str) -> Any:
    """The legal action the player typed — a short command of the menu (f1-f5, b, t, c<n> or c ROUTE [payment],
    a number of the rest), or a move in ttr's notation (a claim may leave out the cards when only one payment is
    legal) — or a sentence saying what is wrong."""
    from ..notation import NotationError, parse_move

    menu = Menu(game, legal)
    key = answer.strip().lower()
    if key.isdigit():
        n = int(key)
        if n < len(menu.rest):
            return menu.rest[n]
        return f"no move number {n} (0-{len(menu.rest) - 1})" if menu.rest else f"no numbered move now; {_hint(menu)}"
    if key in menu.draws:
        return menu.draws[key]
    if key in ("b", "t") or (len(key) == 2 and key[0] == "f" and key[1] in "12345"):
        return f"{key}: not possible now; {_hint(menu)}"
    words = answer.split()
    if words and (words[0].lower() == "c" or (words[0][:1].lower() == "c" and words[0][1:].isdigit())):
        which = words[0][1:] if words[0][1:] else (words[1] if len(words) > 1 else "")
        rest = words[1:] if words[0][1:] else words[2:]
        if not which:
            return f"c what? {_hint(menu)}"
        return menu.claim(game, which, rest[0] if rest else None)
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


def _hint(menu: Menu) -> str:
    keys = [
        *menu.draws,
        *(["c1-c" + str(len(menu.route_ids))] if menu.route_ids else []),
        *([f"0-{len(menu.rest) - 1}"] if menu.rest else []),
    ]
    return "possible: " + ", ".join(keys) if keys else "nothing is possible"


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
        for line in Menu(game, legal).lines(game):
            console.print(line, highlight=False, markup=False)
        while True:
            answer = console.input(f"player {p}, your move (a command above or a move in notation; q to quit): ").strip()
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
