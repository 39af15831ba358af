"""The service's settings, read once from the environment.

:data:`ENVIRONMENT` is the one list of every environment setting, with its
flag, default and meaning: ``referee serve --help`` prints it, the table in
docs/operations.md is :func:`settings_table` (a test keeps them equal), and
it is appended to this docstring. :class:`Settings` holds the ones the WSGI
app reads; ``referee serve`` and the gunicorn config read the others.

Anything wrong raises :class:`ConfigError` with a one-line message naming the
variable; ``referee serve`` prints it and exits non-zero.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

MIB = 1024 * 1024
# Above the Kubernetes readiness probe's period (2 s) plus its timeout (2 s), so
# a balancer sees /readyz 503 before the port closes (docs/operations.md, "Shutdown").
DEFAULT_DRAIN = 5.0
DEFAULT_CLIENT_TIMEOUT = 10.0
DEFAULT_CHUNKED_BODY_TIMEOUT = 1.0
WORKER_CLASSES = ("gevent", "sync")
MIN_SECRET_BITS = 64
DEFAULT_LEDGER_TTL = 30 * 86400.0
DEFAULT_LEDGER_TIMEOUT = 2.0


@dataclass(frozen=True)
class EnvSetting:
    """One environment setting: its name, the ``referee serve`` flag that overrides it, default, meaning."""

    name: str
    default: str
    meaning: str
    flag: str | None = None


ENVIRONMENT: tuple[EnvSetting, ...] = (
    EnvSetting("REFEREE_HOST", "127.0.0.1", "address to listen on (0.0.0.0 in the container image)", "--host"),
    EnvSetting("REFEREE_PORT", "8000", "port of the API", "--port"),
    EnvSetting("REFEREE_WORKERS", "2", "gunicorn workers: about one per core", "--workers"),
    EnvSetting(
        "REFEREE_WORKER_CLASS",
        "gevent",
        "gevent: gunicorn's gevent worker, a greenlet per connection, so idle or slow sockets never hold a "
        "worker (to run without a proxy in front); sync: gunicorn's sync worker, one connection at a time, "
        "only behind a buffering proxy such as the shipped nginx (docs/operations.md, Running it for real)",
    ),
    EnvSetting(
        "REFEREE_WORKER_CONNECTIONS",
        "1000",
        "gevent: connections each worker holds at once (more wait in the listen backlog); each is a file "
        "descriptor, so keep workers × this under ulimit -n",
    ),
    EnvSetting(
        "REFEREE_CLIENT_TIMEOUT",
        "10",
        "seconds a client has to send a whole request head (gevent), and for each read of its body or "
        "write of its answer to progress",
    ),
    EnvSetting(
        "REFEREE_CHUNKED_BODY_TIMEOUT",
        "1",
        "seconds a chunked body (Transfer-Encoding: chunked) has to arrive whole, else 408 body_timeout: "
        "every chunk costs the worker time to parse, so a body of many tiny chunks is cut off here "
        "(0.1 to 60; a body sent with Content-Length is not bounded by it)",
    ),
    EnvSetting(
        "REFEREE_METRICS_PORT",
        "unset (/metrics on the API port)",
        "serve /metrics on this port (same address) and nowhere else; the API port then answers 404 for /metrics",
        "--metrics-port",
    ),
    EnvSetting("REFEREE_CATALOG", "the built-in af-ref", "catalog file, YAML or JSON (docs/api.md §8)", "--catalog"),
    EnvSetting(
        "REFEREE_SECRET",
        "unset (no sealing)",
        "sealing secret, the same on every replica (docs/api.md §4): at least 16 characters and 64 bits "
        "by a generous estimate (length × the entropy of its characters, a repeated block counted once), "
        "so 16 spaces or abcdabcd... are refused; use openssl rand -hex 32",
    ),
    EnvSetting("REFEREE_SECRET_PREVIOUS", "unset", "an old secret still accepted while rotating (never used to seal)"),
    EnvSetting(
        "REFEREE_STATE_KEY",
        "unset (plain mode)",
        "private play (docs/api.md §10): a random 256-bit key, 64 hex digits or 43 base64url "
        "characters, the same on every replica; never together with REFEREE_SECRET",
    ),
    EnvSetting(
        "REFEREE_STATE_KEY_PREVIOUS",
        "unset",
        "an old state key still accepted while rotating (never used to make tokens or seats)",
    ),
    EnvSetting(
        "REFEREE_LEDGER",
        "unset (no ledger)",
        "private mode only (docs/ledger.md): sqlite:///absolute/path.db (one machine), redis://host:port/db "
        "(shared by every replica), redis+cluster://host:port (a Redis Cluster) or "
        "redis+sentinel://host:port[,host:port...]/service_name (a primary and replicas behind Redis Sentinel; "
        "?replicas=n on any Redis URL: each write answered once n replicas hold it) keeps each game's one line "
        "of play: a move on an older token is 409 stale_state",
    ),
    EnvSetting(
        "REFEREE_LEDGER_TTL",
        "2592000 (30 days)",
        "seconds a game stays in the ledger after its last move",
    ),
    EnvSetting(
        "REFEREE_LEDGER_TIMEOUT",
        "2",
        "seconds from a request's arrival within which the ledger must answer (connect, read, SQLite's lock, "
        "the batches in line), else a 503 (ledger_unavailable, or ledger_outcome_unknown for a write that may "
        "have been made) within it plus 0.75 s; 0.05 to 30",
    ),
    EnvSetting(
        "REFEREE_MAX_BODY", "1MiB", "largest request body (bytes, or 512KiB, 2MiB; 1 KiB to 16 MiB); 413 over it"
    ),
    EnvSetting(
        "REFEREE_DRAIN_SECONDS",
        "5",
        "after SIGTERM to the server, how long its workers keep serving with /readyz at 503 before they "
        "stop; never on a reload (SIGHUP)",
    ),
    EnvSetting(
        "REFEREE_CORS_ORIGINS",
        "unset (no CORS headers)",
        "browser origins allowed to call the API: * or a comma-separated list "
        "(https://table.example,https://other.example)",
    ),
    EnvSetting(
        "REFEREE_SUGGEST_MAX_MS",
        "2000",
        "the largest budget_ms POST /v1/suggest accepts (1 to 2000; 400 above), and its iterations in "
        "proportion (1000 at 2000): a bound on one hint's CPU",
    ),
    EnvSetting(
        "REFEREE_HEAVY_SLOTS",
        "the number of cores (sync workers: also below REFEREE_WORKERS)",
        "heavy requests (/v1/suggest, /v1/records from the ledger, /v1/events/*) a replica runs at once, "
        "each in a helper process apart from the workers; one more is refused at once, 429 busy with "
        "Retry-After (docs/api.md §16). A sync worker waits for its heavy request: keep it below REFEREE_WORKERS",
    ),
    EnvSetting(
        "REFEREE_HEAVY_NICE",
        "10",
        "how much lower (0 to 19) the helpers' CPU priority is than the workers': the kernel serves rule checks first",
    ),
    EnvSetting(
        "REFEREE_HEAVY_MAX_SECONDS",
        "10",
        "the longest one heavy job may run (a suggestion ends at its own budget_ms first); past it the job "
        "is ended: 503 heavy_timeout, or for a record's recovery 429 busy with its progress kept",
    ),
    EnvSetting("REFEREE_TIMEOUT", "30", "gunicorn worker timeout, seconds"),
    EnvSetting("REFEREE_LOG_REQUESTS", "1", "0 turns the JSON line per request off"),
    EnvSetting("REFEREE_LOG_LEVEL", "info", "level of the other logs"),
    EnvSetting(
        "PROMETHEUS_MULTIPROC_DIR",
        "a fresh temporary directory",
        "where the workers share metrics; created if missing, emptied at start",
    ),
    EnvSetting(
        "FORWARDED_ALLOW_IPS",
        "127.0.0.1",
        "proxies whose X-Forwarded-* headers gunicorn trusts (comma-separated, or *)",
    ),
    EnvSetting(
        "REFEREE_BENCH_ECHO",
        "0",
        "1 mounts POST /bench/echo, a bare Flask orjson echo (the benchmark's baseline; never in production)",
    ),
)

# Set by ``referee serve`` for the gunicorn config; not settings.
INTERNAL = ("REFEREE_BIND", "REFEREE_METRICS_BIND", "REFEREE_METRICS_DIR_OWNED")


def settings_table() -> str:
    """:data:`ENVIRONMENT` as a Markdown table (docs/operations.md holds exactly this)."""
    rows = ["| setting | default | meaning |", "| --- | --- | --- |"]
    for e in ENVIRONMENT:
        name = f"`{e.flag}`, `{e.name}`" if e.flag else f"`{e.name}`"
        rows.append(f"| {name} | {e.default} | {e.meaning} |")
    return "\n".join(rows) + "\n"


def settings_help(width: int = 78) -> str:
    """:data:`ENVIRONMENT` as plain text for ``referee serve --help``."""
    import textwrap

    lines = ["environment (a flag wins over its variable):"]
    for e in ENVIRONMENT:
        lines.append(f"  {e.name}" + (f" ({e.flag})" if e.flag else ""))
        lines.extend(
            textwrap.wrap(
                f"{e.meaning}. Default: {e.default}.", width, initial_indent=" " * 6, subsequent_indent=" " * 6
            )
        )
    return "\n".join(lines)


class ConfigError(Exception):
    """A setting that cannot be used; the message is one line for the operator."""


@dataclass(frozen=True)
class Settings:
    catalog_path: str | None = None
    secret: bytes | None = None
    previous_secret: bytes | None = None
    max_body: int = MIB
    drain_seconds: float = DEFAULT_DRAIN
    log_requests: bool = True
    bench_echo: bool = False
    suggest_max_ms: int = 2000
    cors_origins: tuple[str, ...] = ()
    metrics_port: int | None = None
    worker_class: str = WORKER_CLASSES[0]
    client_timeout: float = DEFAULT_CLIENT_TIMEOUT
    chunked_body_timeout: float = DEFAULT_CHUNKED_BODY_TIMEOUT
    workers: int = 2
    worker_connections: int = 1000
    worker_timeout: int = 30
    log_level: str = "info"
    forwarded_allow_ips: str = "127.0.0.1"
    state_key: bytes | None = None
    previous_state_key: bytes | None = None
    ledger: str | None = None
    ledger_ttl: float = DEFAULT_LEDGER_TTL
    ledger_timeout: float = DEFAULT_LEDGER_TIMEOUT
    heavy_slots: int = field(default_factory=lambda: default_heavy_slots("gevent", 2))
    heavy_nice: int = 10
    heavy_max_seconds: float = 10.0

    @property
    def private(self) -> bool:
        """Private play (docs/api.md §10) is on."""
        return self.state_key is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        catalog = env.get("REFEREE_CATALOG") or None
        if catalog is not None and not os.path.isfile(catalog):
            what = (
                "a directory, not a catalog file (YAML or JSON)"
                if os.path.isdir(catalog)
                else "cannot read: No such file or directory"
            )
            raise ConfigError(f"REFEREE_CATALOG={catalog}: {what}")
        secret = _secret(env, "REFEREE_SECRET")
        previous_secret = _secret(env, "REFEREE_SECRET_PREVIOUS")
        state_key = _state_key(env, "REFEREE_STATE_KEY")
        previous_state_key = _state_key(env, "REFEREE_STATE_KEY_PREVIOUS")
        if previous_state_key is not None and state_key is None:
            raise ConfigError("REFEREE_STATE_KEY_PREVIOUS is set without REFEREE_STATE_KEY")
        if state_key is not None and (secret is not None or previous_secret is not None):
            raise ConfigError(
                "REFEREE_STATE_KEY and REFEREE_SECRET are both set: private play "
                "(state tokens) and sealing are two modes, choose one"
            )
        ledger = env.get("REFEREE_LEDGER", "").strip() or None
        if ledger is not None and state_key is None:
            raise ConfigError(
                "REFEREE_LEDGER is set without REFEREE_STATE_KEY: the ledger keeps private games' "
                "tokens (docs/ledger.md); plain states have no game id to keep"
            )
        if ledger is not None:
            from referee.private.ledger import LedgerURLError, check_url

            try:
                check_url(ledger)
            except LedgerURLError as exc:
                raise ConfigError(f"REFEREE_LEDGER={exc}") from None
        worker_class = _choice(env, "REFEREE_WORKER_CLASS", WORKER_CLASSES)
        workers = _count(env, "REFEREE_WORKERS", high=256)
        return cls(
            ledger=ledger,
            ledger_ttl=_number(env, "REFEREE_LEDGER_TTL", DEFAULT_LEDGER_TTL, high=10 * 365 * 86400.0, low=1.0),
            ledger_timeout=_number(env, "REFEREE_LEDGER_TIMEOUT", DEFAULT_LEDGER_TIMEOUT, high=30.0, low=0.05),
            catalog_path=catalog,
            secret=secret,
            previous_secret=previous_secret,
            state_key=state_key,
            previous_state_key=previous_state_key,
            max_body=parse_size(env.get("REFEREE_MAX_BODY", ""), "REFEREE_MAX_BODY", MIB),
            drain_seconds=_number(env, "REFEREE_DRAIN_SECONDS", DEFAULT_DRAIN, high=300.0),
            worker_class=worker_class,
            client_timeout=_number(env, "REFEREE_CLIENT_TIMEOUT", DEFAULT_CLIENT_TIMEOUT, high=300.0, low=0.5),
            chunked_body_timeout=_number(
                env, "REFEREE_CHUNKED_BODY_TIMEOUT", DEFAULT_CHUNKED_BODY_TIMEOUT, high=60.0, low=0.1
            ),
            log_requests=_flag(env, "REFEREE_LOG_REQUESTS", True),
            bench_echo=_flag(env, "REFEREE_BENCH_ECHO", False),
            suggest_max_ms=_count(env, "REFEREE_SUGGEST_MAX_MS", high=2000),
            cors_origins=_origins(env, "REFEREE_CORS_ORIGINS"),
            metrics_port=_port(env, "REFEREE_METRICS_PORT"),
            workers=workers,
            worker_connections=_count(env, "REFEREE_WORKER_CONNECTIONS", high=100_000),
            worker_timeout=_count(env, "REFEREE_TIMEOUT", high=3600),
            heavy_slots=_whole(env, "REFEREE_HEAVY_SLOTS", default_heavy_slots(worker_class, workers), 1, 256),
            heavy_nice=_whole(env, "REFEREE_HEAVY_NICE", int(default("REFEREE_HEAVY_NICE")), 0, 19),
            heavy_max_seconds=_number(
                env, "REFEREE_HEAVY_MAX_SECONDS", float(default("REFEREE_HEAVY_MAX_SECONDS")), high=3600.0, low=0.1
            ),
            log_level=_choice(env, "REFEREE_LOG_LEVEL", LOG_LEVELS, default("REFEREE_LOG_LEVEL")),
            forwarded_allow_ips=env.get("FORWARDED_ALLOW_IPS", "").strip() or default("FORWARDED_ALLOW_IPS"),
        )


_SIZE = re.compile(r"^\s*(\d+)\s*(b|kb|kib|k|mb|mib|m)?\s*$", re.IGNORECASE)
_UNITS = {None: 1, "b": 1, "k": 1024, "kb": 1000, "kib": 1024, "m": MIB, "mb": 1000 * 1000, "mib": MIB}


# The largest REFEREE_MAX_BODY: a body's parse may take some 50 bytes of memory per byte (a megabyte
# of empty arrays is 48 MB of lists), so 16 MiB is some 800 MB per request at worst: no request of
# the API comes near it (docs/performance.md, "HTTP").
MAX_BODY_HIGH = 16 * MIB


def _shown(text: str) -> str:
    """A setting's value as an error quotes it: whole, or its first 40 characters (one short line)."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."


def parse_size(text: str, name: str, default: int, high: int = MAX_BODY_HIGH) -> int:
    """``"1048576"``, ``"512KiB"``, ``"2MiB"`` → bytes, from 1 KiB to ``high``; empty → ``default``."""
    if not text.strip():
        return default
    match = _SIZE.match(text)
    if not match:
        raise ConfigError(f"{name}={_shown(text)}: not a size (bytes, or a number with KiB or MiB)")
    if len(match[1]) > 12:  # no size has more digits (and int() refuses past 4300 of them)
        raise ConfigError(f"{name}={_shown(text)}: must be at most {high // MIB} MiB")
    size = int(match[1]) * _UNITS[(match[2] or "").lower() or None]
    if size < 1024:
        raise ConfigError(f"{name}={_shown(text)}: must be at least 1 KiB")
    if size > high:
        raise ConfigError(f"{name}={_shown(text)}: must be at most {high // MIB} MiB")
    return size


SECRET_HELP = "openssl rand -hex 32"
# Words of the placeholders that examples and docs put where a secret goes (deploy/kubernetes/
# secret.example.yaml's among them): a value holding one was copied, not generated.
PLACEHOLDER_WORDS = (
    "replace-me",
    "replace_me",
    "replaceme",
    "change-me",
    "change_me",
    "changeme",
    "placeholder",
    "your-secret",
    "your_secret",
    "example",
    "random-characters",
    "xxxxxxxx",
)


def refuse_placeholder(value: str, name: str, how: str) -> None:
    """A value that is a known placeholder is a :class:`ConfigError` that says how to make a real one."""
    lowered = value.lower()
    word = next((w for w in PLACEHOLDER_WORDS if w in lowered), None)
    if word is not None:
        raise ConfigError(f"{name}: a placeholder ({word!r}), not a secret: make a real one with {how}")


def _secret(env: Mapping[str, str], name: str) -> bytes | None:
    value = env.get(name)
    if value is None or value == "":
        return None
    refuse_placeholder(value, name, SECRET_HELP)
    if len(value) < 16:
        raise ConfigError(f"{name}: a sealing secret must be at least 16 characters")
    bits = secret_bits(value)
    if bits < MIN_SECRET_BITS:
        raise ConfigError(
            f"{name}: too guessable (about {bits:.0f} bits; {MIN_SECRET_BITS} needed): "
            f"use a random value, e.g. {SECRET_HELP}"
        )
    return value.encode("utf-8")


def secret_bits(value: str) -> float:
    """A generous estimate of a secret's entropy: its length times the Shannon entropy
    of its characters, counting a repeated block (``abcdabcd...``) once.

    A random hex secret of 32 characters scores about 120; 16 spaces score 0.

    >>> round(secret_bits("0123456789abcdef"))
    64
    >>> secret_bits(" " * 16), secret_bits("abcd" * 8)
    (0.0, 8.0)
    """
    period = next(p for p in range(1, len(value) + 1) if len(value) % p == 0 and value[:p] * (len(value) // p) == value)
    block = value[:period]
    counts = Counter(block)
    return -sum(n * math.log2(n / len(block)) for n in counts.values()) + 0.0


_HEX_KEY = re.compile(r"^[0-9a-fA-F]{64}$")
_B64URL_KEY = re.compile(r"^[A-Za-z0-9_-]{43}=?$")
STATE_KEY_HELP = 'python -c "import secrets; print(secrets.token_hex(32))"'


def parse_state_key(value: str, name: str = "REFEREE_STATE_KEY") -> bytes:
    """A 256-bit key written as 64 hex digits or as base64url (43 characters, one ``=`` allowed).

    A key of one short repeated pattern (fewer than 8 distinct bytes: ``00…``,
    ``abab…``) is refused too: it is a placeholder, not a random key.
    """
    text = value.strip()
    refuse_placeholder(text, name, STATE_KEY_HELP)
    key = b""
    if _HEX_KEY.match(text):
        key = bytes.fromhex(text)
    elif _B64URL_KEY.match(text):
        try:
            key = base64.urlsafe_b64decode(text.rstrip("=") + "=")
        except (binascii.Error, ValueError):
            key = b""
        if base64.urlsafe_b64encode(key).decode().rstrip("=") != text.rstrip("="):
            key = b""  # not the canonical spelling of 32 bytes
    if len(key) == 32 and len(set(key)) >= 8:
        return key
    raise ConfigError(
        f"{name}: not a 256-bit key (64 hex digits or 43 base64url characters); make one with {STATE_KEY_HELP}"
    )


def _state_key(env: Mapping[str, str], name: str) -> bytes | None:
    value = env.get(name)
    if value is None or value == "":
        return None
    return parse_state_key(value, name)


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


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def default(name: str) -> str:
    """The default of setting ``name``, as :data:`ENVIRONMENT` documents it."""
    return next(e.default for e in ENVIRONMENT if e.name == name)


def default_heavy_slots(worker_class: str, workers: int) -> int:
    """The replica's share for heavy work: a slot per core; with sync workers, each of which a heavy request
    holds while it waits, fewer than the workers, so that one is always left for rule checks."""
    cores = os.cpu_count() or 1
    return cores if worker_class == "gevent" else max(1, min(cores, workers - 1))


def _count(env: Mapping[str, str], name: str, high: int) -> int:
    """A whole number from 1 to ``high``; absent → the table's default."""
    return _bounded(name, env.get(name, "").strip() or default(name), 1, high)


def _whole(env: Mapping[str, str], name: str, absent: int, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``; absent → ``absent`` (a default the machine decides)."""
    value = env.get(name, "").strip()
    return _bounded(name, value, low, high) if value else absent


def _bounded(name: str, value: str, low: int, high: int) -> int:
    if not _digits(value) or not low <= int(value) <= high:
        raise ConfigError(f"{name}={_shown(value)}: must be a whole number from {low} to {high}")
    return int(value)


def _digits(value: str) -> bool:
    """ASCII digits, few enough for any bound here (``"²".isdigit()`` is true, and int() refuses it)."""
    return value.isascii() and value.isdigit() and len(value) <= 12


def _choice(env: Mapping[str, str], name: str, options: tuple[str, ...], fallback: str | None = None) -> str:
    value = env.get(name, "").strip().lower() or fallback or options[0]
    if value not in options:
        raise ConfigError(f"{name}={value!r}: use one of {', '.join(options)}")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={value!r}: use 1 or 0")


def _number(env: Mapping[str, str], name: str, default: float, high: float, low: float = 0.0) -> float:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{name}={_shown(value)}: not a number") from None
    if not low <= number <= high:  # NaN and infinities too
        raise ConfigError(f"{name}={_shown(value)}: must be between {low:g} and {high:g}")
    return number


def _port(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    if not _digits(value) or not 1 <= int(value) <= 65535:
        raise ConfigError(f"{name}={_shown(value)}: not a port number (1-65535)")
    return int(value)


__doc__ += "\n" + settings_table()
