"""Crafted engine positions for the dialog tests: a seeded game brought to seat 0's turn, then the
position edited the way a tester sets up a table (cards moved between the deck and a hand, the deck's
top cards chosen) and rebuilt with ``Game.from_dict``, which checks the card census. Everything the page
is then served — the view and the legal actions — is computed by the engine from that position."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest
from browser_helpers import FakeGame, Server, engine_state, fake_summary, play_until, wait_ready

from ttr.engine import Game


@cache
def _my_turn(edition: str, players: int, seed: int) -> Game:
    game = play_until(edition, players, seed, lambda g, legal: g.phase == "turn" and g.current == 0)
    assert game is not None
    return game


def my_turn_position(edition: str, players: int = 2, seed: int = 1) -> Game:
    """The first moment seat 0 starts a normal turn (setup done)."""
    return _my_turn(edition, players, seed).clone()


@cache
def _setup(edition: str, players: int, seed: int) -> Game:
    def offered(g: Any, legal: list[Any]) -> bool:
        return g.phase == "setup" and g.current == 0 and any(a.type == "keep_tickets" for a in legal)

    game = play_until(edition, players, seed, offered, prefer=lambda g, a: a.type == "draw_tickets")
    assert game is not None
    return game


def setup_position(edition: str, players: int = 2, seed: int = 1) -> Game:
    """Seat 0 choosing its initial tickets (after naming a mix on Märklin)."""
    return _setup(edition, players, seed).clone()


def with_hand(game: Game, seat: int, hand: dict[str, int]) -> Game:
    """The same position with seat's hand replaced by `hand` (cards come from and go back to the deck)."""
    d = game.to_dict()
    deck: list[str] = d["deck"]
    for kind, n in d["hands"][seat].items():
        deck[:0] = [kind] * n  # back under the deck
    for kind, n in hand.items():
        for _ in range(n):
            if kind in deck:
                deck.remove(kind)
            elif kind in d["discard"]:
                d["discard"].remove(kind)
            else:
                raise AssertionError(f"not enough {kind} cards outside the hands for {hand}")
    d["hands"][seat] = {k: n for k, n in hand.items() if n}
    return Game.from_dict(d)


def with_deck_top(game: Game, cards: list[str]) -> Game:
    """The same position with `cards` on top of the deck (cards[0] drawn first)."""
    d = game.to_dict()
    deck: list[str] = d["deck"]
    for kind in cards:
        deck.remove(kind)
    deck.extend(reversed(cards))
    return Game.from_dict(d)


class Table:
    """One browser page at one viewport size, reused across tests: positions are served to it one after
    another under one fake game id. A position of the edition already on screen arrives as a server update
    would (GameClient.onUpdate with the new state, its seq always higher), so the map is not laid out
    again; another edition reloads the page. Collects console errors; `check()` asserts there were none."""

    def __init__(self, browser: Any, server: Server, width: int, height: int, touch: bool = False, locale: str = "en-US") -> None:
        self.server = server
        self.size = (width, height)
        touch = touch or width < 600  # a phone-sized window is a phone: touch events, no hover (as a real one)
        self.touch = touch
        self.context = browser.new_context(
            viewport={"width": width, "height": height}, locale=locale, has_touch=touch, is_mobile=touch
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(20000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("console", self._console)
        self.fake: FakeGame | None = None
        self.game: Game | None = None
        self.edition: str | None = None
        self.seq = 0

    def _console(self, m: Any) -> None:
        if m.type == "error" and "Failed to load resource" not in m.text:
            self.errors.append(f"console: {m.text}")

    def show(self, game: Game, seat: int = 0, reload: bool = False) -> Any:
        """Serve `game` as seen by `seat`: a fresh position (no dialog the player had opened stays open)."""
        summary = fake_summary("crafted", game.base_edition.id, game.n, over=game.is_over)
        state = engine_state(game, seat, summary)
        self.seq = max(self.seq + 1, state["seq"])
        state["seq"] = summary["seq"] = self.seq
        if self.fake is None:
            self.fake = FakeGame(self.page, "crafted", state)
        else:
            self.fake.state = state
            self.fake.posted.clear()
        self.game = game
        if reload or self.edition != game.base_edition.id:
            self.page.goto(f"{self.server.base}/play/crafted?token=fake-token")
            wait_ready(self.page)
            self.page.wait_for_selector("g.route")
            self.edition = game.base_edition.id
        else:
            fresh = "(s) => { const g = window.ttrGame; g.sheet = null; g.busy = false; return g.onUpdate({ state: s }); }"
            self.page.evaluate(fresh, state)
        return self.page

    def posted(self) -> list[dict[str, Any]]:
        self.page.wait_for_function("() => !document.querySelector('.game-page.busy')")
        self.page.wait_for_timeout(50)
        assert self.fake is not None
        return [p["action"] for p in self.fake.posted]

    def check(self) -> None:
        errors, self.errors[:] = self.errors[:], []
        assert errors == []

    def close(self) -> None:
        self.context.close()


# Geometry measured in the page. Each target: a CSS selector; the answer gives, per element it matches, its
# box, the area (px²) it shares with the open dialog, and the area of it outside the visible part of the
# board (the board's box, cut by the window and by the sticky top bar).
MEASURE_JS = """(selectors) => {
  const area = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
    * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const sheetEl = document.querySelector('#sheet');
  const sheet = sheetEl && !sheetEl.hidden ? sheetEl.getBoundingClientRect() : null;
  const board = document.querySelector('.board-host').getBoundingClientRect();
  const bar = document.querySelector('.topbar').getBoundingClientRect();
  const seen = { left: Math.max(0, board.left), right: Math.min(innerWidth, board.right),
                 top: Math.max(0, board.top, bar.bottom), bottom: Math.min(innerHeight, board.bottom) };
  const out = [];
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      const own = r.width * r.height;
      out.push({ sel, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                 overlap: sheet ? area(r, sheet) : 0, outside: own - area(r, seen) });
    }
  }
  return { sheet: sheet && { left: sheet.left, top: sheet.top, right: sheet.right, bottom: sheet.bottom }, targets: out };
}"""


def measure(page: Any, selectors: list[str]) -> dict[str, Any]:
    return page.evaluate(MEASURE_JS, selectors)


def route_point(page: Any, route: str) -> tuple[float, float]:
    """A point of the window where a click lands on this route (a space not under another lane's edge),
    scrolled into view first."""
    box = page.evaluate(
        """(id) => {
        const g = document.querySelector(`g.route[data-route="${id}"]`);
        const spaces = [...g.querySelectorAll('.space-fill')];
        const mid = spaces[Math.floor(spaces.length / 2)].getBoundingClientRect();
        if (mid.top < 60 || mid.bottom > innerHeight - 10) window.scrollBy(0, mid.top - innerHeight / 3);
        spaces.sort((a, b) => Math.abs(spaces.indexOf(a) - spaces.length / 2) - Math.abs(spaces.indexOf(b) - spaces.length / 2));
        for (const s of spaces) {
          const q = s.getBoundingClientRect();
          for (const [fx, fy] of [[0.5, 0.5], [0.3, 0.5], [0.7, 0.5], [0.5, 0.3], [0.5, 0.7]]) {
            const x = q.left + q.width * fx, y = q.top + q.height * fy;
            const hit = document.elementFromPoint(x, y);
            if (hit && hit.closest('g.route') === g) return [x, y];
          }
        }
        return null;
    }""",
        route,
    )
    assert box is not None, f"no point of {route} can be clicked"
    return box[0], box[1]


def city_point(page: Any, city: str) -> tuple[float, float]:
    box = page.evaluate(
        """(id) => {
        const r = document.querySelector(`g.city[data-city="${id}"] .city-dot`).getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
    }""",
        city,
    )
    return box[0], box[1]


def with_tickets(game: Game, seat: int, tickets: list[str]) -> Game:
    """The same position with seat holding exactly `tickets` (others go back under their decks)."""
    d = game.to_dict()
    ed = game.edition
    for tid in d["tickets"][seat]:
        d["ticket_decks"].setdefault(ed.tickets[ed.ticket_index[tid]].deck, []).insert(0, tid)
    for tid in tickets:
        for pile in d["ticket_decks"].values():
            if tid in pile:
                pile.remove(tid)
    d["tickets"][seat] = list(tickets)
    return Game.from_dict(d)


def reach_all_payments_js() -> str:
    """In the page: for every claim (by route), tunnel payment and station of the current legal actions, the
    payments the chooser's colour buttons and steppers can reach, compared with the server's list."""
    return """async () => {
      const P = await import('/static/js/payment.js');
      const g = window.ttrGame;
      const S = await import('/static/js/sheets.js');
      const lists = [];
      for (const [route, options] of g.legal.claims) lists.push([route, options, g.map.routes.find(r => r.id === route)]);
      for (const [city, options] of g.legal.stations) lists.push([`station ${city}`, options, null]);
      if (g.legal.tunnelPay.length) lists.push(['tunnel', g.legal.tunnelPay, null]);
      const missing = [];
      let biggest = 0;
      for (const [what, options, route] of lists) {
        const model = P.chooserModel(options, S.payContext(g, route));
        const seen = new Set();
        for (const grp of model.groups) {
          const todo = [grp.items[0]];  // a colour button leads to the group's first payment
          const done = new Set(todo);
          while (todo.length) {
            const at = todo.pop();
            seen.add(at);
            for (const axis of grp.axes) for (const dir of [1, -1]) {
              const next = P.stepTo(model, grp, at, axis, dir);
              if (next >= 0 && !done.has(next)) { done.add(next); todo.push(next); }
            }
            if (grp.list) grp.items.forEach((i) => seen.add(i));
          }
        }
        biggest = Math.max(biggest, options.length);
        if (seen.size !== options.length) missing.push([what, options.length, seen.size]);
      }
      return { lists: lists.length, biggest, missing };
    }"""


SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


def table_fixture(sizes: dict[str, tuple[int, int]] = SIZES, *, touch: bool = False) -> Callable[..., Iterator[Table]]:
    """A module-scoped fixture: one Table (page) per screen size in `sizes`, reused by the module's tests."""

    @pytest.fixture(scope="module", params=list(sizes))
    def table(request: Any, browser: Any, server: Server) -> Iterator[Table]:
        w, h = sizes[request.param]
        tb = Table(browser, server, w, h, touch=touch)
        tb.name = request.param  # type: ignore[attr-defined]
        yield tb
        tb.close()

    return table
