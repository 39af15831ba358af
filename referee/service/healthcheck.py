"""The container image's health check (the Dockerfile's ``HEALTHCHECK``): ``GET /livez`` where the server listens.

``python -m referee.service.healthcheck [PID]`` exits 0 when ``/livez`` answers 200, else 1. The port is a
setting (``REFEREE_PORT``, or ``--port`` given to ``referee serve``), so it is never written into the image:
``referee serve`` leaves the address it listens on in its own environment (``REFEREE_BIND``) when it becomes
gunicorn, and this check reads it there, from the server's process (PID 1 in the container, or ``PID``).
Where that cannot be read, it falls back to ``REFEREE_HOST`` and ``REFEREE_PORT`` of its own environment.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from collections.abc import Mapping
from pathlib import Path

TIMEOUT = 2.0  # seconds; the HEALTHCHECK's own --timeout is 3
# A server listening on every address is asked on the loopback of the same family.
_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def server_environment(pid: int) -> dict[str, str]:
    """The environment of process ``pid`` (empty when it cannot be read)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(errors="replace"): value.decode(errors="replace") for key, value in pairs}


def livez_url(server_env: Mapping[str, str], own_env: Mapping[str, str]) -> str:
    """The ``/livez`` URL of the server: its ``REFEREE_BIND``, else ``REFEREE_HOST``/``REFEREE_PORT`` here."""
    bind = server_env.get("REFEREE_BIND")
    if bind:
        host, _, port = bind.rpartition(":")
        host = host.strip("[]")
    else:
        host, port = own_env.get("REFEREE_HOST", "127.0.0.1"), own_env.get("REFEREE_PORT", "8000")
    host = _ANY.get(host, host)
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/livez"


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and not argv[0].isdigit()):
        print("usage: python -m referee.service.healthcheck [PID]", file=sys.stderr)
        return 2
    pid = int(argv[0]) if argv else 1
    return 0 if healthy(livez_url(server_environment(pid), os.environ)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
