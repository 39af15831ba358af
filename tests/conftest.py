"""Shared fixtures.

Service fixtures (``tests/test_service_*``, ``test_e2e_*``, ``test_sealing*``,
``test_openapi*``, ``test_schemathesis*``): Flask apps over the real engine,
seeded positions taken from real play, and ``serve``, which starts the real
server with ``referee serve`` on a free loopback port.
"""

from __future__ import annotations

import contextlib
import copy
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECRET = "test-secret-0123456789abcdef"  # tests/test_sealing.py and the e2e tests use the same literals
OTHER_SECRET = "another-secret-0123456789abcdef"
# Private play (docs/api.md §10): two fixed 256-bit state keys, as 64 hex digits.
STATE_KEY = "8600ec273fe39d5b43351baf5455dc20d8c27dce703a328b398e48cd5e2823df"
OTHER_STATE_KEY = "8a4b231edf215d2ab37c1f6f8c83d4713c2ee64d4fa872758f14da8828ed6ee3"


# -- the system packages the full suite uses ---------------------------------------------
# Installed by .ci/run (Debian); docs/operations.md, "Running the tests", lists them too.
SYSTEM_PACKAGES = {
    "chromium": "the browser tests of the table (Playwright drives /usr/bin/chromium)",
    "fonts-noto-cjk": "the Japanese card names in the table's screenshots",
    "nginx-light": "the proxy tests (nginx in front of sync workers, rotation, the ledger's replicas, the Kubernetes sidecar)",
    "redis-server": "the ledger's tests on Redis",
    "nodejs, npm": "the TypeScript client's generated types and compile check, axe-core for the table",
    "curl, jq": "the README's and docs' shell blocks (tests/test_docs_blocks.py)",
}
_MISSING = ("is missing", "is not installed", "not installed")
NGINX_MISSING = "nginx is not installed (apt-get install nginx-light)"


def need_program(path: str | None, missing: str, module_level: bool = False) -> str:
    """The path of a system program a test needs. Where it is absent the test is skipped saying ``missing``
    (written with one of ``_MISSING``'s words, so the run's summary lists it), and on CI, which installs
    every program, it fails instead."""
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing, allow_module_level=module_level)
    return path


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Say loudly, at the end of the run, which tests were skipped for want of a system package:
    a green run without Chromium or nginx has not run the browser or proxy tests."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        if any(marker in reason for marker in _MISSING):
            reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    total = sum(reasons.values())
    terminalreporter.section(f"{total} TESTS SKIPPED: SYSTEM PACKAGES MISSING", sep="!", red=True, bold=True)
    for reason, count in sorted(reasons.items()):
        terminalreporter.write_line(f"  {count:4d} skipped: {reason}", red=True, bold=True)
    terminalreporter.write_line(
        "  The full suite needs: "
        + "; ".join(f"{name} ({why})" for name, why in SYSTEM_PACKAGES.items())
        + ". .ci/run installs them (apt-get).",
        red=True,
    )


# -- apps and clients ---------------------------------------------------------


@pytest.fixture(scope="session")
def catalog():
    from referee.engine import Catalog

    return Catalog.builtin()


@pytest.fixture(scope="session")
def make_app(catalog) -> Callable[..., Any]:
    """``make_app(secret=..., max_body=..., ...)``: a fresh app (Settings fields as keywords)."""
    from referee.service.app import create_app
    from referee.service.config import Settings

    def make(**settings: Any):
        settings.setdefault("log_requests", False)
        if isinstance(settings.get("secret"), str):
            settings["secret"] = settings["secret"].encode()
        if isinstance(settings.get("previous_secret"), str):
            settings["previous_secret"] = settings["previous_secret"].encode()
        for name in ("state_key", "previous_state_key"):
            if isinstance(settings.get(name), str):
                settings[name] = bytes.fromhex(settings[name])
        app = create_app(Settings(**settings), catalog)
        app.config["TESTING"] = False  # exceptions go through the error handlers, as in production
        return app

    return make


@pytest.fixture(scope="session")
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def sealed_app(make_app):
    return make_app(secret=SECRET)


@pytest.fixture
def sealed_client(sealed_app):
    return sealed_app.test_client()


@pytest.fixture(scope="session")
def private_app(make_app):
    """An app in private mode (docs/api.md §10) with ``STATE_KEY``."""
    return make_app(state_key=STATE_KEY)


@pytest.fixture
def private_client(private_app):
    return private_app.test_client()


@pytest.fixture(scope="session")
def private_game_body(new_game_body) -> dict:
    """``new_game_body`` without its seed: a private referee deals itself."""
    return {k: v for k, v in new_game_body.items() if k != "seed"}


# -- games and positions --------------------------------------------------------


@pytest.fixture(scope="session")
def new_game_body(catalog) -> dict:
    """A legal NewGame with a seed (random decks of the reference catalog)."""
    from referee.engine.playout import random_new_game

    return random_new_game(catalog, "service-tests")


def keep_or_random(actions: list[dict], rng: random.Random) -> dict:
    """The tests' play policy: keep in the mulligan phase, else a random action other than concede."""
    keep = [a for a in actions if a["type"] == "keep"]
    if keep:
        return keep[0]
    pool = [a for a in actions if a["type"] != "concede"] or actions
    return rng.choice(pool)


@pytest.fixture(scope="session")
def play_policy() -> Callable[[list[dict], random.Random], dict]:
    return keep_or_random


@pytest.fixture(scope="session")
def positions(catalog, new_game_body) -> list[tuple[dict, dict]]:
    """(state, legal action) pairs of one seeded game, from the deal to the end, in order."""
    from referee.engine import apply, legal_actions, new_game

    state, _ = new_game(catalog, new_game_body)
    rng = random.Random("positions")
    out = []
    while state["phase"] != "over":
        action = keep_or_random(legal_actions(catalog, state), rng)
        out.append((copy.deepcopy(state), action))
        state, _ = apply(catalog, state, action)
    out.append((state, None))
    return out


@pytest.fixture(scope="session")
def midgame(positions) -> tuple[dict, dict]:
    """A main-step position in the middle of the game, with a legal action."""
    mains = [
        (s, a)
        for s, a in positions
        if a is not None and s["step"] == "main" and s["pending"] is None and a["type"] != "end_turn"
    ]
    return copy.deepcopy(mains[len(mains) // 2])


# -- real servers -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A ``referee serve`` process on a loopback port."""

    def __init__(self, proc: subprocess.Popen, url: str, log: Path):
        self.proc = proc
        self.url = url
        self.log = log
        self.terminated = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        return self.log.read_text("utf-8", "replace")

    def terminate(self) -> None:
        """SIGTERM to the server's PID (gunicorn's master: `referee serve` execs it), once."""
        if self.proc.poll() is None and not self.terminated:
            os.kill(self.proc.pid, signal.SIGTERM)
            self.terminated = True

    def stop(self, timeout: float = 20) -> int:
        """:meth:`terminate`, then wait for it to exit (SIGKILL after ``timeout``); its exit status."""
        self.terminate()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        return self.proc.returncode


def stop_servers(servers: Iterable[Server]) -> None:
    """Stop several servers in the time of one: SIGTERM to each, then wait for each."""
    servers = list(servers)
    for server in servers:
        server.terminate()
    for server in servers:
        server.stop()


def start_server(
    log_dir: Path, started: list[Server], workers: int = 1, env: dict[str, str] | None = None, module: bool = False
) -> Server:
    """Start ``referee serve`` on a free loopback port and wait until /livez answers."""
    server = launch_server(log_dir, workers, env, module)
    started.append(server)
    return wait_ready(server)


def launch_server(
    log_dir: Path,
    workers: int = 1,
    env: dict[str, str] | None = None,
    module: bool = False,
    preexec_fn: Callable[[], None] | None = None,
    port: int | None = None,
) -> Server:
    """Start ``referee serve`` on a free loopback port, or ``port`` (launch several, then :func:`wait_ready`
    each); ``preexec_fn`` runs in the child before it starts (a lower ``ulimit -n``, say)."""
    port = port or free_port()
    log = log_dir / f"server-{port}-{time.monotonic_ns()}.log"  # a port may be served again (a restart)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_") and k != "PROMETHEUS_MULTIPROC_DIR"}
    full_env["REFEREE_DRAIN_SECONDS"] = "0"  # stop at once (the tests of draining set it)
    full_env.update(env or {})
    if module:
        cmd = [sys.executable, "-m", "referee"]
    else:
        cmd = [str(Path(sys.executable).with_name("referee"))]
    cmd += ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=preexec_fn
        )
    return Server(proc, f"http://127.0.0.1:{port}", log)


def wait_ready(server: Server) -> Server:
    import httpx

    proc = server.proc
    deadline = time.monotonic() + 60  # generous: the machine may be busy
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"referee serve exited with {proc.returncode}:\n{server.output()}")
        try:
            if httpx.get(server.url + "/livez", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"referee serve did not answer in 60 s:\n{server.output()}")
        time.sleep(0.1)


@pytest.fixture
def serve(tmp_path) -> Iterator[Callable[..., Server]]:
    """``serve(workers=1, env={...})`` starts a real server and waits until /livez answers."""
    started: list[Server] = []

    def start(workers: int = 1, env: dict[str, str] | None = None, module: bool = False) -> Server:
        return start_server(tmp_path, started, workers, env, module)

    yield start
    stop_servers(started)


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A real Dask ``LocalCluster`` of ``workers`` single-threaded processes on loopback (no dashboards);
    yields its scheduler's address. Skips the test where ``distributed`` is not installed."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A real redis-server (tests/redis_server.py) for one test module, stopped by its PID after it."""
    from tests.redis_server import RedisServer  # it imports this module: not at the top

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def redis_url(redis_server):
    """The module's redis-server as a ledger URL (``redis://127.0.0.1:PORT/0``)."""
    return redis_server.url


@contextlib.contextmanager
def private_replicas(logs: Path, ledger_url: str, count: int) -> Iterator[list[Server]]:
    """``count`` private-mode replicas (one worker each) sharing one ledger, ready; stopped together after."""
    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": ledger_url, "REFEREE_LEDGER_TIMEOUT": "0.5"}
    servers = [launch_server(logs, workers=1, env=env) for _ in range(count)]
    try:
        for server in servers:
            wait_ready(server)
        yield servers
    finally:
        stop_servers(servers)


@contextlib.contextmanager
def nginx_over(workdir: Path, servers: list[Server]) -> Iterator[Any]:
    """A real nginx balancing over ``servers`` (benchmarks/nginx.py), stopped after; the test skipped where
    nginx is not installed."""
    from benchmarks import nginx
    from benchmarks.nginx import Nginx

    need_program(nginx.NGINX, NGINX_MISSING)
    balancer = Nginx(workdir, [s.url.removeprefix("http://") for s in servers])
    try:
        yield balancer
    finally:
        balancer.stop()
