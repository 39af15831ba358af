"""A real ``redis-server`` (Debian's package) for the ledger's tests: the shipped configuration
(deploy/redis/ledger-redis.conf: append-only file, ``appendfsync always``) on a free loopback port
with its own data directory, started by the test and stopped by its PID."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port

CONFIG = ROOT / "deploy" / "redis" / "ledger-redis.conf"

REDIS_SERVER = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
)


def need_redis() -> str:
    if REDIS_SERVER is None:
        if os.environ.get("CI"):
            raise RuntimeError("redis-server is missing: .ci/run installs it (apt-get install redis-server)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    return REDIS_SERVER


class RedisServer:
    """``redis-server`` on 127.0.0.1:``port`` with its data in ``workdir``; :meth:`kill` and :meth:`start` again."""

    def __init__(self, workdir: Path):
        self.binary = need_redis()
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                str(CONFIG),  # the shipped configuration; the lines below only place it on loopback
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.dir),
                "--daemonize",
                "no",
                "--protected-mode",
                "yes",
                "--logfile",
                str(self.dir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    client.close()
                    return
            except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        path = self.dir / "redis.log"
        return path.read_text("utf-8", "replace") if path.exists() else ""

    def kill(self) -> None:
        """``kill -9``: no shutdown, no last save."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
