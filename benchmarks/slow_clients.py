"""Slow-client availability: can a normal client still be served while hostile sockets sit on the server?

    .venv/bin/python benchmarks/slow_clients.py                 # or: make bench-slow
    .venv/bin/python benchmarks/slow_clients.py --duration 30 --server-env REFEREE_WORKER_CLASS=sync

Starts ``referee serve`` (2 workers, the production config) on a free loopback
port, then for ``--duration`` seconds (≤ 60) keeps open:

- ``--idle`` sockets (40) that connect and send nothing,
- ``--trickle`` sockets (40) that send a request head one byte every 0.5 s,
- ``--nonreading`` sockets (2) that ask for the OpenAPI document again and
  again and never read a byte of it,

each reconnecting as soon as the server closes it. Meanwhile a prober sends
``GET /livez`` and ``POST /v1/legal-actions`` in turn, every 100 ms, on a fresh
connection, and counts the probes answered (200) within 1 s. Prints
availability, latency percentiles and the longest run of failed probes.

Aim (issue 8): ≥ 99% of probes answered within 1 s. Loopback only, bounded in
time and sockets; it stops the server when done.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import start_server, stop_server  # noqa: E402

TRICKLE_HEAD = b"GET /livez HTTP/1.1\r\nHost: referee\r\nX-Slow: " + b"x" * 4000 + b"\r\n\r\n"
NONREADING_REQUEST = b"GET /openapi.yaml HTTP/1.1\r\nHost: referee\r\n\r\n"
MAX_DURATION = 60.0


class Attack:
    """Hostile sockets on ``host:port``, kept open (reconnected) until :meth:`stop`."""

    def __init__(self, host: str, port: int, idle: int, trickle: int, nonreading: int):
        self.address = (host, port)
        self.stopping = threading.Event()
        self.reconnects = 0
        self.threads = [
            threading.Thread(target=self._run, args=(kind, n), daemon=True)
            for kind, n in (("idle", idle), ("trickle", trickle), ("nonreading", nonreading))
            if n
        ]

    def start(self) -> Attack:
        for thread in self.threads:
            thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(5)

    def _connect(self) -> tuple[socket.socket, int] | None:
        try:
            sock = socket.create_connection(self.address, timeout=2)
        except OSError:
            return None
        sock.setblocking(False)
        return sock, 0

    def _run(self, kind: str, count: int) -> None:
        socks: list[tuple[socket.socket, int] | None] = [self._connect() for _ in range(count)]
        step = {"idle": 0.25, "trickle": 0.5, "nonreading": 0.25}[kind]
        while not self.stopping.wait(step):
            for i, entry in enumerate(socks):
                if entry is None or not self._poke(kind, *entry, index=i, socks=socks):
                    if entry is not None:
                        entry[0].close()
                    self.reconnects += 1
                    socks[i] = self._connect()
        for entry in socks:
            if entry is not None:
                entry[0].close()

    def _poke(self, kind: str, sock: socket.socket, sent: int, index: int, socks: list) -> bool:
        """One step of this socket's behaviour; False when the server closed it."""
        try:
            if kind == "idle":
                return sock.recv(1) != b""  # b"" (closed) or BlockingIOError (still open)
            if kind == "trickle":
                if sent >= len(TRICKLE_HEAD):
                    sock.recv(65536)  # the head is whole (a slow server): take the answer, start again
                    return False
                sock.send(TRICKLE_HEAD[sent : sent + 1])
                socks[index] = (sock, sent + 1)
                return True
            sock.send(NONREADING_REQUEST)  # never read; fills both socket buffers
            return True
        except BlockingIOError:
            return True
        except OSError:
            return False


@contextmanager
def attacking(host: str, port: int, idle: int = 40, trickle: int = 40, nonreading: int = 2) -> Iterator[Attack]:
    attack = Attack(host, port, idle, trickle, nonreading).start()
    try:
        yield attack
    finally:
        attack.stop()


def probe(host: str, port: int, request: bytes, timeout: float = 1.0) -> float | None:
    """Seconds to a complete 200 answer on a fresh connection, or None (error, not 200, or over ``timeout``)."""
    start = time.perf_counter()
    deadline = start + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data or len(data) < _length(data):
                sock.settimeout(max(0.001, deadline - time.perf_counter()))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    elapsed = time.perf_counter() - start
    if not data.startswith(b"HTTP/1.1 200") or elapsed > timeout:
        return None
    return elapsed


def _length(data: bytes) -> int:
    head, _, _ = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(head) + 4 + int(line.split(b":", 1)[1])
    return len(data)


def probe_requests(host: str) -> list[bytes]:
    from benchmarks.http_load import midgame_bodies

    state = midgame_bodies(1)[0]["state"]
    legal = json.dumps({"state": state}).encode()
    return [
        f"GET /livez HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(),
        (
            f"POST /v1/legal-actions HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(legal)}\r\n\r\n"
        ).encode()
        + legal,
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help=f"seconds (default 30, at most {MAX_DURATION:g})")
    parser.add_argument("--idle", type=int, default=40)
    parser.add_argument("--trickle", type=int, default=40)
    parser.add_argument("--nonreading", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the server, e.g. REFEREE_WORKER_CLASS=sync",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    duration = min(args.duration, MAX_DURATION)
    extra_env = dict(item.split("=", 1) for item in args.server_env)
    workdir = Path(tempfile.mkdtemp(prefix="referee-slow-"))
    proc, url = start_server(args.workers, workdir / "server.log", extra_env)
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    requests = probe_requests(host)
    latencies: list[float | None] = []
    times: list[float] = []
    try:
        with attacking(host, port, args.idle, args.trickle, args.nonreading) as attack:
            time.sleep(1.0)  # let the sockets settle on the server
            end = time.monotonic() + duration
            while time.monotonic() < end:
                started = time.monotonic()
                times.append(started)
                latencies.append(probe(host, port, requests[len(latencies) % 2]))
                time.sleep(max(0.0, 0.1 - (time.monotonic() - started)))
            reconnects = attack.reconnects
    finally:
        stop_server(proc)
    result = summary(latencies, times, duration, extra_env, reconnects)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['worker_class']} workers ×{args.workers}; {args.idle} idle + {args.trickle} trickled-header "
            f"+ {args.nonreading} non-reading sockets, {duration:g} s: {result['answered']}/{result['probes']} "
            f"probes answered within 1 s ({result['availability_pct']}%), p50 {result['p50_ms']} ms, "
            f"p99 {result['p99_ms']} ms, longest outage {result['longest_outage_s']} s, "
            f"{reconnects} hostile reconnects"
        )
    return 0 if result["availability_pct"] >= 99.0 else 1


def summary(
    latencies: list[float | None], times: list[float], duration: float, extra_env: dict[str, str], reconnects: int
) -> dict:
    ok = sorted(x for x in latencies if x is not None)
    # The longest outage: the longest time between two probes answered (or the run's ends).
    answered = [times[0]] + [t for t, x in zip(times, latencies) if x is not None] + [times[0] + duration]
    longest = max(b - a for a, b in itertools.pairwise(answered))

    def pct(q: float) -> float | None:
        return round(ok[min(len(ok) - 1, int(q * len(ok)))] * 1000, 1) if ok else None

    return {
        "worker_class": extra_env.get("REFEREE_WORKER_CLASS", "gevent (default)"),
        "duration_s": duration,
        "probes": len(latencies),
        "answered": len(ok),
        "availability_pct": round(100 * len(ok) / max(1, len(latencies)), 2),
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "mean_ms": round(statistics.fmean(ok) * 1000, 1) if ok else None,
        "longest_outage_s": round(longest, 1),
        "hostile_reconnects": reconnects,
    }


if __name__ == "__main__":
    raise SystemExit(main())
