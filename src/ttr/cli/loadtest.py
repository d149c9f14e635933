"""ttr loadtest: N concurrent games through the real HTTP/WebSocket API; actions/s, latency percentiles, errors."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HELP = "load-test a game server: N concurrent games of random players over HTTP/WebSocket (starts its own server by default)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", help="server to test (default: start `ttr serve` on a free port with a fresh SQLite file)")
    p.add_argument("--games", type=int, default=100, help="concurrent games (default 100)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds to run (default 60)")
    p.add_argument("--humans", type=int, default=2, help="human seats per game, played by this client (default 2)")
    p.add_argument("--bots", type=int, default=0, help="bot seats per game, played by the server (default 0)")
    p.add_argument("--bot-level", default="easy", help="level of the server's bot seats (easy, medium, hard, max)")
    p.add_argument("--edition", default="usa", help="edition of every game")
    p.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean think time in seconds before each action, uniform in [0, 2*think] (default 1.0; 0 = flat out)",
    )
    p.add_argument("--bot-delay", type=float, default=0.5, help="the started server's --bot-delay (default 0.5)")
    p.add_argument("--db", help="the started server's --db (default: a temporary SQLite file)")
    p.add_argument(
        "--via", choices=["http", "ws"], default="http", help="send actions as HTTP POSTs (default) or over each seat's WebSocket"
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the client's random moves")
    p.add_argument(
        "--client-procs",
        type=int,
        default=1,
        help="client processes sharing the games, one event loop each (default 1; more when the report's "
        "client_cpu_share nears 1.0, i.e. the client and not the server limits the figures)",
    )
    p.add_argument(
        "--server-pid",
        type=int,
        help="with --url: the server's process id, to report its CPU time and memory (RSS) like a started server's",
    )
    p.add_argument(
        "--warmup",
        type=float,
        help="seconds after which the server's memory is taken as warmed up, for the growth figure "
        "(default: a sixth of --duration, at most 60)",
    )
    p.add_argument(
        "--ramp",
        type=float,
        default=0.0,
        help="spread the games' first starts evenly over this many seconds (default 0: all within the first 5 s). "
        "A ramp about as long as a game gives the steady mix of young and old games a real server has, so the "
        "memory growth after it shows what the server keeps, not all its games growing up together",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(args: argparse.Namespace, tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    import httpx

    port = _free_port()
    db = args.db or os.path.join(tmp, "loadtest.sqlite3")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ttr",
            "serve",
            "--port",
            str(port),
            "--db",
            db,
            "--bot-delay",
            str(args.bot_delay),
            "--no-access-log",
            "--log-level",
            "warning",
            "--no-limits",  # one client playing hundreds of games: every per-client limit would refuse it
        ],
        stdout=2,  # its banner goes to stderr: this command's stdout is its report (--json)
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"ttr loadtest: the server exited with {proc.returncode}")
        try:
            if httpx.get(url + "/api/editions", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("ttr loadtest: the server did not start")


def run(args: argparse.Namespace) -> int:
    from ..server.loadtest import LoadConfig, RssSampler, cpu_seconds, run_load

    if args.games < 1 or args.humans < 1 or args.duration <= 0 or args.think < 0 or args.client_procs < 1 or args.ramp < 0:
        print(
            "ttr loadtest: --games, --humans and --client-procs must be >= 1, --duration > 0, --think and --ramp >= 0",
            file=sys.stderr,
        )
        return 2
    warmup = args.warmup if args.warmup is not None else min(60.0, args.duration / 6)
    with tempfile.TemporaryDirectory(prefix="ttr-load-") as tmp:
        proc = None
        url = args.url
        if not url:
            proc, url = _start_server(args, tmp)
        pid = proc.pid if proc else args.server_pid
        cpu0 = cpu_seconds(pid) if pid else None
        try:
            cfg = LoadConfig(
                url=url.rstrip("/"),
                games=args.games,
                duration=args.duration,
                humans=args.humans,
                bots=args.bots,
                bot_level=args.bot_level,
                edition=args.edition,
                think=args.think,
                seed=args.seed,
                via=args.via,
                procs=args.client_procs,
                ramp=args.ramp,
            )
            if pid:
                with RssSampler(pid, warmup) as rss:
                    report = run_load(cfg)
                report["server_rss"] = rss.report()
            else:
                report = run_load(cfg)
            if pid and cpu0 is not None and (cpu1 := cpu_seconds(pid)) is not None:
                report["server_cpu_s"] = round(cpu1 - cpu0, 1)
                report["server_cpu_share"] = round((cpu1 - cpu0) / report["duration_s"], 2)
                if report["actions"]:
                    report["server_cpu_ms_per_action"] = round(1000 * (cpu1 - cpu0) / report["actions"], 2)
        finally:
            if proc:
                proc.terminate()
                proc.wait(15)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        lat, upd = report["latency_ms"], report["update_delay_ms"]
        print(
            f"{report['games']} concurrent games ({report['humans_per_game']} client seats + {report['bots_per_game']} bots, "
            f"{report['edition']}, think {report['think_s']} s, actions over {report['actions_via']}) "
            f"for {report['duration_s']} s"
        )
        print(f"games started {report['games_started']}, finished {report['games_finished']}")
        print(f"actions {report['actions']}  ({report['actions_per_s']}/s)")
        how = "POST to answer" if report["actions_via"] == "http" else "sent to own update"
        print(f"action latency ms ({how}): p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}")
        srv = report["server_time_ms"]
        if report["actions_via"] == "http":
            print(f"  of which in the server (Server-Timing): p50 {srv['p50']}  p95 {srv['p95']}  p99 {srv['p99']}")
        print(f"update delay ms (POST to own WebSocket update): p50 {upd['p50']}  p95 {upd['p95']}  p99 {upd['p99']}")
        if "server_cpu_s" in report:
            print(
                f"server CPU {report['server_cpu_s']} s ({report['server_cpu_share']} of one core, "
                f"{report.get('server_cpu_ms_per_action')} ms per action)"
            )
        print(
            f"load client CPU {report['client_cpu_s']} s in {report['client_procs']} process(es) "
            f"({report['client_cpu_share']} of one core, {report['client_cpu_ms_per_action']} ms per action)"
        )
        if report.get("server_rss"):
            m = report["server_rss"]
            print(
                f"server memory (RSS) MiB: start {m['start_mib']}  after {m['warmup_s']:g} s warm-up {m['after_warmup_mib']}  "
                f"end {m['end_mib']}  max {m['max_mib']}; growth after warm-up {m['growth_after_warmup_pct']} %"
            )
        lag = report["client_loop_lag_ms"]
        print(
            f"load client's own event-loop lag ms: p50 {lag['p50']}  p95 {lag['p95']}  p99 {lag['p99']}; "
            f"machine load average {', '.join(f'{x:.1f}' for x in report['load_average'] or [])}"
        )
        print(f"errors {report['errors']}" + (f" {report['errors_by_kind']}" if report["errors"] else ""))
        for sample in report["error_samples"]:
            print("  " + sample)
    return 1 if report["errors"] else 0
