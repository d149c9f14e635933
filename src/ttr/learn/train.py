"""``ttr train``: self-play data from a population of bots, then a value network fitted with PyTorch.

Stages, all under one output directory and all resumable:

1. **Games** (``data-<gen>-<chunk>.npz``): games between two bots drawn from the population (the
   gauntlet, `hard`, and from generation 1 on the network's own past snapshots as the `learned` bot).
   At a random subset of decisions (``sample`` per decision) every seat's observation is recorded
   from its own view only (``SeatView``), and labelled at the end with that seat's outcome
   (``outcome_value``: win share and score margin). A chunk already on disk is not replayed.
2. **Fitting** (``checkpoint.pt``): a ReLU MLP trained by Adam on the mean squared error, a tenth of
   the games held out (by game) for the validation loss; the checkpoint is written after every epoch
   (model, optimizer, epoch, log, RNG state) and a rerun continues from it.
3. **Export**: ``value-<edition>.npz`` (numpy weights, ``ttr.learn.value``), ``log.json`` (settings,
   timings, loss per epoch) and ``curve.png`` (the training curve; needs matplotlib).

PyTorch is imported only in the fitting stage (the ``rl-train`` extra).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bots import make_bot
from ..bots.ismcts import outcome_value
from ..engine import Game
from .value import ValueNet, game_features

POPULATION = (
    "planner",  # `hard` without its short searches (as when the shipped weights were trained; 15x cheaper)
    "racer",
    "medium",
    "easy",
    "destination_hungry",
    "long_route",
    "blocker",
    "hoarder",
)


@dataclass
class TrainConfig:
    out: str
    edition: str = "usa"
    players: int = 2
    games: int = 2000  # games per generation
    generations: int = 1  # generation g >= 1 adds the snapshot of generation g-1 to the population
    chunk: int = 100  # games per data file
    sample: float = 0.25  # chance that a decision is recorded (for every seat)
    epochs: int = 20
    batch: int = 256
    lr: float = 3e-4
    weight_decay: float = 0.1  # AdamW; with dropout, against memorising games (one label per game)
    dropout: float = 0.5
    hidden: tuple[int, ...] = (128, 64)
    seed: int = 1
    population: tuple[str, ...] = POPULATION
    snapshot_share: float = 0.5  # from generation 1: share of games with a past snapshot in one seat
    extra: dict[str, Any] = field(default_factory=dict)


def play_recorded(cfg: TrainConfig, bots: list[str], seed: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray, dict]:
    """One game; the recorded observations (float16) and their targets, plus a summary."""
    game = Game(cfg.edition, cfg.players, seed)
    players = [make_bot(b, seed=seed * 10 + i) for i, b in enumerate(bots)]
    listens = [b.wants_events for b in players]
    obs: list[np.ndarray] = []
    seats: list[int] = []
    while not game.is_over:
        if rng.random() < cfg.sample:
            for q in range(game.n):
                obs.append(game_features(game, q))
                seats.append(q)
        p = game.current
        action = players[p].act(game.view(p), game.legal_actions())
        events = game.apply(action)
        for q, b in enumerate(players):
            if listens[q]:
                for e in events:
                    b.observe(e.for_player(q))
    res = game.result()
    totals = [x["total"] for x in res["players"]]
    target = [outcome_value(totals, res["winners"], q) for q in range(game.n)]
    x = np.stack(obs).astype(np.float16) if obs else np.zeros((0, 0), np.float16)
    y = np.array([target[q] for q in seats], dtype=np.float32)
    return x, y, {"bots": bots, "totals": totals, "winners": res["winners"]}


def snapshot_path(out: Path, gen: int, edition: str) -> Path:
    return out / f"value-{edition}-gen{gen}.npz"


def generate(cfg: TrainConfig, gen: int, progress: Callable[[int], None] | None = None) -> list[Path]:
    """Stage 1 for generation `gen`: the data files (existing ones are kept, not replayed)."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    snapshot = snapshot_path(out, gen - 1, cfg.edition) if gen > 0 else None
    files = []
    nchunks = -(-cfg.games // cfg.chunk)
    for c in range(nchunks):
        path = out / f"data-{gen}-{c:04d}.npz"
        files.append(path)
        n = min(cfg.chunk, cfg.games - c * cfg.chunk)
        if path.is_file():
            if progress:
                progress(n)
            continue
        rng = random.Random(f"{cfg.seed}:{gen}:{c}")
        xs, ys, gids = [], [], []
        for i in range(n):
            game_seed = cfg.seed * 1_000_003 + gen * 100_003 + c * cfg.chunk + i
            pop = list(cfg.population)
            if snapshot is not None and snapshot.is_file() and rng.random() < cfg.snapshot_share:
                bots = [f"learned:weights={snapshot}", rng.choice(pop)]
            else:
                bots = [rng.choice(pop), rng.choice(pop)]
            rng.shuffle(bots)
            x, y, _ = play_recorded(cfg, bots, game_seed, rng)
            if len(y):
                xs.append(x)
                ys.append(y)
                gids.append(np.full(len(y), game_seed, dtype=np.int64))
            if progress:
                progress(1)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, x=np.concatenate(xs), y=np.concatenate(ys), game=np.concatenate(gids))
        tmp.replace(path)
    return files


def load_data(files: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, gs = [], [], []
    for f in files:
        with np.load(f) as d:
            xs.append(d["x"])
            ys.append(d["y"])
            gs.append(d["game"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


def build_model(obs_size: int, hidden: tuple[int, ...], dropout: float = 0.0) -> Any:
    import torch

    layers: list[Any] = []
    width = obs_size
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        if dropout > 0:
            layers.append(torch.nn.Dropout(dropout))
        width = h
    layers.append(torch.nn.Linear(width, 1))
    return torch.nn.Sequential(*layers)


def to_value_net(model: Any, edition: str, meta: dict[str, Any] | None = None) -> ValueNet:
    """The numpy network with the torch model's weights (Linear weights transposed)."""
    import torch

    lins = [m for m in model if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in lins]
    return ValueNet(layers, edition, meta)


def fit(
    cfg: TrainConfig, files: list[Path], gen: int, progress: Callable[[int, dict[str, float]], None] | None = None
) -> dict[str, Any]:
    """Stage 2 for generation `gen`: fit (or continue fitting) the network; returns the log."""
    import torch

    torch.set_num_threads(1)  # a small MLP: one thread is as fast, and polite on a shared machine
    out = Path(cfg.out)
    ckpt_path = out / "checkpoint.pt"
    x, y, g = load_data(files)
    held = (g % 10) == 0
    xt, yt = torch.from_numpy(x[~held].astype(np.float32)), torch.from_numpy(y[~held])
    xv, yv = torch.from_numpy(x[held].astype(np.float32)), torch.from_numpy(y[held])
    torch.manual_seed(cfg.seed + gen)
    model = build_model(x.shape[1], cfg.hidden, cfg.dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    best: dict[str, Any] = {"val_mse": float("inf"), "epoch": 0, "model": None}  # exported: early stopping
    log: dict[str, Any] = {"config": asdict(cfg), "epochs": [], "generation": gen}
    start_epoch = 0
    if ckpt_path.is_file():
        ck = torch.load(ckpt_path, weights_only=False)
        if ck["generation"] == gen:
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["optimizer"])
            start_epoch = ck["epoch"]
            log = ck["log"]
            best = ck["best"]
            torch.set_rng_state(ck["torch_rng"])
        elif ck["generation"] > gen:
            return ck["log"]
        else:  # the previous generation's network is the starting point (warm start)
            model.load_state_dict(ck["model"])
    gen_rng = torch.Generator().manual_seed(cfg.seed * 7 + gen)
    for _ in range(start_epoch):
        torch.randperm(len(xt), generator=gen_rng)  # the same shuffles as an uninterrupted run
    loss_fn = torch.nn.MSELoss()
    for epoch in range(start_epoch, cfg.epochs):
        t0 = time.perf_counter()
        model.train()
        perm = torch.randperm(len(xt), generator=gen_rng)
        total = 0.0
        for i in range(0, len(xt), cfg.batch):
            idx = perm[i : i + cfg.batch]
            pred = torch.sigmoid(model(xt[idx]).squeeze(-1))
            loss = loss_fn(pred, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            pv = torch.sigmoid(model(xv).squeeze(-1))
            val = float(loss_fn(pv, yv)) if len(yv) else float("nan")
            base = float(((yv - yt.mean()) ** 2).mean()) if len(yv) else float("nan")
        row = {
            "epoch": epoch + 1,
            "train_mse": total / max(1, len(xt)),
            "val_mse": val,
            "val_mse_constant": base,
            "seconds": time.perf_counter() - t0,
        }
        log["epochs"].append(row)
        log["samples"] = {"train": len(xt), "val": len(xv)}
        if not val >= best["val_mse"]:  # NaN (no held-out games) counts as better: keep the last
            best = {"val_mse": val, "epoch": epoch + 1, "model": {k: v.clone() for k, v in model.state_dict().items()}}
        log["best_epoch"] = best["epoch"]
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
                "epoch": epoch + 1,
                "generation": gen,
                "log": log,
                "best": best,
                "torch_rng": torch.get_rng_state(),
                "obs_size": x.shape[1],
                "hidden": list(cfg.hidden),
            },
            ckpt_path,
        )
        if progress:
            progress(1, row)
    if best["model"] is not None:
        model.load_state_dict(best["model"])
    net = to_value_net(model, cfg.edition, {"generation": gen, "epoch": best["epoch"]})
    net.save(snapshot_path(out, gen, cfg.edition))
    return log


def plot_curve(logs: list[dict[str, Any]], path: Path) -> bool:
    """The training curve (train and validation MSE per epoch, every generation); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.5))
    offset = 0
    for lg in logs:
        ep = [offset + r["epoch"] for r in lg["epochs"]]
        gen = lg["generation"]
        ax.plot(ep, [r["train_mse"] for r in lg["epochs"]], "-", label=f"train (gen {gen})")
        ax.plot(ep, [r["val_mse"] for r in lg["epochs"]], "--", label=f"validation (gen {gen})")
        if lg["epochs"]:
            ax.axhline(lg["epochs"][-1]["val_mse_constant"], color="grey", lw=0.8, ls=":")
        offset = ep[-1] if ep else offset
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean squared error")
    ax.set_title("ttr train: value network (dotted: constant predictor)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def run_training(
    cfg: TrainConfig,
    on_games: Callable[[int], None] | None = None,
    on_epoch: Callable[[int, dict[str, float]], None] | None = None,
) -> dict[str, Any]:
    """All stages and generations; returns the summary written to ``log.json``."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"config": asdict(cfg), "generations": []}
    logs = []
    files: list[Path] = []
    for gen in range(cfg.generations):
        t0 = time.perf_counter()
        new = generate(cfg, gen, on_games)
        t1 = time.perf_counter()
        files += new
        log = fit(cfg, files, gen, on_epoch)
        t2 = time.perf_counter()
        logs.append(log)
        summary["generations"].append(
            {
                "generation": gen,
                "games": cfg.games,
                "data_files": len(new),
                "samples": log.get("samples"),
                "games_seconds": round(t1 - t0, 1),
                "fit_seconds": round(t2 - t1, 1),
                "final": log["epochs"][-1] if log["epochs"] else None,
            }
        )
    last = snapshot_path(out, cfg.generations - 1, cfg.edition)
    final = out / f"value-{cfg.edition}.npz"
    final.write_bytes(last.read_bytes())
    summary["weights"] = str(final)
    summary["curve"] = str(out / "curve.png") if plot_curve(logs, out / "curve.png") else None
    (out / "log.json").write_text(json.dumps({**summary, "logs": logs}, indent=1))
    return summary
