"""Running the real server for the HTTP benchmarks: start gunicorn on a free loopback port with the
production config, stop it by its PID, read its workers' CPU and memory, and drive it with wrk (or a
Python client where wrk is not installed). Shared by http_load.py, http_compare.py, http_edge.py,
slow_clients.py and ledger_load.py.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    workers: int, log_path: Path, extra_env: dict[str, str], tree: Path | None = None
) -> tuple[subprocess.Popen, str]:
    """``referee serve`` of this tree, or of another revision's ``tree`` (run with this venv)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["REFEREE_DRAIN_SECONDS"] = "0"
    env.update(extra_env)
    env["REFEREE_BENCH_ECHO"] = "1"
    referee = Path(sys.executable).with_name("referee")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
        referee = Path("/nonexistent")
    cmd = [
        str(referee) if referee.exists() else sys.executable,
        *([] if referee.exists() else ["-m", "referee"]),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    log = open(log_path, "wb")  # noqa: SIM115 (the server writes to it until stop_server)
    proc = subprocess.Popen(cmd, cwd=tree or ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: see {log_path}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                conn.sendall(b"GET /livez HTTP/1.0\r\n\r\n")
                if b" 200 " in conn.recv(100):
                    return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start in 30 s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def worker_rss_mib(master: int) -> list[float]:
    """VmRSS of the master's children (the gunicorn workers), in MiB."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != master:
                continue
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        out.append(int(line.split()[1]) / 1024)
        except (OSError, ValueError, IndexError):
            continue
    return sorted(out)


def workers_cpu_seconds(master: int) -> float:
    """User + system CPU time of the master's children (the workers), in seconds."""
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == master:
                total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
    return total / tick


# -- load generators ----------------------------------------------------------------

WRK_SCRIPT = """
local bodies = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do
    local f = io.open(line, "rb")
    bodies[#bodies + 1] = wrk.format("POST", args[2], {["Content-Type"] = "application/json"}, f:read("*a"))
    f:close()
  end
end
request = function()
  i = (i % #bodies) + 1
  return bodies[i]
end
done = function(summary, latency, requests)
  io.write(string.format("JSON {\\"requests\\": %d, \\"duration_us\\": %d, \\"non2xx\\": %d, \\"errors\\": %d, "
    .. "\\"p50_us\\": %d, \\"p99_us\\": %d, \\"mean_us\\": %f}\\n",
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
"""


def run_wrk(
    url: str, path: str, body_files: list[Path], duration: float, connections: int, workdir: Path
) -> dict[str, Any]:
    listing = workdir / "bodies.txt"
    listing.write_text("\n".join(str(p) for p in body_files) + "\n")
    script = workdir / "bench.lua"
    script.write_text(WRK_SCRIPT)
    cmd = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "5s",
        "-s",
        str(script),
        url,
        "--",
        str(listing),
        path,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("JSON "))
    raw = json.loads(line[5:])
    return {
        "requests": raw["requests"],
        "rps": raw["requests"] / (raw["duration_us"] / 1e6),
        "p50_ms": raw["p50_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "mean_ms": raw["mean_us"] / 1000,
        "failed": raw["non2xx"] + raw["errors"],
        "non2xx": raw["non2xx"],  # answers other than 2xx
        "socket_errors": raw["errors"],  # wrk's connect, read, write and timeout errors
    }


def run_python(url: str, path: str, bodies: list[bytes], duration: float, connections: int) -> dict[str, Any]:
    """A threaded client: ``connections`` threads, each posting in a loop until the time is up."""
    import http.client

    host, port = url.removeprefix("http://").split(":")
    deadline = time.monotonic() + duration
    latencies: list[list[float]] = [[] for _ in range(connections)]
    failed = [0] * connections

    def client(n: int) -> None:
        i = n
        conn = None
        while time.monotonic() < deadline:
            body = bodies[i % len(bodies)]
            i += connections
            start = time.perf_counter()
            try:
                conn = conn or http.client.HTTPConnection(host, int(port), timeout=5)
                conn.request("POST", path, body, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                if resp.status != 200:
                    failed[n] += 1
                if resp.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except OSError:
                failed[n] += 1
                conn = None
                continue
            latencies[n].append(time.perf_counter() - start)

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    flat = sorted(x for lat in latencies for x in lat)
    q = statistics.quantiles(flat, n=100, method="inclusive") if len(flat) > 1 else [0.0] * 99
    return {
        "requests": len(flat),
        "rps": len(flat) / elapsed,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "mean_ms": statistics.fmean(flat) * 1000 if flat else 0.0,
        "failed": sum(failed),
    }


# -- main -------------------------------------------------------------------------------
