"""Crafted engine positions for the dialog tests: a seeded game brought to seat 0's turn, then the
position edited the way a tester sets up a table (cards moved between the deck and a hand, the deck's
top cards chosen) and rebuilt with ``Game.from_dict``, which checks the card census. Everything the page
is then served — the view and the legal actions — is computed by the engine from that position."""

from __future__ import annotations

from functools import cache
from typing import Any

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
        self.page.wait_for_function("!document.querySelector('.game-page.busy')")
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
    """A point on the middle space of a route, in the window (scrolled into view first)."""
    box = page.evaluate(
        """(id) => {
        const g = document.querySelector(`g.route[data-route="${id}"]`);
        const spaces = g.querySelectorAll('.space-fill');
        const s = spaces[Math.floor(spaces.length / 2)];
        const r = s.getBoundingClientRect();
        if (r.top < 60 || r.bottom > innerHeight - 10) { window.scrollBy(0, r.top - innerHeight / 3); }
        const q = s.getBoundingClientRect();
        return [q.left + q.width / 2, q.top + q.height / 2];
    }""",
        route,
    )
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
