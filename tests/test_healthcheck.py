"""The container image's health check follows the port setting (issue 40, item 3): it reads the address the
server listens on from the server's own environment, never a port written into the image."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.service.healthcheck import livez_url

ROOT = Path(__file__).resolve().parent.parent


def healthcheck(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    return subprocess.run(
        [sys.executable, "-m", "referee.service.healthcheck", *args],
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_the_dockerfile_healthcheck_writes_no_port_and_runs_the_check_module():
    text = (ROOT / "Dockerfile").read_text("utf-8")
    [check] = re.findall(r"^HEALTHCHECK .*\\\n\s*CMD (.*)$", text, re.MULTILINE)
    assert "8000" not in check and not re.search(r":\d{2,5}\b", check)
    assert check == '["python", "-m", "referee.service.healthcheck"]'


@pytest.mark.parametrize(
    "bind, url",
    [
        ("0.0.0.0:9123", "http://127.0.0.1:9123/livez"),
        ("[::]:9123", "http://[::1]:9123/livez"),
        ("10.1.2.3:80", "http://10.1.2.3:80/livez"),
        ("[fe80::1]:81", "http://[fe80::1]:81/livez"),
    ],
)
def test_the_servers_own_address_is_asked_on_a_loopback_when_it_listens_everywhere(bind, url):
    assert livez_url({"REFEREE_BIND": bind}, {"REFEREE_PORT": "1"}) == url


def test_without_the_servers_environment_the_port_setting_here_is_used():
    assert livez_url({}, {"REFEREE_HOST": "0.0.0.0", "REFEREE_PORT": "9321"}) == "http://127.0.0.1:9321/livez"
    assert livez_url({}, {}) == "http://127.0.0.1:8000/livez"


def test_a_bad_argument_is_one_line_exit_2():
    done = healthcheck("one")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.e2e
def test_a_real_server_on_another_port_is_found_healthy_then_not_once_stopped(serve):
    """Given ``referee serve --port P`` (P never 8000) and no port setting in the check's environment, the check
    reads the server's address from the server process and exits 0; once the server stops, 1."""
    server = serve()
    assert not server.url.endswith(":8000")
    assert healthcheck(str(server.pid)).returncode == 0
    port = server.url.rsplit(":", 1)[1]
    assert healthcheck("999999999", env={"REFEREE_PORT": port}).returncode == 0  # no such process: the setting here
    server.stop()
    assert healthcheck(str(server.pid), env={"REFEREE_PORT": port}).returncode == 1
