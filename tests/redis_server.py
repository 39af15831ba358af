"""A real ``redis-server`` (Debian's package) for the ledger's tests: the shipped configuration
(deploy/redis/ledger-redis.conf: append-only file, ``appendfsync always``) on a free loopback port
with its own data directory, started by the test and stopped by its PID."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
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
        # A copy of the shipped configuration: a replica that a failover promotes rewrites its file.
        config = self.dir / "redis.conf"
        if not config.exists():
            shutil.copyfile(CONFIG, config)
        self.proc = subprocess.Popen(
            [
                self.binary,
                str(config),  # the shipped configuration; the lines below only place it on loopback
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

    def __init__(self, workdir: Path, size: int = 3, replicas: int = 0):
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.skip("redis-cli is not installed (apt-get install redis-server, which brings it)")
        self.nodes: list[RedisServer] = []
        try:
            for n in range(size * (1 + replicas)):
                node_dir = workdir / f"node-{n}"
                cluster = ("--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"))
                cluster += ("--cluster-node-timeout", "1000") if replicas else ()
                # A bus port of its own (by default the port + 10000, which a free port may not allow).
                self.nodes.append(RedisServer(node_dir, (*cluster, "--cluster-port", str(free_port()))))
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            subprocess.run(
                [cli, "--cluster", "create", *addresses, "--cluster-replicas", str(replicas), "--cluster-yes"],
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


class Sentinel:
    """``redis-server --sentinel`` on 127.0.0.1:``port``, watching the primary ``service`` at ``primary_port``
    (a quorum of 2, a primary deemed down after ``down_ms``); its configuration file (which a sentinel
    rewrites) in ``workdir``."""

    def __init__(self, workdir: Path, service: str, primary_port: int, down_ms: int = 1000):
        self.binary = need_redis()
        workdir.mkdir(parents=True, exist_ok=True)
        self.dir = workdir
        self.port = free_port()
        config = workdir / "sentinel.conf"
        config.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {workdir}\nlogfile {workdir / 'sentinel.log'}\n"
            f"sentinel monitor {service} 127.0.0.1 {primary_port} 2\n"
            f"sentinel down-after-milliseconds {service} {down_ms}\n"
            f"sentinel failover-timeout {service} 5000\n"
            f"sentinel parallel-syncs {service} 1\n",
            "utf-8",
        )
        self.proc = subprocess.Popen(
            [self.binary, str(config), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


class RedisWithSentinels:
    """A primary, ``replicas`` replicas of it and ``sentinels`` sentinels on loopback, every one with the
    shipped configuration (the sentinels with their own), started by the test and stopped by PID;
    ``url`` is the ledger's ``redis+sentinel://`` URL (without a query)."""

    SERVICE = "ledger"

    def __init__(self, workdir: Path, replicas: int = 2, sentinels: int = 3):
        self.servers: list[RedisServer] = []
        self.sentinels: list[Sentinel] = []
        try:
            primary = RedisServer(workdir / "primary")
            self.servers.append(primary)
            for n in range(replicas):
                follow = ("--replicaof", "127.0.0.1", str(primary.port))
                self.servers.append(RedisServer(workdir / f"replica-{n}", follow))
            self._wait(lambda: self.role(primary) == ("master", replicas), "the replicas did not sync")
            for n in range(sentinels):
                self.sentinels.append(Sentinel(workdir / f"sentinel-{n}", self.SERVICE, primary.port))
            self._wait(self._sentinels_agree, "the sentinels did not find each other and the replicas")
        except BaseException:
            self.stop()
            raise
        addresses = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        self.url = f"redis+sentinel://{addresses}/{self.SERVICE}"

    @staticmethod
    def role(server: RedisServer) -> tuple[str, int]:
        """The server's role and how many replicas are connected and in sync with it ((``gone``, 0) if dead)."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=1, decode_responses=True)
        try:
            info = client.info("replication")
        except redis.RedisError:
            return "gone", 0
        finally:
            client.close()
        synced = sum(
            1 for k, v in info.items() if k.startswith("slave") and isinstance(v, dict) and v.get("state") == "online"
        )
        return info["role"], synced

    def primary(self) -> RedisServer:
        """The server that is the primary now (and not dead)."""
        for server in self.servers:
            if server.proc is not None and server.proc.poll() is None and self.role(server)[0] == "master":
                return server
        raise LookupError("no primary")

    def _sentinels_agree(self) -> bool:
        import redis

        for sentinel in self.sentinels:
            client = redis.Redis(host="127.0.0.1", port=sentinel.port, socket_timeout=1, decode_responses=True)
            try:
                state = client.sentinel_master(self.SERVICE)
            except redis.RedisError:
                return False
            finally:
                client.close()
            others = len(self.sentinels) - 1
            if int(state["num-slaves"]) < len(self.servers) - 1 or int(state["num-other-sentinels"]) < others:
                return False
        return True

    @staticmethod
    def _wait(ready: Callable[[], bool], what: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > deadline:
                raise RuntimeError(what)
            time.sleep(0.1)

    def stop(self) -> None:
        for sentinel in self.sentinels:
            sentinel.stop()
        for server in self.servers:
            server.stop()
