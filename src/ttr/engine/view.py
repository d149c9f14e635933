"""What one player may know. Bots decide from this, the web client renders it.

A view never holds another player's hand or tickets, the deck order or the random state. Attributes
are plain copies (safe to keep while the game moves on); ``to_dict()`` gives the JSON form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cards import CARD_NAMES, COLOURS, NO_CARD
from .phases import Phase

if TYPE_CHECKING:
    from ..editions import Edition
    from .game import Game


class PlayerView:
    __slots__ = (
        "current",
        "deck_size",
        "discard",
        "discard_size",
        "edition",
        "final_turns",
        "first_player",
        "hand",
        "hand_sizes",
        "last_claimed",
        "market",
        "me",
        "merch",
        "offered",
        "offered_counts",
        "pass_streak",
        "passengers",
        "phase",
        "players",
        "result",
        "revealed_tickets",
        "route_owner",
        "scores",
        "station_owner",
        "stations_left",
        "ticket_counts",
        "ticket_deck_sizes",
        "tickets",
        "to_act",
        "tokens",
        "trains",
        "tunnel",
        "turn",
    )

    def __init__(self, g: Game, me: int | None) -> None:
        self.edition: Edition = g.edition
        self.players = g.n
        self.me = me
        self.current = g.current
        self.to_act = g.to_act()  # in setup every seat still choosing its tickets; else (current,)
        self.phase = g.phase
        self.turn = g.turn
        self.first_player = g.first_player
        self.market = g.market[:]
        self.deck_size = len(g.deck)
        self.discard_size = len(g.discard)
        pile = g.discard
        self.discard = [pile.count(c) for c in range(len(CARD_NAMES))]  # the discard pile is public (counts)
        self.route_owner = g.route_owner[:]
        self.station_owner = g.station_owner[:]
        self.scores = g.scores[:]
        self.trains = g.trains[:]
        self.stations_left = g.stations_left[:]
        self.hand_sizes = [sum(h) for h in g.hands]
        self.ticket_counts = [len(t) for t in g.tickets]
        self.offered_counts = [len(t) for t in g.offered]
        mine = me is not None and 0 <= me < g.n
        self.hand = g.hands[me][:] if mine else None  # type: ignore[index]
        self.tickets = g.tickets[me][:] if mine else []  # type: ignore[index]
        self.offered = g.offered[me][:] if mine else []  # type: ignore[index]
        moving = g.rules.passengers > 0  # without passengers these never change: share them
        self.passengers = [p[:] for p in g.passengers] if moving else g.passengers
        self.merch = [m[:] for m in g.merch] if moving else g.merch
        self.tokens = [t[:] for t in g.tokens] if moving else g.tokens
        self.tunnel = g.tunnel if g.tunnel is None else (g.tunnel[0], g.tunnel[1], g.tunnel[2][:], g.tunnel[3], g.tunnel[4])
        self.last_claimed = g.last_claimed
        self.final_turns = g.final_turns
        self.pass_streak = g.pass_streak
        self.ticket_deck_sizes = {k: len(v) for k, v in g.ticket_decks.items()}
        over = g.phase == Phase.OVER
        self.result = g.result() if over else None
        self.revealed_tickets = [t[:] for t in g.tickets] if over else None  # tickets are shown at the end

    def to_dict(self) -> dict[str, Any]:
        ed = self.edition
        names = CARD_NAMES
        tunnel = None
        if self.tunnel is not None:
            ri, paid, revealed, extra, colour = self.tunnel
            tunnel = {
                "route": ed.routes[ri].id,
                "paid": {names[i]: k for i, k in enumerate(paid) if k},
                "revealed": [names[c] for c in revealed],
                "extra": extra,
                "colour": COLOURS[colour] if colour >= 0 else "locomotive",
            }
        out: dict[str, Any] = {
            "edition": ed.id,
            "players": self.players,
            "me": self.me,
            "current": self.current,
            "to_act": list(self.to_act),
            "phase": self.phase,
            "turn": self.turn,
            "first_player": self.first_player,
            "market": [names[c] if c != NO_CARD else None for c in self.market],
            "deck_size": self.deck_size,
            "discard": {names[i]: k for i, k in enumerate(self.discard) if k},
            "routes": {ed.routes[i].id: o for i, o in enumerate(self.route_owner) if o >= 0},
            "stations": {ed.city_ids[c]: o for c, o in enumerate(self.station_owner) if o >= 0},
            "ticket_decks": self.ticket_deck_sizes,
            "final_turns": self.final_turns,
            "tunnel": tunnel,
            "last_claimed": ed.routes[self.last_claimed].id if self.last_claimed >= 0 else None,
            "merchandise": {ed.city_ids[c]: list(reversed(m)) for c, m in enumerate(self.merch) if m},
            "public": [
                {
                    "score": self.scores[p],
                    "trains": self.trains[p],
                    "stations": self.stations_left[p],
                    "cards": self.hand_sizes[p],
                    "tickets": self.ticket_counts[p],
                    "drawn_tickets": self.offered_counts[p],
                    "passengers": [_pos(ed, c) for c in self.passengers[p]],
                    "tokens": self.tokens[p],
                }
                for p in range(self.players)
            ],
        }
        if self.hand is not None:
            out["hand"] = {names[i]: k for i, k in enumerate(self.hand) if k}
            out["tickets"] = [_ticket_json(ed, t) for t in self.tickets]
            out["offered"] = [_ticket_json(ed, t) for t in self.offered]
        if self.result is not None:
            out["result"] = self.result
            out["all_tickets"] = [[ed.tickets[t].id for t in ts] for ts in self.revealed_tickets or []]
        return out


def _pos(ed: Edition, c: int) -> str | None:
    return ed.city_ids[c] if c >= 0 else ("gone" if c == -2 else None)


def _ticket_json(ed: Edition, t: int) -> dict[str, Any]:
    tk = ed.tickets[t]
    return {"id": tk.id, "a": tk.a, "b": tk.b, "points": tk.points, "deck": tk.deck}
