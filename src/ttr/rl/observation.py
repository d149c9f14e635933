"""The observation vector, built only from one player's ``PlayerView``.

Seats are *relative*: seat 0 is the observing player, seat 1 the next player in turn order, ...
up to the edition's largest player count (absent seats stay zero). Values are raw counts or 0/1
flags in float32; ``ObservationLayout.high`` bounds each entry (divide by it to get [0, 1]).
The blocks, their order and sizes per edition are listed in docs/rl.md (``python -m ttr.rl.layout``).

Encoding is incremental: each encoder remembers the view lists it last encoded (route owners,
tickets, market, ...) and rewrites a block only when its source changed, so a step costs a few
list comparisons plus the small per-turn counters.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from operator import ne
from typing import Any

import numpy as np

from ..cards import COLOURS, NCARDS
from ..editions import Edition
from ..engine import PHASES, PlayerView
from ..engine.phases import OVER
from .actions import TUNNEL_REVEAL, max_offered_tickets
from .seatview import SeatView

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
        self.kind_pos = [self.kinds.index(k) if k in self.kinds else -1 for k in range(NCARDS)]
        nk = len(self.kinds)
        self.nroutes = nr = len(ed.routes)
        self.ncities = nc = ed.ncities
        self.ntickets = nt = len(ed.tickets)
        self.max_offered = mo = max_offered_tickets(r)
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
        field_high = {
            "score": score_max,
            "trains": r.trains,
            "cards": total_cards,
            "tickets": nt,
            "tickets_offered": mo,
            "stations_left": r.stations,
            "passengers_waiting": r.passengers,
            "passengers_placed": r.passengers,
            "passengers_done": r.passengers,
        }
        block(
            "public",
            [field_high[f] for _ in range(s) for f in self.public_fields],
            "per relative seat: score, trains, cards, tickets, tickets_offered (+ stations_left with stations; "
            "+ passengers_waiting, passengers_placed, passengers_done with passengers)",
        )
        block(
            "hand", [ed.deck[k] for k in self.kinds], "own cards per kind (the kinds the edition's deck has, in ttr.cards order)"
        )
        block(
            "piles",
            [total_cards]
            + [ed.deck[k] for k in self.kinds]
            + [sum(1 for t in ed.tickets if t.deck == d) for d in ed.ticket_decks],
            "deck size, discard pile per kind, size of each ticket deck (decks in name order)",
        )
        self.small_stop = pos  # everything above is rewritten every step
        self.deck_zeros = [0] * len(ed.ticket_decks)  # the default size of an absent ticket deck
        self.head_struct = struct.Struct(f"={pos}f")  # writes those entries as float32 straight into the buffer
        block("market", [1] * (r.market_size * nk), "per market slot: one-hot card kind (all 0 = empty slot)")
        block("routes", [1] * (nr * s), "per route: one-hot relative seat of its owner (all 0 = unclaimed)")
        block("tickets", [1] * (nt * 2), "per ticket of the edition: held by me, connected by my own routes")
        block("offered", [1] * (mo * nt), "per offered position j (the bit j of keep actions): one-hot ticket")
        if self.has_tunnels:
            block(
                "tunnel",
                [TUNNEL_REVEAL] + [1] * (len(COLOURS) + 1) + [TUNNEL_REVEAL] * nk + [max(x.length for x in ed.routes)] * nk,
                "tunnel being claimed: extra cards owed, colour they must be (8 colours + locomotives only), "
                "revealed cards per kind, cards already paid per kind",
            )
        if self.has_tunnels or self.passengers:
            block(
                "pending_route",
                [1] * nr,
                "one-hot: the tunnel being claimed, or the route just claimed (where a passenger may be placed)",
            )
        if self.has_stations:
            block("stations", [1] * (nc * s), "per city: one-hot relative seat of its station's owner")
        if self.passengers:
            block("passengers", [1] * (nc * s), "per city: one-hot relative seat of the passenger standing there")
            block(
                "my_passengers",
                [1] * (r.passengers * (nc + 2)),
                "per own passenger slot: one-hot city, then waiting (not placed), then done (moved)",
            )
            top = max((max(m) for m in ed.merchandise if m), default=0)
            block(
                "merchandise",
                [top] * (nc * self.merch_depth),
                "per city: merchandise token values left, top of the stack first (0 = none)",
            )
        self.size = pos
        self.widest = max(b.size for b in self.blocks.values())
        self.high = np.concatenate(highs)
        self.low = np.zeros(self.size, dtype=np.float32)
        # constant pieces of the per-step counters
        self.phase_rows = {ph: [1.0 if i == k else 0.0 for i in range(len(PHASES))] for k, ph in enumerate(PHASES)}
        self.seat_rows = [[1.0 if i == k else 0.0 for i in range(s)] for k in range(s + 1)]  # row s: nobody
        self.present_rows = [[1.0 if i < k else 0.0 for i in range(s)] for k in range(s + 1)]
        # top_rows[n][phase][seat to move, relative; s: nobody] = the phase, to_move and seats blocks together
        self.top_rows = [
            {ph: [row + self.seat_rows[r] + self.present_rows[n] for r in range(s + 1)] for ph, row in self.phase_rows.items()}
            for n in range(s + 1)
        ]
        self.public_pad = [[0.0] * (len(self.public_fields) * (s - k)) for k in range(s + 1)]
        contiguous = self.kinds == list(range(self.kinds[0], self.kinds[-1] + 1))
        self.kinds_slice = slice(self.kinds[0], self.kinds[-1] + 1) if contiguous else None
        # seat_of[me][n][player] = relative seat of `player` seen by `me` in an n-player game
        self.seat_of = [[[(p - me) % n for p in range(n)] if n else [] for n in range(s + 1)] for me in range(s)]
        # the cities at the ends of each route, and each ticket's ends: (city, city), or (nodes, nodes) where an
        # end has several nodes (a country)
        self.route_ends = [(x.a, x.b) for x in ed.routes]
        self.route_lengths = [x.length for x in ed.routes]
        self.ticket_ends: list[tuple[int, int] | tuple[tuple[int, ...], tuple[int, ...]]] = [
            (t.a_nodes[0], t.b_nodes[0]) if len(t.a_nodes) == 1 and len(t.b_nodes) == 1 else (t.a_nodes, t.b_nodes)
            for t in ed.tickets
        ]
        self.city_tickets: list[list[int]] = [[] for _ in range(nc)]  # the tickets with an end at each node
        for i, t in enumerate(ed.tickets):
            for c in {*t.a_nodes, *t.b_nodes}:
                self.city_tickets[c].append(i)
        # seat_order[me][n] = the players of an n-player game in relative seat order seen by `me`
        self.seat_order = [[[(me + r) % n for r in range(n)] if n else [] for n in range(s + 1)] for me in range(s)]


class RouteLog:
    """The route owner changes of one game, found once for the encoders of all its seats.

    Every seat's encoder would otherwise diff the route owners against its own copy, and between two
    observations of a seat several claims usually happened. An environment that observes the game after
    every step gives its encoders one log (``encoder.route_log``), and each encoder rewrites the rows
    changed since it last read the log. An encoder uses the log only while its view's route owners are
    this very list (``owners``), and falls back to its own diff otherwise.

    Finding the changes (``sync``, by the first encoder to look after a step) reads no list in the usual
    case. Given the players' live ``trains`` list: the engine changes a route's owner only when a claim is
    completed, which also takes the route's length (at least 1) from its claimer's trains, and trains
    change nowhere else; so an unchanged sum of trains means no route changed owner. When the sum fell,
    the route named by ``hint`` (set by the env to the route of the claim or tunnel payment it applied)
    or by the view's ``last_claimed`` is tried: if it changed owner and its length is the whole fall,
    it is the only change. Otherwise (or without ``trains``) the owner lists are diffed element-wise."""

    __slots__ = ("changes", "copy", "hint", "lengths", "owners", "total", "trains")

    def __init__(self, owners: list[int], trains: list[int] | None = None, lengths: list[int] | None = None) -> None:
        self.owners = owners  # the game's live list
        self.copy = owners[:]  # as of the last sync
        self.changes: list[int] = []  # route indices, in order of change (an encoder's first look reads every row)
        self.trains = trains if lengths is not None else None  # the game's live list (both or neither)
        self.lengths = lengths  # each route's length
        self.total = sum(trains) if trains is not None else -1  # trains left, all players, at the last sync
        self.hint = -1  # a route that may just have been claimed (set by the environment)

    def sync(self, claimed: int) -> None:
        owners = self.owners
        copy = self.copy
        trains = self.trains
        if trains is not None:
            total = sum(trains)
            drop = self.total - total
            if not drop:  # no claim was completed since the last sync
                return
            self.total = total
            lengths = self.lengths
            assert lengths is not None
            for r in (self.hint, claimed):
                if 0 <= r < len(copy) and copy[r] != owners[r] and lengths[r] == drop:
                    copy[r] = owners[r]
                    self.changes.append(r)
                    self.hint = -1
                    return
            self.hint = -1
        elif owners == copy:
            return
        elif 0 <= claimed < len(copy) and copy[claimed] != owners[claimed]:
            was = copy[claimed]
            copy[claimed] = owners[claimed]
            if copy == owners:
                self.changes.append(claimed)
                return
            copy[claimed] = was
        found = _true_positions(list(map(ne, owners, copy)))
        for i in found:
            copy[i] = owners[i]
        self.changes += found


class ObservationEncoder:
    """Encodes the views of one player (one relative frame). Keep one per seat and reuse it."""

    def __init__(self, layout: ObservationLayout, me: int) -> None:
        self.layout = layout
        self.me = me
        self.buf = np.zeros(layout.size, dtype=np.float32)
        # item and slice writes through a memoryview of the buffer cost about half of numpy's indexing
        self._mv: Any = self.buf.data  # a memoryview of float32 items (Any: typeshed's memoryview takes ints only)
        self._zeros: Any = np.zeros(layout.widest, dtype=np.float32).data
        self._last: dict[str, Any] = {}
        # set by an environment that observes every seat of one game: the claims found once for all seats
        self.route_log: RouteLog | None = None
        self._routes_start = layout.blocks["routes"].start
        self.reset()

    def reset(self) -> None:
        self.buf[:] = 0
        self._last.clear()
        nc = self.layout.ncities
        # my own routes' network as components: a label per city and the cities of each label
        self._comp = list(range(nc))
        self._members: list[list[int]] = [[c] for c in range(nc)]
        self._mine: set[int] = set()
        self._touched: set[int] = set()  # cities relabeled by a merge since the tickets were last checked
        self._recheck = False  # the network was rebuilt: a connected ticket may no longer be
        self._held: list[int] = []  # my tickets as the "tickets" block shows them
        self._tstat = [0] * self.layout.ntickets  # per ticket as written: 0 not held, 1 held, 2 connected
        self._log_pos = -1  # how much of route_log the "routes" block shows (-1: none yet)

    def encode(self, view: PlayerView | SeatView, scale: np.ndarray | None = None) -> np.ndarray:
        """A new float32 array for this view: a ``PlayerView``, or a ``SeatView`` (the game read live, which
        the environments use: no copy of the position per step), multiplied by `scale` if given. The
        encoder's buffer is reused internally, never returned; whatever it keeps between calls it copies,
        so live lists are fine."""
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
        # --- small counters, rewritten every step (one list, one conversion)
        phase = view.phase
        final = view.final_turns
        head = lay.top_rows[n][phase][(view.current - me) % n if phase != OVER else s] + [
            1.0 if final >= 0 else 0.0,
            final if final >= 0 else 0,
            view.pass_streak,
        ]
        stations = lay.has_stations
        npass = lay.passengers
        scores = view.scores
        trains = view.trains
        cards = view.hand_sizes
        held = view.ticket_counts
        drawn = view.offered_counts
        if stations:
            left = view.stations_left
        if npass:
            passengers = view.passengers
        for p in lay.seat_order[me][n]:
            head += (scores[p], trains[p], cards[p], held[p], drawn[p])
            if stations:
                head.append(left[p])
            if npass:
                ps = passengers[p]
                waiting = ps.count(-1)
                done = ps.count(-2)
                head += (waiting, npass - waiting - done, done)
        head += lay.public_pad[n]
        kinds = lay.kinds_slice
        hand = view.hand
        discard = view.discard
        if kinds is not None:
            head += hand[kinds]  # type: ignore[index]
            head.append(view.deck_size)
            head += discard[kinds]
        else:
            head += [hand[k] for k in lay.kinds]  # type: ignore[index]
            head.append(view.deck_size)
            head += [discard[k] for k in lay.kinds]
        head += map(view.ticket_deck_sizes.get, ed.ticket_decks, lay.deck_zeros)
        lay.head_struct.pack_into(self._mv, 0, *head)  # one C call converts and writes them all
        # --- blocks rewritten only where their source changed (what is kept is a copy: views may be live)
        market = view.market
        prev = last.get("market")
        if market != prev:
            if prev is None or len(prev) != len(market):
                self._one_hot_rows("market", market, len(lay.kinds), lay.kind_pos)
            else:  # one or two slots change per draw: compare the few slots inline
                last["market"] = market[:]
                nk = len(lay.kinds)
                start = blocks["market"].start
                pos = lay.kind_pos
                mv = self._mv
                zeros = self._zeros[:nk]
                for slot, c in enumerate(market):
                    if c != prev[slot]:
                        at = start + slot * nk
                        mv[at : at + nk] = zeros
                        if c >= 0:
                            mv[at + pos[c]] = 1.0
        owners = view.route_owner
        log = self.route_log
        if log is not None and log.owners is owners:  # the env's shared log of this game's claims
            # (nothing to do, without a call, when no claim was completed and the log has nothing unread)
            if log.trains is None or log.total != sum(log.trains) or self._log_pos != len(log.changes):
                self._routes_from_log(log, view.last_claimed, lay.seat_of[me][n])
        else:
            self._log_pos = -1
            prev = last.get("routes")
            if owners != prev:
                claimed = view.last_claimed
                if prev is not None and len(prev) == len(owners) and claimed >= 0 and prev[claimed] != owners[claimed]:
                    # (Märklin) the route just claimed may be the only change: check that by comparing the lists again
                    was = prev[claimed]
                    prev[claimed] = owners[claimed]
                    if prev == owners:
                        self._route_row(claimed, owners[claimed], s, lay.seat_of[me][n])
                        self._network(owners, [claimed])
                        prev = owners
                    else:
                        prev[claimed] = was
                if prev is not owners:
                    self._network(owners, self._one_hot_rows("routes", owners, s, lay.seat_of[me][n]))
        tickets = view.tickets
        if self._touched or self._recheck or tickets != self._held:  # connectivity: my claims, my tickets
            self._ticket_rows(tickets)
        offered = view.offered
        if offered != last.get("offered"):
            last["offered"] = offered[:]
            b = blocks["offered"]
            buf[b.start : b.stop] = 0.0
            for j, t in enumerate(offered):
                buf[b.start + j * lay.ntickets + t] = 1.0
        if lay.has_tunnels:
            tunnel = view.tunnel
            if tunnel != last.get("tunnel", _NEVER):
                last["tunnel"] = tunnel if tunnel is None else (*tunnel[:2], tunnel[2][:], *tunnel[3:])
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
                buf[b.start : b.stop] = row
        if "pending_route" in blocks:
            tunnel = view.tunnel
            pending = tunnel[0] if tunnel is not None else view.last_claimed
            if pending != last.get("pending", _NEVER):
                self._one_hot_rows("pending_route", [pending], lay.nroutes, None)
                last["pending"] = pending
        if stations:
            so = view.station_owner
            if so != last.get("stations"):
                self._one_hot_rows("stations", so, s, lay.seat_of[me][n])
        if npass:
            if passengers != last.get("passenger_lists"):
                last["passenger_lists"] = [p[:] for p in passengers]
                standing = [-1] * lay.ncities
                for p in range(n):
                    for c in passengers[p]:
                        if c >= 0:
                            standing[c] = p
                self._one_hot_rows("passengers", standing, s, lay.seat_of[me][n])
                here = lay.ncities
                self._one_hot_rows("my_passengers", [c if c >= 0 else here - 1 - c for c in passengers[me]], here + 2, None)
            merch = view.merch
            prev = last.get("merch")
            if merch != prev:
                if prev is None or len(prev) != len(merch):
                    prev = last["merch"] = [None] * len(merch)
                    cities: Any = range(len(merch))
                else:  # a passenger's trip takes the tokens of a few cities
                    cities = _true_positions(list(map(ne, merch, prev)))
                start = blocks["merchandise"].start
                depth = lay.merch_depth
                mv = self._mv
                zeros = self._zeros[:depth]
                for c in cities:
                    stack = merch[c]
                    prev[c] = stack[:]
                    row = start + c * depth
                    mv[row : row + depth] = zeros
                    for i, v in enumerate(reversed(stack)):  # the engine keeps the top at the end
                        mv[row + i] = v
        return buf.copy() if scale is None else buf * scale

    def _one_hot_rows(self, name: str, values: list[int], width: int, column: list[int] | None) -> list[int] | None:
        """Block `name` holds one row of `width` per item: a 1 in column ``column[value]`` (or ``value``
        itself when `column` is None), nothing for a negative value. Rewrites only the rows whose value
        changed since the last call and returns their indices (None: everything was rewritten)."""
        last = self._last
        prev = last.get(name)
        if values == prev:
            return []
        last[name] = values[:]
        buf = self.buf
        start = self.layout.blocks[name].start
        changed: list[int] | None
        if prev is None or len(prev) != len(values):
            buf[start : start + len(values) * width] = 0.0
            rows: Any = (i for i, v in enumerate(values) if v >= 0)
            changed = None
        else:
            rows = changed = _true_positions(list(map(ne, values, prev)))
        mv = self._mv
        zeros = self._zeros[:width]
        for i in rows:
            row = start + i * width
            mv[row : row + width] = zeros
            v = values[i]
            if v >= 0:
                mv[row + (v if column is None else column[v])] = 1.0
        return changed

    def _routes_from_log(self, log: RouteLog, claimed: int, column: list[int]) -> None:
        """The "routes" block from the changes the shared log recorded since this encoder last read it."""
        log.sync(claimed)
        owners = log.owners
        pos = self._log_pos
        if pos < 0:  # first use (or back from the other path): every row, then follow the log from here
            self._last.pop("routes", None)
            self._network(owners, self._one_hot_rows("routes", owners, self.layout.seats, column))
            self._last.pop("routes", None)  # the per-encoder copy is not kept up to date on this path
        else:
            changes = log.changes
            if len(changes) == pos:
                return
            new = [changes[pos]] if len(changes) == pos + 1 else list(dict.fromkeys(changes[pos:]))
            width = self.layout.seats
            for i in new:
                self._route_row(i, owners[i], width, column)
            self._network(owners, new)
        self._log_pos = len(log.changes)

    def _route_row(self, i: int, owner: int, width: int, column: list[int]) -> None:
        """Route i's row of the "routes" block for its new owner (the stored copy is already up to date)."""
        row = self._routes_start + i * width
        mv = self._mv
        mv[row : row + width] = self._zeros[:width]
        if owner >= 0:
            mv[row + column[owner]] = 1.0

    def _ticket_rows(self, tickets: list[int]) -> None:
        """The (held, connected) rows of the tickets whose status changed: newly held tickets, and held ones
        that a city relabeled by a merge of my network's components may have connected (a connected ticket
        stays connected while my network only grows; a rebuilt network rechecks them all)."""
        stat = self._tstat
        mv = self._mv
        start = self.layout.blocks["tickets"].start
        check: Any = ()
        if tickets != self._held:
            old = set(self._held)
            now = set(tickets)
            for t in old - now:  # no longer held (the engine never takes a kept ticket back)
                stat[t] = 0
                mv[start + 2 * t : start + 2 * t + 2] = self._zeros[:2]
            check = now - old
            self._held = tickets[:]
        if self._recheck:
            check = tickets
        elif self._touched:
            city_tickets = self.layout.city_tickets
            check = {*check, *(t for c in self._touched for t in city_tickets[c] if stat[t] == 1)}
        comp = self._comp
        ends = self.layout.ticket_ends
        for t in check:
            a, b = ends[t]
            if type(a) is int:
                new = 2 if comp[a] == comp[b] else 1
            else:
                labels = {comp[c] for c in b}
                new = 2 if any(comp[c] in labels for c in a) else 1
            if new != stat[t]:
                stat[t] = new
                mv[start + 2 * t] = 1.0
                mv[start + 2 * t + 1] = 1.0 if new == 2 else 0.0
        self._touched.clear()
        self._recheck = False

    def _network(self, owners: list[int], changed: list[int] | None) -> None:
        """Keep the components of my own routes up to date (routes are only ever added during a game;
        anything else rebuilds them). Joining two components relabels the smaller one, whose cities are
        noted for the tickets' check."""
        me = self.me
        mine = self._mine
        comp = self._comp
        members = self._members
        if changed is None or (not mine.isdisjoint(changed) and any(i in mine and owners[i] != me for i in changed)):
            comp[:] = range(len(comp))
            members[:] = [[c] for c in range(len(comp))]
            mine.clear()
            self._recheck = True
            changed = [i for i, o in enumerate(owners) if o == me]
        route_ends = self.layout.route_ends
        touched = self._touched
        for i in changed:
            if owners[i] == me and i not in mine:
                mine.add(i)
                a, b = route_ends[i]
                la, lb = comp[a], comp[b]
                if la != lb:
                    big, small = members[la], members[lb]
                    if len(big) < len(small):
                        big, small = small, big
                    label = comp[big[0]]
                    for c in small:
                        comp[c] = label
                    touched.update(small)
                    big += small
                    small.clear()


def _true_positions(flags: list[bool]) -> list[int]:
    """Indices of the True entries (few, in a long list: found with list.index, which runs in C)."""
    out = []
    i = -1
    index = flags.index
    for _ in range(flags.count(True)):
        i = index(True, i + 1)
        out.append(i)
    return out


_NEVER: list[int] = [-99]  # a value no view field ever equals: forces the first encoding
_PHASE = {ph: i for i, ph in enumerate(PHASES)}
