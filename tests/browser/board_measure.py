"""Measuring the board in the browser: colour distances (CIELAB ΔE, colour-vision-deficiency simulation), pages
kept open per viewport for a whole test module, and crafted game states served to them."""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from browser_helpers import FakeGame, Server, engine_state, fake_summary, wait_ready

DESKTOP = (1366, 768)
PHONE = (390, 844)

# Machado, Oliveira & Fernandes (2009), severity 1.0, applied in linear RGB.
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}

RGB = tuple[int, int, int]


def parse_colour(css: str) -> RGB:
    """'#rrggbb' or 'rgb(r, g, b)' (as getComputedStyle reports it)."""
    css = css.strip()
    if css.startswith("#"):
        return int(css[1:3], 16), int(css[3:5], 16), int(css[5:7], 16)
    parts = css[css.index("(") + 1 : css.index(")")].replace(",", " ").split()
    r, g, b = (round(float(x)) for x in parts[:3])
    return r, g, b


def _linear(rgb: RGB) -> list[float]:
    out = []
    for c in rgb:
        v = c / 255
        out.append(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)
    return out


def _lab_of_linear(lin: list[float]) -> tuple[float, float, float]:
    r, g, b = lin
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def lab(rgb: RGB, deficiency: str | None = None) -> tuple[float, float, float]:
    lin = _linear(rgb)
    if deficiency:
        m = CVD[deficiency]
        lin = [max(0.0, min(1.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]
    return _lab_of_linear(lin)


def delta_e(a: RGB, b: RGB, deficiency: str | None = None) -> float:
    """CIE76 ΔE: the Euclidean distance in CIELAB (D65), optionally as seen with a colour-vision deficiency."""
    return math.dist(lab(a, deficiency), lab(b, deficiency))


def dominant(pixels: list[RGB]) -> RGB:
    """The most frequent colour among sampled pixels (a flat fill wins over anti-aliased edges and small marks)."""
    return Counter(pixels).most_common(1)[0][0]


def screenshot_pixels(page: Any) -> Any:
    from PIL import Image

    return Image.open(io.BytesIO(page.screenshot())).convert("RGB")


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))]


# The board as drawn: panel, drawn box, labels (font size on screen, boxes, overlaps), what is under the zoom buttons.
MEASURE_BOARD = (Path(__file__).with_name("board_measure.js")).read_text()


@dataclass
class Pages:
    """One browser context (and page) per viewport size, kept for a whole test module, with their errors."""

    browser: Any
    contexts: dict[tuple[int, int], Any] = field(default_factory=dict)
    pages: dict[tuple[int, int], Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def get(self, size: tuple[int, int]) -> Any:
        if size not in self.pages:
            phone = size == PHONE
            ctx = self.browser.new_context(
                viewport={"width": size[0], "height": size[1]}, locale="en-US", has_touch=phone, is_mobile=phone
            )
            page = ctx.new_page()
            page.set_default_timeout(30000)
            page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
            page.on(
                "console",
                lambda m: (
                    self.errors.append(f"console: {m.text}")
                    if m.type == "error" and "Failed to load resource" not in m.text
                    else None
                ),
            )
            self.contexts[size] = ctx
            self.pages[size] = page
        return self.pages[size]

    def close(self) -> None:
        for ctx in self.contexts.values():
            ctx.close()


def module_pages(browser: Any) -> Iterator[Pages]:
    pages = Pages(browser)
    yield pages
    pages.close()
    assert pages.errors == []


def show_state(page: Any, server: Server, game_id: str, state: dict[str, Any]) -> FakeGame:
    """Serve `state` (a GET /state answer) as game `game_id` and open it; returns when the board is drawn."""
    fake = FakeGame(page, game_id, state)
    page.goto(f"{server.base}/play/{game_id}?token=fake-token")
    wait_ready(page)
    page.wait_for_selector("g.route")
    page.wait_for_timeout(150)  # the ResizeObserver's refit, if the panel took its shape late
    return fake


def crafted_state(game: Any, game_id: str, seat: int = 0) -> dict[str, Any]:
    summary = fake_summary(game_id, game.base_edition.id, game.n, over=game.is_over)
    return engine_state(game, seat, summary)
