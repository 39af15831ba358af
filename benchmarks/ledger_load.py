"""What the ledger (docs/ledger.md) costs a private ``/v1/apply`` on the real server, and its size per game.

    .venv/bin/python benchmarks/ledger_load.py            # make bench-ledger (and the end of make bench-http)
    .venv/bin/python benchmarks/ledger_load.py --connections 4,16,32 --rounds 2 --json

Five ``referee serve`` servers in private mode with the same key and 2
(gevent) workers each: without a ledger; with a SQLite ledger (a file in a
temporary directory), at the default ``synchronous=FULL`` and at
``?synchronous=normal``; and with a Redis ledger (a ``redis-server`` on
loopback, started here, with an append-only file), at the shipped
``appendfsync always`` and at ``everysec``. Each gets the 64 mid-game
positions of ``make bench-http`` as private bodies, every body a game of its
own (a fresh game id) that the ledger holds at the token's seq (written before
the clock starts), so each request is an ordinary move: one record (one
transaction or one script), never the cheaper retry answer. Each round runs
every server at each number of connections (``--connections``, default 4 and
32: at 4 a request's wait for the store's fsync is most of its latency; at 32
the workers serve other requests meanwhile), the servers' order reversed every
other round, so a busy machine slows all of them alike; the load comes from
``wrk`` when installed, else a threaded Python client. The figures: requests
per second, latency, the workers' CPU time per request (from /proc: less
sensitive to other work on the machine than throughput), each as a ratio to
the server without a ledger in the same round, the medians over the rounds,
and Redis's moves per second of its own CPU. A Redis is emptied after each run.

Then the size: whole random games played through each ledger in-process, and
the bytes each game takes (SQLite: the file and its WAL over the games;
Redis: ``MEMORY USAGE`` of a game's hash), with the moves per game.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bodies import midgame_bodies  # noqa: E402
from benchmarks.servers import (  # noqa: E402
    free_port,
    run_python,
    run_wrk,
    start_server,
    stop_server,
    workers_cpu_seconds,
)


def fresh_bodies(
    bodies: list[dict[str, Any]], key: bytes, prefix: str, count: int, ledger_url: str | None
) -> list[bytes]:
    """``count`` private bodies cycling over the positions, each with a game id of its own, and each
    game already in the ledger at its token's seq (written here, before the clock starts), so that
    every timed request is an ordinary move: one record, not an adoption."""
    from concurrent.futures import ThreadPoolExecutor

    from referee.private.ledger import open_ledger
    from referee.private.tokens import Vault

    vault = Vault(key)
    ledger = open_ledger(ledger_url, 86400, 30) if ledger_url else None
    out, games = [], []
    for n in range(count):
        body = bodies[n % len(bodies)]
        # Spread over the id space as the referee's own ids are (g- and 22 random characters), not in
        # order, so that each move finds its game where a real one would be (a page of its own).
        game_id = "g-" + base64.urlsafe_b64encode(hashlib.sha256(f"{prefix}-{n}".encode()).digest()).decode()[:22]
        state = {k: v for k, v in body["state"].items() if k != "seal"}
        token = vault.token({**state, "game_id": game_id})
        games.append((game_id, state["seq"], token))
        out.append(
            orjson.dumps(
                {"state": token, "action": body["action"], "seat": vault.seat(game_id, body["action"]["player"])}
            )
        )
    if ledger is not None:  # each adopted at seq - 1 with this very token recorded as seq (16 at a time)
        # Written in another order than the moves come, as games started at different times are.
        random.Random(prefix).shuffle(games)
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda g: ledger.record(g[0], g[1] - 1, "sha256:before", g[2], g[2]), games))
        ledger.close()
    return out


def start_redis(workdir: Path, fsync: str, replica_of: str | None = None) -> tuple[subprocess.Popen, str]:
    """A ``redis-server`` with an append-only file (``appendfsync fsync``), or a replica of ``replica_of``."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    workdir.mkdir()
    follow = ["--replicaof", "127.0.0.1", replica_of.rsplit(":", 1)[1].split("/")[0]] if replica_of else []
    proc = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(workdir), "--appendonly", "yes"]
        + ["--appendfsync", fsync, "--save", "", "--logfile", str(workdir / "redis.log"), *follow],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    import redis

    client = redis.Redis(port=port, socket_timeout=1)
    for _ in range(200):
        try:
            client.ping()
            return proc, f"redis://127.0.0.1:{port}/0"
        except redis.RedisError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("redis-server did not start")


def wait_for_replica(primary_url: str) -> None:
    """Until the primary has one replica online (it has synced)."""
    import redis

    client = redis.Redis.from_url(primary_url, socket_timeout=1)
    for _ in range(600):
        if client.info("replication").get("connected_slaves", 0) >= 1 and client.wait(1, 100) >= 1:
            return
        time.sleep(0.05)
    raise SystemExit("the replica did not sync")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (the Redis server), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def size_per_game(key: bytes, url: str, games: int) -> dict[str, float]:
    """Whole random games through a ledger in-process: moves and ledger bytes per game."""
    from referee.engine import Catalog
    from referee.engine.playout import random_new_game
    from referee.service.app import create_app
    from referee.service.config import Settings

    catalog = Catalog.builtin()
    app = create_app(Settings(log_requests=False, state_key=key, ledger=url), catalog)
    ledger = app.extensions["referee"].codec.ledger
    client = app.test_client()
    rng = random.Random("size")
    moves, sizes = 0, []
    before = ledger.size() if hasattr(ledger, "path") else 0
    for g in range(games):
        body = random_new_game(catalog, f"size-{g}")
        body.pop("seed")
        deal = client.post("/v1/games", json=body).get_json()
        token, seats = deal["state"], deal["seats"]
        for _ in range(2000):
            acted = False
            for player in (0, 1):
                actions = client.post("/v1/legal-actions", json={"state": token, "seat": seats[player]}).get_json()
                actions = [a for a in actions["actions"] if a["type"] != "concede"]
                if actions:
                    keep = [a for a in actions if a["type"] == "keep"]
                    action = keep[0] if keep else rng.choice(actions)
                    resp = client.post("/v1/apply", json={"state": token, "action": action, "seat": seats[player]})
                    token = resp.get_json()["state"]
                    moves += 1
                    acted = True
                    break
            if not acted:
                break
        if not hasattr(ledger, "path"):
            sizes.append(
                ledger.size(
                    client.post("/v1/view", json={"state": token, "seat": seats[0]}).get_json()["view"]["game_id"]
                )
            )
    if hasattr(ledger, "path"):
        ledger.close()
        sizes = [(ledger.size() - before) / games]
    return {"games": games, "moves_per_game": moves / games, "bytes_per_game": sum(sizes) / len(sizes)}


# The shipped durability first, then the faster setting each store has (docs/ledger.md).
# Then a primary with one replica (docs/ledger.md, "Running it across machines"), each move answered at once
# (redis-replicated) or once the replica holds it (redis-replicas1: ?replicas=1, a WAIT per batch).
STORES = ("none", "sqlite", "sqlite-normal", "redis", "redis-everysec", "redis-replicated", "redis-replicas1")


def pin_tree(pid: int, cpus: set[int]) -> None:
    """Process ``pid`` and its descendants (a server's master and workers) onto ``cpus``."""
    os.sched_setaffinity(pid, cpus)
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            pin_tree(int(child), cpus)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per server and round (default 8)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds over the five servers (default 4)")
    parser.add_argument("--connections", default="4,32", help="concurrent connections, one run of each (default 4,32)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument(
        "--bodies", type=int, default=40000, help="distinct games per run (default 40000: more than a run moves)"
    )
    parser.add_argument(
        "--tool", choices=("auto", "wrk", "python"), default="auto", help="load generator (default: wrk if installed)"
    )
    parser.add_argument(
        "--size-games", type=int, default=5, help="whole games for the size per game (default 5; 0: no size)"
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the servers on the last CPU, Redis and the load generator on the others, so the workers' "
        "CPU is theirs alone, as where Redis runs on machines of its own (use with --workers 1)",
    )
    parser.add_argument(
        "--stores",
        default=",".join(STORES[:5]),
        help=f"the servers to run, of {','.join(STORES)} (default the first five: the replicated two are asked "
        "for, docs/performance.md, 'Ledger across machines'; none, the baseline, always runs)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    chosen = {"none", *args.stores.split(",")}
    if not chosen <= set(STORES):
        parser.error(f"--stores: choose among {', '.join(STORES)}")
    cpus = sorted(os.sched_getaffinity(0))
    if args.pin:
        if len(cpus) < 2:
            parser.error("--pin needs at least two CPUs")
        os.sched_setaffinity(0, set(cpus[:-1]))  # Redis and wrk, started below, inherit it
    levels = [int(c) for c in args.connections.split(",")]
    tool = args.tool if args.tool != "auto" else ("wrk" if shutil.which("wrk") else "python")

    key = os.urandom(32)
    work = Path(tempfile.mkdtemp(prefix="referee-ledger-bench-"))
    redis_proc, redis_url = start_redis(work / "redis", "always")
    lax_proc, lax_url = start_redis(work / "redis-everysec", "everysec")
    replicated = {"redis-replicated", "redis-replicas1"} & chosen
    primary_proc, primary_url = start_redis(work / "redis-primary", "always") if replicated else (None, "")
    replica_proc = start_redis(work / "redis-replica", "always", primary_url)[0] if replicated else None
    if replicated:
        wait_for_replica(primary_url)
    urls = {
        "redis-replicated": primary_url,
        "redis-replicas1": primary_url + "?replicas=1",
        "sqlite": f"sqlite:///{work / 'ledger.db'}",
        "sqlite-normal": f"sqlite:///{work / 'ledger-normal.db'}?synchronous=normal",
        "redis": redis_url,
        "redis-everysec": lax_url,
    }
    stores = {name: {"REFEREE_LEDGER": urls[name]} if name in urls else {} for name in STORES if name in chosen}
    redis_pids = {"redis": redis_proc.pid, "redis-everysec": lax_proc.pid}
    if primary_proc is not None:
        redis_pids.update({"redis-replicated": primary_proc.pid, "redis-replicas1": primary_proc.pid})
    try:
        results = measure(args, tool, levels, stores, key, work, cpus, redis_pids)
        sizes = (
            {
                "sqlite": size_per_game(key, f"sqlite:///{work / 'size.db'}", args.size_games),
                "redis": size_per_game(key, redis_url, args.size_games),
            }
            if args.size_games
            else {}
        )
    finally:
        for proc in (redis_proc, lax_proc, primary_proc, replica_proc):
            if proc is not None:
                proc.terminate()
                proc.wait(10)
        shutil.rmtree(work, ignore_errors=True)

    summary = summarise(results, args, tool, levels, list(stores))
    summary["size"] = sizes
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    report(summary, args, tool, cpus)
    return 0


def measure(
    args: argparse.Namespace,
    tool: str,
    levels: list[int],
    stores: dict[str, dict[str, str]],
    key: bytes,
    work: Path,
    cpus: list[int],
    redis_pids: dict[str, int],
) -> dict[int, dict[str, list[dict[str, Any]]]]:
    """Each round's run of every server at every level of connections, the servers' order reversed every other round."""
    import redis

    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    results: dict[int, dict[str, list[dict[str, Any]]]] = {c: {name: [] for name in stores} for c in levels}
    try:
        for name, env in stores.items():
            servers[name] = start_server(args.workers, work / f"{name}.log", {"REFEREE_STATE_KEY": key.hex(), **env})
            if args.pin:
                pin_tree(servers[name][0].pid, {cpus[-1]})
        positions = midgame_bodies(64)
        for r in range(args.rounds):
            for connections in levels:
                order = list(stores) if r % 2 == 0 else list(reversed(stores))
                for name in order:
                    shutil.rmtree(work / "bodies", ignore_errors=True)
                    (work / "bodies").mkdir()
                    url = stores[name].get("REFEREE_LEDGER")
                    bodies = fresh_bodies(positions, key, f"{name}-{r}-{connections}", args.bodies, url)
                    out = one_run(args, tool, servers[name], bodies, connections, work, redis_pids.get(name))
                    if name != "none" and out["requests"] >= len(bodies) - 200:
                        print(f"warning: {name} cycled its bodies (raise --bodies)", file=sys.stderr)
                    results[connections][name].append(out)
                    if name in redis_pids:  # the games of the run are done with: room for the next run's
                        redis.Redis.from_url(url.partition("?")[0]).flushall()
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    return results


def one_run(
    args: argparse.Namespace,
    tool: str,
    server: tuple[subprocess.Popen, str],
    bodies: list[bytes],
    connections: int,
    work: Path,
    redis_pid: int | None,
) -> dict[str, Any]:
    """One server's run: a warm-up on the first 200 bodies, then the clock on the rest; the workers' (and Redis's) CPU."""
    master, target = server[0].pid, server[1]
    run_python(target, "/v1/apply", bodies[:200], 1.0, connections)  # warm-up
    cpu = cpu_seconds(redis_pid) if redis_pid else 0.0
    workers_cpu = workers_cpu_seconds(master)
    out = drive(tool, target, bodies[200:], args.duration, connections, work)
    out["cpu_us"] = (workers_cpu_seconds(master) - workers_cpu) / max(out["requests"], 1) * 1e6
    if redis_pid:  # moves a second per Redis core: moves over the CPU time Redis spent on them
        out["moves_per_redis_cpu_second"] = out["requests"] / max(cpu_seconds(redis_pid) - cpu, 1e-9)
    return out


def drive(tool: str, url: str, bodies: list[bytes], seconds: float, connections: int, work: Path) -> dict[str, Any]:
    """Private ``/v1/apply`` with ``bodies`` for ``seconds``, by wrk (each body a file) or the Python client."""
    if tool == "python":
        return run_python(url, "/v1/apply", bodies, seconds, connections)
    files = []
    for n, blob in enumerate(bodies):
        files.append(work / "bodies" / f"{n}.json")
        files[-1].write_bytes(blob)
    return run_wrk(url, "/v1/apply", files, seconds, connections, work / "bodies")


def summarise(
    results: dict[int, dict[str, list[dict[str, Any]]]],
    args: argparse.Namespace,
    tool: str,
    levels: list[int],
    stores: list[str],
) -> dict[str, Any]:
    """Each run's ratios to the server without a ledger in the same round, and their medians."""
    summary: dict[str, Any] = {
        "tool": tool,
        "workers": args.workers,
        "pinned": args.pin,
        "duration_s": args.duration,
        "levels": {},
    }
    for connections in levels:
        rounds = []
        for r in range(args.rounds):
            base = results[connections]["none"][r]
            rounds.append(
                {
                    name: {
                        **results[connections][name][r],
                        "ratio": results[connections][name][r]["rps"] / base["rps"],
                        "cpu_ratio": base["cpu_us"] / max(results[connections][name][r]["cpu_us"], 1e-9),
                    }
                    for name in stores
                }
            )
        summary["levels"][connections] = rounds
        summary.setdefault("medians", {})[connections] = {
            name: {
                "ratio": statistics.median(row[name]["ratio"] for row in rounds),
                "cpu_ratio": statistics.median(row[name]["cpu_ratio"] for row in rounds),
            }
            for name in stores
        }
    return summary


def report(summary: dict[str, Any], args: argparse.Namespace, tool: str, cpus: list[int]) -> None:
    """Print every run, the Redis CPU figures, the medians and the size per game."""
    stores = list(summary["medians"][next(iter(summary["levels"]))])
    sizes = summary["size"]
    pinned = f", the servers on CPU {cpus[-1]}, Redis and {tool} on the others" if args.pin else ""
    print(f"private /v1/apply, {args.workers} workers, {tool}, {args.duration:g} s a run{pinned}")
    print(
        f"{'conns':>5} {'round':>5}  {'ledger':<14} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'failed':>6}"
        f" {'ratio':>6} {'cpu us':>7} {'cpu ratio':>9}"
    )
    for connections, rounds in summary["levels"].items():
        for r, row in enumerate(rounds):
            for name, out in row.items():
                print(
                    f"{connections:>5} {r + 1:>5}  {name:<14} {out['rps']:>8.0f} {out['p50_ms']:>7.2f}"
                    f" {out['p99_ms']:>7.2f} {out['failed']:>6} {out['ratio']:>6.2f} {out['cpu_us']:>7.0f}"
                    f" {out['cpu_ratio']:>9.2f}"
                )
        for name in ("redis", "redis-everysec"):
            if name not in stores:
                continue
            per_core = [row[name]["moves_per_redis_cpu_second"] for row in rounds]
            print(f"{connections:>5} {name}: {min(per_core):.0f}-{max(per_core):.0f} moves per second of Redis CPU")
        for name in stores:
            ratio = statistics.median(row[name]["ratio"] for row in rounds)
            cpu_ratio = statistics.median(row[name]["cpu_ratio"] for row in rounds)
            print(f"{connections:>5} {name}: median ratio {ratio:.2f}, median CPU ratio {cpu_ratio:.2f}")
    for name, size in sizes.items():
        print(
            f"size, {name}: {size['bytes_per_game'] / 1024:.0f} KiB per game "
            f"({size['moves_per_game']:.0f} moves a game, {size['games']} games)"
        )


if __name__ == "__main__":
    raise SystemExit(main())
