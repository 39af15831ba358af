"""nginx in front of ``referee serve`` on loopback, configured from deploy/: the tests' balancer
(tests/test_e2e_nginx.py, test_e2e_edge.py, test_e2e_rotation.py) and the benchmarks' (http_edge.py).

Debian's nginx (``apt-get install nginx-light``), started with its own prefix in a
temporary directory and stopped by its PID.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


class Nginx:
    """nginx on a free loopback port, configured like deploy/compose/nginx.conf for ``upstreams``."""

    def __init__(self, workdir: Path, upstreams: list[str], config=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = workdir / f"nginx-{self.port}"
        (self.prefix / "logs").mkdir(parents=True)
        self.prefix.chmod(0o777)  # temp directories for nginx's unprivileged workers
        conf = self.prefix / "nginx.conf"
        conf.write_text((config or compose_config)(upstreams, self.port), "utf-8")
        self.proc = subprocess.Popen(
            [
                NGINX,
                "-p",
                str(self.prefix),
                "-c",
                str(conf),
                "-g",
                f"daemon off; pid {self.prefix / 'nginx.pid'}; error_log {self.prefix / 'logs/error.log'};",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 15
        while True:
            try:
                httpx.get(self.url + "/livez", timeout=2)
                return
            except httpx.TransportError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {self.error_log()}") from None
                time.sleep(0.05)

    def error_log(self) -> str:
        path = self.prefix / "logs/error.log"
        return path.read_text("utf-8", "replace") if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # nginx: SIGTERM is a fast shutdown
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def compose_config(upstreams: list[str], port: int) -> str:
    """deploy/compose/nginx.conf with loopback addresses for the replicas' names and a free port.

    Debian's nginx may predate ``resolve`` on upstream servers: IP literals need no
    resolving, so the parameter is dropped with the names it served.
    """
    text = (ROOT / "deploy/compose/nginx.conf").read_text("utf-8")
    servers = re.findall(r"^\s*server referee-\d:8000.*;$", text, flags=re.M)
    assert len(servers) == 3, "the compose config names three replicas"
    template = servers[0].replace(" resolve;", ";")
    lines = [re.sub(r"referee-\d:8000", address, template) for address in upstreams]
    text = text.replace("\n".join(servers), "\n".join(lines))
    text = re.sub(r"\blisten 8080;", f"listen 127.0.0.1:{port};", text)
    return text


def sidecar_config(upstreams: list[str], port: int) -> str:
    """deploy/kubernetes/nginx.conf with the replica's loopback address, a free port, and this
    test's own pid file (the temp paths stay under /tmp, as in the pod)."""
    text = (ROOT / "deploy/kubernetes/nginx.conf").read_text("utf-8")
    text = text.replace("server 127.0.0.1:8000;", f"server {upstreams[0]};")
    text = re.sub(r"\blisten 8080;", f"listen 127.0.0.1:{port};", text)
    text = re.sub(r"\blisten 9100;", f"listen 127.0.0.1:{free_port()};", text)  # the metrics port
    text = re.sub(r"^pid .*;$|^error_log .*;$", "", text, flags=re.M)  # given on the command line
    return text.replace("/tmp/nginx-", f"/tmp/referee-test-{port}-nginx-")
