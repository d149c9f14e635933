"""ttr replay: replay game records (JSON or JSON lines) and check every stored result."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "replay game records (.json or .jsonl) and check each stored result"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="record files: one JSON record, or JSON lines")
    p.add_argument("--show", action="store_true", help="print each replayed game's final scores")
    p.add_argument("--moves", action="store_true", help="print every move in ttr's notation (docs/notation.md)")


def iter_records(path: str):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    stripped = text.strip()
    if not stripped:
        return
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        for i, line in enumerate(stripped.splitlines(), 1):
            if line.strip():
                try:
                    yield f"{path}:{i}", json.loads(line)
                except json.JSONDecodeError as exc:
                    yield f"{path}:{i}", exc
        return
    if isinstance(data, list):
        for i, rec in enumerate(data):
            yield f"{path}[{i}]", rec
    else:
        yield path, data


def print_moves(where: str, rec: dict) -> None:
    """Each action of the record as `<n>. p<player> <move>`, replaying it to know the map and the mover."""
    from ..custom_maps import record_edition
    from ..engine import Action, Game
    from ..notation import format_move

    game = Game(record_edition(rec) or rec["edition"], rec["players"], rec["seed"], rec.get("options"))
    print(f"{where}: {game.edition.name}, {game.n} players, seed {game.seed}")
    actors = rec.get("actors") or [None] * len(rec["actions"])  # who played each (setup: in any order)
    for i, (raw, actor) in enumerate(zip(rec["actions"], actors, strict=False), 1):
        action = Action.from_json(raw)
        seat = game.current if actor is None else actor
        print(f"{i:4}. p{seat} {format_move(game, action)}")
        game.step(action, seat)


def run(args: argparse.Namespace) -> int:
    from ..custom_maps import record_edition
    from ..engine import Game
    from ..errors import TTRError

    ok = bad = 0
    for path in args.files:
        try:
            records = list(iter_records(path))
        except OSError as exc:
            print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
            bad += 1
            continue
        for where, rec in records:
            if isinstance(rec, Exception):
                print(f"{where}: not JSON: {rec}", file=sys.stderr)
                bad += 1
                continue
            try:
                game = Game.replay(rec, record_edition(rec))  # a record of a custom map carries it ("map")
                if args.moves:
                    print_moves(where, rec)
            except TTRError as exc:
                print(f"{where}: {exc}", file=sys.stderr)
                bad += 1
                continue
            res = game.result()
            scores = [x["total"] for x in res["players"]]
            stored = rec.get("result")
            if stored is not None and (stored.get("scores") != scores or stored.get("winners") != res["winners"]):
                print(f"{where}: MISMATCH stored {stored} replayed scores={scores} winners={res['winners']}", file=sys.stderr)
                bad += 1
                continue
            ok += 1
            if args.show:
                print(f"{where}: scores {scores} winners {res['winners']}{'' if game.is_over else ' (unfinished)'}")
    print(f"{ok} record(s) replayed and checked, {bad} failed")
    return 1 if bad else 0
