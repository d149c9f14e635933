"""The observation vector, built only from one player's ``PlayerView``.

Seats are *relative*: seat 0 is the observing player, seat 1 the next player in turn order, ...
up to the edition's largest player count (absent seats stay zero). Values are raw counts or 0/1
flags in float32; ``ObservationLayout.high`` bounds each entry (divide by it to get [0, 1]).
The blocks, their order and sizes per edition are listed in docs/rl.md (``layout_rows``).

Encoding is incremental: each encoder remembers the view lists it last encoded (route owners,
tickets, market, ...) and rewrites a block only when its source changed, so a step costs a few
list comparisons plus the small per-turn counters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import COLOURS, NCARDS, NO_CARD
from ..editions import Edition
from ..engine import PHASES, PlayerView
from ..engine.scoring import components, ticket_done
from .actions import TUNNEL_REVEAL, _max_offered

OBSERVATION_VERSION = 0

PUBLIC_FIELDS = ("score", "trains", "cards", "tickets", "tickets_offered")


@dataclass(frozen=True, slots=True)
class ObsBlock:
    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationLayout:
    """Block positions and upper bounds of the observation vector of one edition."""

    def __init__(self, edition: Edition) -> None:
        self.edition = ed = edition
        r = ed.rules
        self.seats = s = r.players[1]
        self.kinds = [k for k in range(NCARDS) if ed.deck[k] > 0]  # card kinds this edition's deck has
        self.kind_pos = {k: i for i, k in enumerate(self.kinds)}
        nk = len(self.kinds)
        self.nroutes = nr = len(ed.routes)
        self.ncities = nc = ed.ncities
        self.ntickets = nt = len(ed.tickets)
        self.max_offered = mo = _max_offered(r)
        self.has_tunnels = any(x.tunnel for x in ed.routes)
        self.has_stations = r.stations > 0
        self.passengers = r.passengers
        self.merch_depth = max((len(m) for m in ed.merchandise), default=0)
        self.public_fields = list(PUBLIC_FIELDS)
        if self.has_stations:
            self.public_fields.append("stations_left")
        if self.passengers:
            self.public_fields += ["passengers_waiting", "passengers_placed", "passengers_done"]
        self.blocks: dict[str, ObsBlock] = {}
        highs: list[np.ndarray] = []
        pos = 0
        total_cards = sum(ed.deck)
        score_max = sum(x.points for x in ed.routes) + sum(sum(m) for m in ed.merchandise)

        def block(name: str, high: list[float] | np.ndarray, doc: str) -> None:
            nonlocal pos
            h = np.asarray(high, dtype=np.float32)
            self.blocks[name] = ObsBlock(name, pos, len(h), doc)
            highs.append(h)
            pos += len(h)

        block("phase", [1] * len(PHASES), f"one-hot phase: {', '.join(PHASES)}")
        block("to_move", [1] * s, "one-hot relative seat of the player to move (all 0 when the game is over)")
        block("seats", [1] * s, "1 for each relative seat present in this game")
        block("end", [1, s, s], "final round triggered (0/1), turns left in the final round, consecutive passes")
        field_high = {"score": score_max, "trains": r.trains, "cards": total_cards, "tickets": nt,
                      "tickets_offered": mo, "stations_left": r.stations, "passengers_waiting": r.passengers,
                      "passengers_placed": r.passengers, "passengers_done": r.passengers}
        block("public", [field_high[f] for _ in range(s) for f in self.public_fields],
              f"per relative seat: {', '.join(self.public_fields)}")
        block("hand", [ed.deck[k] for k in self.kinds], "own cards per kind")
        block("piles", [total_cards] + [ed.deck[k] for k in self.kinds]
              + [sum(1 for t in ed.tickets if t.deck == d) for d in ed.ticket_decks],
              "deck size, discard pile per kind, size of each ticket deck (" + ", ".join(ed.ticket_decks) + ")")
        self.small_stop = pos  # everything above is rewritten every step
        block("market", [1] * (r.market_size * nk), "per market slot: one-hot card kind (all 0 = empty slot)")
        block("routes", [1] * (nr * s), "per route: one-hot relative seat of its owner (all 0 = unclaimed)")
        block("tickets", [1] * (nt * 2), "per ticket of the edition: held by me, connected by my own routes")
        block("offered", [1] * (mo * nt), "per offered position j (the bit j of keep actions): one-hot ticket")
        if self.has_tunnels:
            block("tunnel", [TUNNEL_REVEAL] + [1] * (len(COLOURS) + 1) + [TUNNEL_REVEAL] * nk
                  + [max(x.length for x in ed.routes)] * nk,
                  "tunnel being claimed: extra cards owed, colour they must be (8 colours + locomotives only), "
                  "revealed cards per kind, cards already paid per kind")
        if self.has_tunnels or self.passengers:
            block("pending_route", [1] * nr, "one-hot: the tunnel being claimed, or the route just claimed "
                  "(where a passenger may be placed)")
        if self.has_stations:
            block("stations", [1] * (nc * s), "per city: one-hot relative seat of its station's owner")
        if self.passengers:
            block("passengers", [1] * (nc * s), "per city: one-hot relative seat of the passenger standing there")
            block("my_passengers", [1] * (r.passengers * (nc + 2)),
                  "per own passenger slot: one-hot city, then waiting (not placed), then done (moved)")
            top = max((max(m) for m in ed.merchandise if m), default=0)
            block("merchandise", [top] * (nc * self.merch_depth),
                  "per city: merchandise token values left, top of the stack first (0 = none)")
        self.size = pos
        self.high = np.concatenate(highs)
        self.low = np.zeros(self.size, dtype=np.float32)
        self.route_slots = np.arange(nr, dtype=np.int64) * s
        self.city_slots = np.arange(nc, dtype=np.int64) * s

    def rows(self) -> list[tuple[str, int, int, str]]:
        return [(b.name, b.start, b.size, b.doc) for b in self.blocks.values()]


_NEVER: list[int] = [-99]  # a value no view list ever equals: forces the first encoding


class ObservationEncoder:
    """Encodes the views of one player (one relative frame). Keep one per seat and reuse it."""

    def __init__(self, layout: ObservationLayout, me: int) -> None:
        self.layout = layout
        self.me = me
        self.buf = np.zeros(layout.size, dtype=np.float32)
        self._last: dict[str, object] = {}

    def reset(self) -> None:
        self.buf[:] = 0
        self._last.clear()

    def encode(self, view: PlayerView) -> np.ndarray:
        """A new float32 array for this view (the encoder's buffer is reused internally)."""
        lay = self.layout
        ed = lay.edition
        buf = self.buf
        blocks = lay.blocks
        me = view.me
        if me != self.me:
            raise ValueError(f"this encoder is for player {self.me}, not {me}")
        n = view.players
        s = lay.seats
        last = self._last
        # --- small counters, rewritten every step
        head = [0.0] * lay.small_stop
        head[PHASES.index(view.phase)] = 1.0
        o = blocks["to_move"].start
        if view.phase != "over":
            head[o + (view.current - me) % n] = 1.0
        o = blocks["seats"].start
        for i in range(n):
            head[o + i] = 1.0
        o = blocks["end"].start
        if view.final_turns >= 0:
            head[o] = 1.0
            head[o + 1] = view.final_turns
        head[o + 2] = view.pass_streak
        o = blocks["public"].start
        nf = len(lay.public_fields)
        stations = lay.has_stations
        npass = lay.passengers
        for rel in range(n):
            p = (me + rel) % n
            b = o + rel * nf
            head[b] = view.scores[p]
            head[b + 1] = view.trains[p]
            head[b + 2] = view.hand_sizes[p]
            head[b + 3] = view.ticket_counts[p]
            head[b + 4] = view.offered_counts[p]
            b += 5
            if stations:
                head[b] = view.stations_left[p]
                b += 1
            if npass:
                ps = view.passengers[p]
                waiting = ps.count(-1)
                done = ps.count(-2)
                head[b] = waiting
                head[b + 1] = npass - waiting - done
                head[b + 2] = done
        hand = view.hand
        o = blocks["hand"].start
        for i, k in enumerate(lay.kinds):
            head[o + i] = hand[k]  # type: ignore[index]
        o = blocks["piles"].start
        head[o] = view.deck_size
        discard = view.discard
        for i, k in enumerate(lay.kinds):
            head[o + 1 + i] = discard[k]
        o += 1 + len(lay.kinds)
        sizes = view.ticket_deck_sizes
        for i, d in enumerate(ed.ticket_decks):
            head[o + i] = sizes.get(d, 0)
        buf[: lay.small_stop] = head
        # --- blocks rewritten only when their source changed
        market = view.market
        if market != last.get("market", _NEVER):
            last["market"] = market
            b = blocks["market"]
            row = [0.0] * b.size
            nk = len(lay.kinds)
            for slot, c in enumerate(market):
                if c != NO_CARD:
                    row[slot * nk + lay.kind_pos[c]] = 1.0
            buf[b.start: b.stop] = row
        owners = view.route_owner
        routes_changed = owners != last.get("routes", _NEVER)
        if routes_changed:
            last["routes"] = owners
            self._owner_block(blocks["routes"], owners, lay.route_slots, me, n)
        tickets = view.tickets
        if routes_changed:
            last["my_routes"] = owners.count(me)
        mine = (last["my_routes"], tickets)
        if mine != last.get("mine"):  # connectivity changes only with my own claims or tickets
            last["mine"] = mine
            b = blocks["tickets"]
            buf[b.start: b.stop] = 0.0
            if tickets:
                routes = ed.routes
                labels = components(lay.ncities, ((routes[i].a, routes[i].b) for i, o in enumerate(owners) if o == me))
                for t in tickets:
                    buf[b.start + 2 * t] = 1.0
                    if ticket_done(labels, ed.tickets[t]):
                        buf[b.start + 2 * t + 1] = 1.0
        offered = view.offered
        if offered != last.get("offered", _NEVER):
            last["offered"] = offered
            b = blocks["offered"]
            buf[b.start: b.stop] = 0.0
            for j, t in enumerate(offered):
                buf[b.start + j * lay.ntickets + t] = 1.0
        if lay.has_tunnels:
            tunnel = view.tunnel
            if tunnel != last.get("tunnel", _NEVER):
                last["tunnel"] = tunnel
                b = blocks["tunnel"]
                row = [0.0] * b.size
                if tunnel is not None:
                    _, paid, revealed, extra, colour = tunnel
                    row[0] = extra
                    row[1 + (colour if colour >= 0 else len(COLOURS))] = 1.0
                    o = 2 + len(COLOURS)
                    nk = len(lay.kinds)
                    for c in revealed:
                        row[o + lay.kind_pos[c]] += 1.0
                    for i, k in enumerate(lay.kinds):
                        row[o + nk + i] = paid[k]
                buf[b.start: b.stop] = row
        if "pending_route" in blocks:
            pending = view.tunnel[0] if view.tunnel is not None else view.last_claimed
            if pending != last.get("pending"):
                last["pending"] = pending
                b = blocks["pending_route"]
                buf[b.start: b.stop] = 0.0
                if pending >= 0:
                    buf[b.start + pending] = 1.0
        if stations:
            so = view.station_owner
            if so != last.get("stations", _NEVER):
                last["stations"] = so
                self._owner_block(blocks["stations"], so, lay.city_slots, me, n)
        if npass:
            ps = view.passengers
            if ps != last.get("passengers", _NEVER):
                last["passengers"] = ps
                b = blocks["passengers"]
                row = [0.0] * b.size
                for p in range(n):
                    rel = (p - me) % n
                    for c in ps[p]:
                        if c >= 0:
                            row[c * s + rel] = 1.0
                buf[b.start: b.stop] = row
                b = blocks["my_passengers"]
                row = [0.0] * b.size
                width = lay.ncities + 2
                for slot, c in enumerate(ps[me]):
                    row[slot * width + (c if c >= 0 else lay.ncities + (0 if c == -1 else 1))] = 1.0
                buf[b.start: b.stop] = row
            merch = view.merch
            if merch != last.get("merch", _NEVER):
                last["merch"] = merch
                b = blocks["merchandise"]
                row = [0.0] * b.size
                depth = lay.merch_depth
                for c, stack in enumerate(merch):
                    for i, v in enumerate(reversed(stack)):  # the engine keeps the top at the end
                        row[c * depth + i] = v
                buf[b.start: b.stop] = row
        return buf.copy()

    def _owner_block(self, b: ObsBlock, owners: list[int], slots: np.ndarray, me: int, n: int) -> None:
        blk = self.buf[b.start: b.stop]
        blk[:] = 0.0
        arr = np.asarray(owners, dtype=np.int64)
        taken = arr >= 0
        if taken.any():
            blk[slots[taken] + (arr[taken] - me) % n] = 1.0
