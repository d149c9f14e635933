"""Pictures of the board for the ``rgb_array`` and ``human`` render modes (Pillow; a Tk window).

The map is drawn from the edition's city coordinates (latitude/longitude, an equirectangular
projection scaled by the cosine of the map's middle latitude): routes as lines (thin in their
colour while unclaimed, thick in the owner's colour once claimed; parallel lanes side by side),
cities as dots (a ring for a station), and below the map the market, the deck and every player's
score, trains, cards and tickets. Only public information is drawn (no hand, no ticket).
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

import numpy as np

from ..cards import CARD_NAMES, COLOURS
from ..editions import Edition, per_edition
from ..engine import Game

WIDTH = 800
MAP_HEIGHT = 520
PANEL_HEIGHT = 120
MARGIN = 24

PLAYER_RGB = [(200, 30, 30), (30, 80, 200), (20, 150, 60), (230, 190, 0), (40, 40, 40)]
CARD_RGB = {
    "red": (210, 40, 40),
    "orange": (240, 140, 20),
    "yellow": (240, 220, 40),
    "green": (60, 170, 60),
    "blue": (50, 100, 220),
    "purple": (150, 60, 170),
    "white": (245, 245, 245),
    "black": (30, 30, 30),
    "locomotive": (180, 180, 180),
    "locomotive_plus4": (120, 120, 120),
    "passenger": (100, 200, 220),
}
GRAY_ROUTE = (150, 150, 150)
BACKGROUND = (236, 228, 210)


class RenderError(RuntimeError):
    """A render mode that cannot work here (e.g. ``human`` without a display)."""


def has_display() -> bool:
    """Whether a window can be opened: always on macOS/Windows, on Linux/BSD when DISPLAY or WAYLAND_DISPLAY is set."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def available_render_modes() -> list[str]:
    """The render modes that work here: ``ansi`` and ``rgb_array`` always, ``human`` where a display exists."""
    return ["ansi", "rgb_array", *(["human"] if has_display() else [])]


def check_human_possible() -> None:
    if not has_display():
        raise RenderError(
            'render_mode="human" needs a display (neither DISPLAY nor WAYLAND_DISPLAY is set); '
            'use render_mode="rgb_array" for frames (e.g. video recording) or "ansi" for text'
        )
    try:
        import tkinter  # noqa: F401

        from PIL import ImageTk  # noqa: F401
    except ImportError as exc:  # pragma: no cover - a Python built without Tk
        raise RenderError(f'render_mode="human" needs Tkinter and Pillow\'s ImageTk: {exc}') from exc


class MapGeometry:
    """Pixel positions of the cities and route segments of one edition (computed once)."""

    def __init__(self, edition: Edition) -> None:
        lat, lon = edition.lat, edition.lon
        mid = math.radians((min(lat) + max(lat)) / 2)
        xs = [x * math.cos(mid) for x in lon]
        ys = [-y for y in lat]
        w = max(xs) - min(xs) or 1.0
        h = max(ys) - min(ys) or 1.0
        scale = min((WIDTH - 2 * MARGIN) / w, (MAP_HEIGHT - 2 * MARGIN) / h)
        ox = (WIDTH - scale * w) / 2 - scale * min(xs)
        oy = (MAP_HEIGHT - scale * h) / 2 - scale * min(ys)
        self.city = [(ox + scale * x, oy + scale * y) for x, y in zip(xs, ys, strict=True)]
        lanes: dict[int, list[int]] = {}
        for r in edition.routes:
            if r.group >= 0:
                lanes.setdefault(r.group, []).append(r.index)
        self.segment: list[tuple[float, float, float, float]] = []
        for r in edition.routes:
            (x1, y1), (x2, y2) = self.city[r.a], self.city[r.b]
            offset = 0.0
            if r.group >= 0:
                members = lanes[r.group]
                offset = (members.index(r.index) - (len(members) - 1) / 2) * 5.0
            dx, dy = x2 - x1, y2 - y1
            norm = math.hypot(dx, dy) or 1.0
            nx, ny = -dy / norm * offset, dx / norm * offset
            self.segment.append((x1 + nx, y1 + ny, x2 + nx, y2 + ny))


@per_edition
def geometry_for(edition: Edition) -> MapGeometry:
    return MapGeometry(edition)


def render_rgb(game: Game) -> np.ndarray:
    """An (H, W, 3) uint8 picture of the current position (public information only)."""
    from PIL import Image, ImageDraw

    ed = game.edition
    geo = geometry_for(ed)
    view = game.view(None)
    img = Image.new("RGB", (WIDTH, MAP_HEIGHT + PANEL_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for r in ed.routes:
        owner = view.route_owner[r.index]
        seg = geo.segment[r.index]
        if owner >= 0:
            draw.line(seg, fill=PLAYER_RGB[owner % len(PLAYER_RGB)], width=5)
        else:
            colour = CARD_RGB[COLOURS[r.colour]] if r.colour >= 0 else GRAY_ROUTE
            draw.line(seg, fill=colour, width=2)
    for c, (x, y) in enumerate(geo.city):
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(60, 40, 30))
        station = view.station_owner[c] if c < len(view.station_owner) else -1
        if station >= 0:
            draw.ellipse((x - 7, y - 7, x + 7, y + 7), outline=PLAYER_RGB[station % len(PLAYER_RGB)], width=3)
    # --- panel: market and deck, then one column per player
    top = MAP_HEIGHT
    draw.rectangle((0, top, WIDTH, top + PANEL_HEIGHT), fill=(250, 248, 240))
    draw.text((8, top + 6), f"{ed.name}  turn {game.turn}  {game.phase}", fill=(0, 0, 0))
    for slot, card in enumerate(view.market):
        x = 8 + slot * 34
        box = (x, top + 24, x + 28, top + 64)
        if card >= 0:
            draw.rectangle(box, fill=CARD_RGB[CARD_NAMES[card]], outline=(0, 0, 0))
        else:
            draw.rectangle(box, outline=(160, 160, 160))
    draw.text((8, top + 72), f"deck {view.deck_size}  discard {view.discard_size}", fill=(0, 0, 0))
    col = 8 + max(len(view.market), 5) * 34 + 16
    width = (WIDTH - col) // max(game.n, 1)
    for p in range(game.n):
        x = col + p * width
        rgb = PLAYER_RGB[p % len(PLAYER_RGB)]
        draw.rectangle((x, top + 24, x + 12, top + 36), fill=rgb)
        mark = " <" if p == view.current and game.phase != "over" else ""
        draw.text((x + 16, top + 24), f"P{p}{mark}", fill=(0, 0, 0))
        draw.text((x, top + 42), f"score {view.scores[p]}", fill=(0, 0, 0))
        draw.text((x, top + 56), f"trains {view.trains[p]}", fill=(0, 0, 0))
        draw.text((x, top + 70), f"cards {view.hand_sizes[p]}", fill=(0, 0, 0))
        draw.text((x, top + 84), f"tickets {view.ticket_counts[p]}", fill=(0, 0, 0))
    return np.asarray(img, dtype=np.uint8)


class HumanWindow:
    """A Tk window showing the latest frame (``render_mode="human"``); Tkinter is in the standard library."""

    def __init__(self, title: str = "ttr") -> None:
        check_human_possible()
        self.title = title
        self._root: Any = None
        self._photo: Any = None

    def show(self, frame: np.ndarray) -> None:
        import tkinter

        from PIL import Image, ImageTk

        img = Image.fromarray(frame)
        if self._root is None:
            self._root = tkinter.Tk()
            self._root.title(self.title)
            self._photo = ImageTk.PhotoImage(img, master=self._root)
            self._label = tkinter.Label(self._root, image=self._photo, borderwidth=0, highlightthickness=0)
            self._label.pack()
        else:
            self._photo.paste(img)
        self._root.update()

    @property
    def is_open(self) -> bool:
        return self._root is not None

    def close(self) -> None:
        if self._root is not None:
            self._root.destroy()
            self._root = None


class Rendering:
    """``render()`` for the Gymnasium and PettingZoo envs alike: ``ansi`` text, ``rgb_array`` frames, a ``human``
    window (needs ``render_mode``, ``game`` and ``_window`` on the env)."""

    render_mode: str | None
    game: Game | None
    _window: HumanWindow | None

    def render(self) -> Any:
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "ansi":
            from .common import render_text

            return render_text(self.game)
        if self.render_mode == "rgb_array":
            return render_rgb(self.game)
        self._render_human()
        return None

    def _render_human(self) -> None:
        if self.render_mode == "human" and self.game is not None:
            if self._window is None:
                self._window = HumanWindow()
            self._window.show(render_rgb(self.game))
