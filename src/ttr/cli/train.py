"""ttr train: fit the learned bot's value network (self-play data from a population, then PyTorch)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from typing import Any

HELP = "train the learned bot's value network by self-play against a population (needs torch: the rl-train extra)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..learn.train import POPULATION

    p.add_argument("--out", default="artifacts/train", help="output directory (data, checkpoint, weights, log, curve)")
    p.add_argument("--edition", default="usa", help="edition to train on")
    p.add_argument("--players", type=int, default=2, help="players a game")
    p.add_argument("--games", type=int, default=2000, help="games a generation")
    p.add_argument("--generations", type=int, default=1, help="generations (from the second, past snapshots play too)")
    p.add_argument("--chunk", type=int, default=100, help="games a data file (the unit of resumption)")
    p.add_argument("--sample", type=float, default=0.25, help="chance that a decision is recorded")
    p.add_argument("--epochs", type=int, default=20, help="epochs a generation")
    p.add_argument("--batch", type=int, default=256, help="batch size")
    p.add_argument("--lr", type=float, default=3e-4, help="AdamW learning rate")
    p.add_argument("--weight-decay", type=float, default=0.1, help="AdamW weight decay")
    p.add_argument("--dropout", type=float, default=0.5, help="dropout after each hidden layer")
    p.add_argument("--hidden", default="128,64", help="hidden layer widths")
    p.add_argument("--population", default=", ".join(POPULATION), help="comma-separated bot specs the games draw from")
    p.add_argument("--seed", type=int, default=1, help="seed of deals, pairings and torch")
    p.add_argument("--install", action="store_true", help="copy the final weights into the package (ttr/learn/weights)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("torch") is None:
        print("ttr train: PyTorch is missing: pip install -e '.[rl-train]' (CPU wheels: docs/rl.md)", file=sys.stderr)
        return 2
    from pathlib import Path

    from ..learn.train import TrainConfig, run_training

    cfg = TrainConfig(
        out=args.out,
        edition=args.edition,
        players=args.players,
        games=args.games,
        generations=args.generations,
        chunk=args.chunk,
        sample=args.sample,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        weight_decay=args.weight_decay,
        dropout=args.dropout,
        hidden=tuple(int(x) for x in args.hidden.split(",") if x.strip()),
        seed=args.seed,
        population=tuple(x.strip() for x in args.population.split(",") if x.strip()),
    )
    if cfg.games < 1 or cfg.epochs < 1 or cfg.generations < 1:
        print("ttr train: --games, --epochs and --generations must be at least 1", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.quiet:
        summary = run_training(cfg)
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=False
        ) as progress:
            games = progress.add_task("games", total=cfg.games * cfg.generations)
            epochs = progress.add_task("epochs", total=cfg.epochs * cfg.generations)

            def on_epoch(n: int, row: dict[str, Any]) -> None:
                progress.update(
                    epochs, advance=n, description=f"epochs (val mse {row['val_mse']:.4f}, train {row['train_mse']:.4f})"
                )

            summary = run_training(cfg, lambda n: progress.update(games, advance=n), on_epoch)
    for g in summary["generations"]:
        f = g["final"] or {}
        print(
            f"generation {g['generation']}: {g['games']} games ({g['games_seconds']} s), samples {g['samples']}, "
            f"fit {g['fit_seconds']} s, val mse {f.get('val_mse', float('nan')):.4f} "
            f"(constant {f.get('val_mse_constant', float('nan')):.4f})"
        )
    print(f"weights: {summary['weights']}; curve: {summary['curve']}; log: {Path(cfg.out) / 'log.json'}")
    if args.install:
        from ..learn.value import shipped_path

        dest = Path(__file__).resolve().parent.parent / "learn" / "weights" / f"{cfg.edition}.npz"
        dest.write_bytes(Path(summary["weights"]).read_bytes())
        print(f"installed: {dest} ({shipped_path(cfg.edition)})")
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0
