"""The ``ttr`` command. Each subcommand lives in its own module with ``HELP``, ``add_arguments`` and ``run``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import TTRError

# name -> module; heavy dependencies are imported inside each command's run(), never at start-up.
COMMANDS = {
    "editions": "ttr.cli.editions_cmd",
    "simulate": "ttr.cli.simulate",
    "tournament": "ttr.cli.tournament",
    "calibrate": "ttr.cli.calibrate",
    "compare": "ttr.cli.compare",
    "gauntlet": "ttr.cli.gauntlet",
    "replay": "ttr.cli.replay",
    "score": "ttr.cli.score",
    "bench": "ttr.cli.bench",
    "play": "ttr.cli.play",
    "serve": "ttr.cli.serve",
    "loadtest": "ttr.cli.loadtest",
    "rl-eval": "ttr.cli.rl_eval",
    "train": "ttr.cli.train",
}


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the help text already names it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if not action.option_strings or action.default is argparse.SUPPRESS or "default" in text.lower():
            return text
        value = action.default
        if value is None or value == []:
            shown = "none"
        elif value is False:
            shown = "off"
        elif value is True:
            shown = "on"
        else:
            shown = str(value).replace("%", "%%")
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ttr", description="Ticket to Ride: engine, bots, simulations, server.", formatter_class=HelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, modname in COMMANDS.items():
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name == modname:
                continue  # command not built yet
            raise
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP, formatter_class=HelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    try:
        return int(args._run(args) or 0)
    except TTRError as exc:
        print(f"ttr {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
