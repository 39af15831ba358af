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

from tests.conftest import ROOT, free_port, need_program

CONFIG = ROOT / "deploy" / "redis" / "ledger-redis.conf"

REDIS_SERVER = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
)


def need_redis() -> str:
    return need_program(REDIS_SERVER, "redis-server is not installed (apt-get install redis-server)")


class RedisServer:
    """``redis-server`` on 127.0.0.1:``port`` with its data in ``workdir``; :meth:`kill` and :meth:`start` again."""

    def __init__(self, workdir: Path, extra: tuple[str, ...] = ()):
        self.binary = need_redis()
        self.extra = extra
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
                *self.extra,
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


class RedisCluster:
    """A Redis Cluster of ``size`` primaries on loopback: ``redis-server`` with the shipped configuration
    and ``--cluster-enabled yes``, each with its own data directory, joined by ``redis-cli --cluster
    create``; :meth:`stop` stops each by its PID."""

    def __init__(self, workdir: Path, size: int = 3):
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.skip("redis-cli is not installed (apt-get install redis-server, which brings it)")
        self.nodes: list[RedisServer] = []
        try:
            for n in range(size):
                node_dir = workdir / f"node-{n}"
                cluster = ("--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"))
                # A bus port of its own (by default the port + 10000, which a free port may not allow).
                self.nodes.append(RedisServer(node_dir, (*cluster, "--cluster-port", str(free_port()))))
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            subprocess.run(
                [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
                check=True,
                capture_output=True,
                timeout=60,
            )
            self._wait_until_ok()
        except BaseException:
            self.stop()
            raise
        self.url = f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def _wait_until_ok(self) -> None:
        import redis

        deadline = time.monotonic() + 30
        for node in self.nodes:
            client = redis.Redis(host="127.0.0.1", port=node.port, socket_timeout=1)
            while b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the cluster did not become ready: {node.log()}")
                time.sleep(0.1)
            client.close()

    def keys_per_node(self, pattern: str = "af:*") -> list[int]:
        """How many keys matching ``pattern`` each node holds."""
        import redis

        counts = []
        for node in self.nodes:
            client = redis.Redis(host="127.0.0.1", port=node.port, socket_timeout=1)
            counts.append(sum(1 for _ in client.scan_iter(match=pattern)))
            client.close()
        return counts

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
