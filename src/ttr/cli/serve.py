"""ttr serve: the multiplayer game server (lobby, seats, WebSocket play, bots), on http://127.0.0.1:8000 by default."""

from __future__ import annotations

import argparse
import os
import sys

HELP = "run the game server (browser client, HTTP/WebSocket API, bots); SQLite by default, PostgreSQL to scale out"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..server.config import DEFAULT_BOT_DELAY, DEFAULT_HOST, DEFAULT_PORT, KNOBS, knob_default, knob_type

    p.add_argument("--host", default=DEFAULT_HOST, help=f"interface to listen on (default {DEFAULT_HOST}; 0.0.0.0 for a LAN)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--db",
        help="database: a SQLite file path or a URL (sqlite:///..., postgresql://...); "
        "default $TTR_DATABASE_URL, else ttr.sqlite3 in $TTR_DATA_DIR or ~/.local/share/ttr",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=DEFAULT_BOT_DELAY,
        help=f"seconds a bot waits before each move (default {DEFAULT_BOT_DELAY}); it thinks meanwhile",
    )
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"], help="server log level"
    )
    p.add_argument("--no-access-log", action="store_true", help="do not log every request")
    p.add_argument(
        "--maps",
        metavar="DIR",
        help="offer every map file (*.json, docs/map-format.md) in DIR in the lobby next to the built-in editions; "
        "a file that is not a valid map is logged with its error and left out; each game stores its map "
        "(default: none)",
    )
    g = p.add_argument_group(
        "limits and abuse controls",
        "per client (IP) unless said otherwise; rates are 'N/second', 'N/minute' or 'N/hour', several joined by ';'; "
        "each option's environment variable is used when the option is not given; caps and durations of 0 mean none "
        "(see docs/api.md, 'Limits and abuse controls')",
    )
    g.add_argument(
        "--no-limits",
        action="store_true",
        default=os.environ.get("TTR_NO_LIMITS", "") not in ("", "0"),
        help="no per-client rate or cap at all, for load tests on your own machine ($TTR_NO_LIMITS=1)",
    )
    for knob in KNOBS:
        kind = knob_type(knob)
        shown = knob_default(knob)
        if isinstance(shown, float) and shown.is_integer():
            shown = int(shown)
        g.add_argument(
            knob.flag,
            dest=knob.field,
            default=None,
            metavar=kind.__name__.upper() if kind is not str else "RATE",
            help=f"{knob.help} (default {shown}; ${knob.env})",
        )


def _settings_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The limit knobs: the option if given, else $TTR_..., else the default. ValueError names a bad one."""
    from ..server.config import KNOBS, knobs_from_env, parse_knob

    values = knobs_from_env()
    for knob in KNOBS:
        raw = getattr(args, knob.field, None)
        if raw is not None:
            values[knob.field] = parse_knob(knob, raw)
    return values


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server import Settings, create_app, database_url
    from ..server.collector import Collector
    from ..server.limits import guarded_http_protocol
    from ..server.security import redact_tokens_in_logs

    if args.bot_delay < 0:
        print("ttr serve: --bot-delay must not be negative")
        return 2
    try:
        knobs = _settings_kwargs(args)
        if knobs.get("bot_workers", 1) < 1 or knobs.get("bot_budget", 1.0) <= 0:
            raise ValueError("--bot-workers must be at least 1 and --bot-budget more than 0")
    except ValueError as exc:
        print(f"ttr serve: {exc}", file=sys.stderr)
        return 2
    url = database_url(args.db)
    if url.startswith("postgresql"):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            print(
                "ttr serve: PostgreSQL needs psycopg 3: pip install 'ttr[postgres]' (or pip install 'psycopg[binary]')",
                file=sys.stderr,
            )
            return 2
    settings = Settings(
        database_url=url, bot_delay=args.bot_delay, limits_enabled=not args.no_limits, maps_dir=args.maps, **knobs
    )  # type: ignore[arg-type]
    app = create_app(settings)
    shown = url.split("@")[-1] if "@" in url else url  # never print a password
    print(f"ttr serve: games stored in {shown}; open http://{args.host}:{args.port}/ (API docs at /docs)", flush=True)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        # the app itself refuses WebSocket messages over max_body_bytes, with a JSON error and close code 1009;
        # the protocol's own limit, above it, only stops a client that sends far more
        ws_max_size=4 * settings.max_body_bytes,
        # compressing every update took ~17 % of the server's CPU under load (300-game loadtest, py-spy), on the event loop
        ws_per_message_deflate=bool(settings.ws_deflate),
        timeout_graceful_shutdown=3,
        # longer than clients keep idle connections (httpx: 5 s), so that a request is never
        # sent on a connection the server is closing at that moment
        timeout_keep_alive=max(1, round(settings.keep_alive_timeout)),
        # a deadline and a size cap for each request's line and headers (uvicorn has neither for httptools)
        http=guarded_http_protocol(settings.header_timeout, settings.max_header_bytes) if settings.header_timeout > 0 else "auto",
        h11_max_incomplete_event_size=settings.max_header_bytes,
    )
    redact_tokens_in_logs()  # after uvicorn.Config has set up its loggers
    # collector.py: when the garbage collector runs, and the allocator's free memory given back
    Collector(settings.gc_interval, settings.gc_full_every, settings.malloc_trim_every).start()
    uvicorn.Server(config).run()
    return 0
