"""Run-time side of the learned value network: numpy only (no torch).

The network maps one player's observation (``ttr.rl.observation``, built from a ``PlayerView`` or a
``SeatView``, divided by the layout's upper bounds) to that player's expected reward in [0, 1]: the
same blend of win share and score margin as the search's playouts (``ISMCTSBot.reward``). Weights are
an ``.npz`` of float32 arrays ``w0, b0, w1, b1, ...`` (a ReLU MLP with a sigmoid output) plus
``edition`` and ``obs_size``; the shipped ones live in ``ttr/learn/weights/<edition>.npz``.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..editions import Edition, per_edition
from ..engine import Game
from ..engine.view import PlayerView
from ..rl.observation import ObservationEncoder, ObservationLayout
from ..rl.seatview import SeatView

SMALL_BATCH = 64  # up to this many rows, evaluated row by row (see ValueNet.__call__)


@per_edition
def layout_for(edition: Edition) -> ObservationLayout:
    return ObservationLayout(edition)


@per_edition
def inverse_high(edition: Edition) -> np.ndarray:
    return (1.0 / np.maximum(layout_for(edition).high, 1.0)).astype(np.float32)


def features(view: PlayerView | SeatView, edition: Edition) -> np.ndarray:
    """The scaled observation of `view` (a fresh encoder: the encoders are incremental per seat)."""
    assert view.me is not None
    enc = ObservationEncoder(layout_for(edition), view.me)
    return enc.encode(view, inverse_high(edition))


def game_features(game: Game, me: int) -> np.ndarray:
    """The scaled observation of seat `me` in `game` (its view only, read live through ``SeatView``)."""
    return features(SeatView(game, me), game.edition)


class ValueNet:
    """A ReLU MLP evaluated with numpy; ``__call__`` takes a (n, obs) or (obs,) array."""

    def __init__(
        self, layers: list[tuple[np.ndarray, np.ndarray]], edition: str = "", meta: dict[str, Any] | None = None
    ) -> None:
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32)) for w, b in layers]
        self.edition = edition
        self.meta = meta or {}
        self.obs_size = self.layers[0][0].shape[0]
        self._wt = [(np.ascontiguousarray(w.T), b) for w, b in self.layers]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        if h.ndim == 1:
            return np.array(self._row(h), dtype=np.float32)
        if h.ndim == 2 and len(h) <= SMALL_BATCH:
            # one matrix-vector product per row: a small matrix product makes OpenBLAS wake its
            # threads, which on a busy machine costs ~30 ms a call instead of ~0.01 ms
            return np.array([self._row(r) for r in h], dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return (1.0 / (1.0 + np.exp(-h)))[..., 0]

    def _row(self, h: np.ndarray) -> float:
        last = len(self._wt) - 1
        for i, (wt, b) in enumerate(self._wt):
            h = wt @ h + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return 1.0 / (1.0 + math.exp(-float(h[0])))

    def value(self, game: Game, me: int) -> float:
        return float(self(game_features(game, me)))

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        with np.load(path) as data:
            n = sum(1 for k in data.files if k.startswith("w"))
            layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            edition = str(data["edition"]) if "edition" in data.files else ""
            meta = {k: data[k].tolist() for k in data.files if k.startswith("meta_")}
        return cls(layers, edition, meta)

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {"edition": np.array(self.edition)}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        for k, v in self.meta.items():
            arrays[k if k.startswith("meta_") else f"meta_{k}"] = np.array(v)
        np.savez_compressed(path, **arrays)


def shipped_path(edition_id: str) -> Path | None:
    """The packaged weights for an edition, or None if none are shipped."""
    p = resources.files("ttr.learn").joinpath("weights", f"{edition_id}.npz")
    return Path(str(p)) if p.is_file() else None


_CACHE: dict[str, ValueNet | None] = {}


def load_value_net(edition: Edition, weights: str | None = None) -> ValueNet | None:
    """The network for `edition`: the file `weights` if given, else the shipped one; None if there is
    none for this edition or its input size does not match the edition's observation."""
    key = f"{edition.id}|{weights or ''}"
    if key not in _CACHE:
        path = Path(weights) if weights else shipped_path(edition.id)
        net = ValueNet.load(path) if path is not None and path.is_file() else None
        if net is not None and net.obs_size != layout_for(edition).size:
            net = None
        _CACHE[key] = net
    return _CACHE[key]
