"""The service's settings, read once from the environment.

| variable | default | meaning |
| --- | --- | --- |
| ``REFEREE_CATALOG`` | the built-in ``af-ref`` | path of a catalog file (YAML or JSON, API.md §8) |
| ``REFEREE_SECRET`` | unset: no sealing | the sealing secret (API.md §4); same on every replica |
| ``REFEREE_SECRET_PREVIOUS`` | unset | an old secret still accepted (not used to seal) while rotating |
| ``REFEREE_MAX_BODY`` | ``1MiB`` | largest request body; bytes, or with a ``KiB``/``MiB`` suffix |
| ``REFEREE_DRAIN_SECONDS`` | ``0`` | after SIGTERM, how long a worker keeps serving (``/readyz`` 503) before it stops |
| ``REFEREE_LOG_REQUESTS`` | ``1`` | ``0`` turns off the JSON line per request |
| ``REFEREE_CORS_ORIGINS`` | unset: no CORS | browser origins allowed to call the API: ``*`` or a comma-separated list |
| ``REFEREE_BENCH_ECHO`` | ``0`` | ``1`` adds ``POST /bench/echo`` (benchmarks only) |

Anything wrong raises :class:`ConfigError` with a one-line message naming the
variable; ``referee serve`` prints it and exits non-zero.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping

MIB = 1024 * 1024


class ConfigError(Exception):
    """A setting that cannot be used; the message is one line for the operator."""


@dataclass(frozen=True)
class Settings:
    catalog_path: str | None = None
    secret: bytes | None = None
    previous_secret: bytes | None = None
    max_body: int = MIB
    drain_seconds: float = 0.0
    log_requests: bool = True
    bench_echo: bool = False
    cors_origins: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        catalog = env.get("REFEREE_CATALOG") or None
        if catalog is not None and not os.path.isfile(catalog):
            raise ConfigError(f"REFEREE_CATALOG={catalog}: no such file")
        return cls(
            catalog_path=catalog,
            secret=_secret(env, "REFEREE_SECRET"),
            previous_secret=_secret(env, "REFEREE_SECRET_PREVIOUS"),
            max_body=parse_size(env.get("REFEREE_MAX_BODY", ""), "REFEREE_MAX_BODY", MIB),
            drain_seconds=_number(env, "REFEREE_DRAIN_SECONDS", 0.0, high=300.0),
            log_requests=_flag(env, "REFEREE_LOG_REQUESTS", True),
            bench_echo=_flag(env, "REFEREE_BENCH_ECHO", False),
            cors_origins=_origins(env, "REFEREE_CORS_ORIGINS"),
        )


_SIZE = re.compile(r"^\s*(\d+)\s*(b|kb|kib|k|mb|mib|m)?\s*$", re.IGNORECASE)
_UNITS = {None: 1, "b": 1, "k": 1024, "kb": 1000, "kib": 1024, "m": MIB, "mb": 1000 * 1000, "mib": MIB}


def parse_size(text: str, name: str, default: int) -> int:
    """``"1048576"``, ``"512KiB"``, ``"2MiB"`` → bytes; empty → ``default``."""
    if not text.strip():
        return default
    match = _SIZE.match(text)
    if not match:
        raise ConfigError(f"{name}={text!r}: not a size (bytes, or a number with KiB or MiB)")
    size = int(match[1]) * _UNITS[(match[2] or "").lower() or None]
    if size < 1024:
        raise ConfigError(f"{name}={text!r}: must be at least 1 KiB")
    return size


def _secret(env: Mapping[str, str], name: str) -> bytes | None:
    value = env.get(name)
    if value is None or value == "":
        return None
    if len(value) < 16:
        raise ConfigError(f"{name}: a sealing secret must be at least 16 characters")
    return value.encode("utf-8")


def _origins(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """``*`` or a comma-separated list of origins (``https://app.example``)."""
    value = env.get(name, "").strip()
    if not value:
        return ()
    origins = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not re.match(r"^https?://[^/\s]+$", origin):
            raise ConfigError(f"{name}: {origin!r} is not an origin (scheme://host[:port]) or *")
    return origins


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={value!r}: use 1 or 0")


def _number(env: Mapping[str, str], name: str, default: float, high: float) -> float:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r}: not a number") from None
    if not 0 <= number <= high:
        raise ConfigError(f"{name}={value!r}: must be between 0 and {high:g}")
    return number
