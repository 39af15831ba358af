"""``referee serve`` / ``python -m referee``: settings errors are one clear line and a non-zero exit."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import build_parser
from referee.service.config import MIB, ConfigError, Settings, parse_size

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    clean.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "env,needles",
    [
        ({"REFEREE_CATALOG": "/nonexistent/catalog.yaml"}, ["REFEREE_CATALOG", "/nonexistent/catalog.yaml"]),
        ({"REFEREE_MAX_BODY": "lots"}, ["REFEREE_MAX_BODY"]),
        ({"REFEREE_MAX_BODY": "12"}, ["REFEREE_MAX_BODY", "1 KiB"]),
        ({"REFEREE_SECRET": "short"}, ["REFEREE_SECRET", "16"]),
        ({"REFEREE_DRAIN_SECONDS": "-1"}, ["REFEREE_DRAIN_SECONDS"]),
        ({"REFEREE_METRICS_PORT": "0"}, ["REFEREE_METRICS_PORT"]),
    ],
)
def test_bad_settings_stop_serve_with_one_line(env, needles):
    out = run("serve", "--port", "0", env=env)
    line = one_line_error(out, *needles)
    assert line.startswith("referee: error: ")


def test_settings_name_a_catalog_directory_as_one(tmp_path):
    """A server started without the CLI (gunicorn by hand) reads REFEREE_CATALOG through Settings."""
    with pytest.raises(ConfigError, match="a directory, not a catalog file"):
        Settings.from_env({"REFEREE_CATALOG": str(tmp_path)})
    with pytest.raises(ConfigError, match="cannot read: No such file or directory"):
        Settings.from_env({"REFEREE_CATALOG": str(tmp_path / "missing.yaml")})


def test_a_bad_catalog_names_the_card_and_field(tmp_path):
    bad = tmp_path / "catalog.yaml"
    bad.write_text("id: mine\ncards:\n  - {id: X-1, name: x, kind: dragon}\n", "utf-8")
    one_line_error(run("serve", env={"REFEREE_CATALOG": str(bad)}), "X-1", "kind", str(bad))
    bad.write_text("id: [unclosed", "utf-8")
    one_line_error(run("serve", env={"REFEREE_CATALOG": str(bad)}), str(bad))


def test_a_port_in_use_is_one_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        one_line_error(run("serve", "--port", str(port)), f"127.0.0.1:{port}")


def test_bad_arguments_are_usage_errors():
    for args in (("serve", "--port", "99999"), ("serve", "--workers", "0"), ("frobnicate",), ()):
        out = run(*args)
        assert out.returncode == 2 and "usage: referee" in out.stderr and "Traceback" not in out.stderr


def test_help_lists_the_subcommands():
    out = run("--help")
    assert out.returncode == 0 and "serve" in out.stdout and "openapi" in out.stdout
    assert {"serve", "openapi"} <= set(build_parser()._subparsers._group_actions[0].choices)


def test_openapi_to_a_file(tmp_path):
    target = tmp_path / "openapi.yaml"
    assert run("openapi", "--output", str(target)).returncode == 0
    assert target.read_text("utf-8") == (ROOT / "openapi.yaml").read_text("utf-8")


# -- Settings -----------------------------------------------------------------------


def test_settings_defaults_and_parsing(tmp_path):
    assert Settings.from_env({}) == Settings()
    catalog = tmp_path / "c.yaml"
    catalog.write_text("id: x\n", "utf-8")
    s = Settings.from_env(
        {
            "REFEREE_CATALOG": str(catalog),
            "REFEREE_SECRET": "0123456789abcdef",
            "REFEREE_MAX_BODY": "2MiB",
            "REFEREE_DRAIN_SECONDS": "2.5",
            "REFEREE_LOG_REQUESTS": "0",
            "REFEREE_BENCH_ECHO": "yes",
            "REFEREE_WORKER_CLASS": "sync",
            "REFEREE_CLIENT_TIMEOUT": "4",
        }
    )
    assert s == Settings(
        catalog_path=str(catalog),
        secret=b"0123456789abcdef",
        max_body=2 * MIB,
        drain_seconds=2.5,
        log_requests=False,
        bench_echo=True,
        worker_class="sync",
        client_timeout=4.0,
        heavy_slots=1,  # two sync workers: one is left for rule checks
    )


@pytest.mark.parametrize("secret", [" " * 16, "s" * 16, "abcd" * 8, "password" * 4])
def test_a_guessable_secret_is_refused_however_long(secret):
    """Given a secret of 16 characters or more but few bits of entropy, when read, then it is refused."""
    with pytest.raises(ConfigError, match="too guessable"):
        Settings.from_env({"REFEREE_SECRET": secret})
    with pytest.raises(ConfigError, match="REFEREE_SECRET_PREVIOUS"):
        Settings.from_env({"REFEREE_SECRET_PREVIOUS": secret})


@pytest.mark.parametrize(
    "text,size",
    [("", MIB), ("1048576", MIB), ("512KiB", 512 * 1024), ("2 mib", 2 * MIB), ("1MB", 1_000_000), ("4k", 4096)],
)
def test_sizes(text, size):
    assert parse_size(text, "X", MIB) == size


@pytest.mark.parametrize(
    "env",
    [
        {"REFEREE_LOG_REQUESTS": "maybe"},
        {"REFEREE_HEAVY_SLOTS": "0"},
        {"REFEREE_HEAVY_NICE": "20"},
        {"REFEREE_HEAVY_MAX_SECONDS": "0"},
        {"REFEREE_DRAIN_SECONDS": "soon"},
        {"REFEREE_SECRET_PREVIOUS": "x"},
        {"REFEREE_MAX_BODY": "1GiB"},
        {"REFEREE_WORKER_CLASS": "eventlet"},
        {"REFEREE_CLIENT_TIMEOUT": "0"},
    ],
)
def test_bad_settings_raise_config_error(env):
    with pytest.raises(ConfigError):
        Settings.from_env(env)


def test_cors_origins_setting():
    assert Settings.from_env({"REFEREE_CORS_ORIGINS": "https://a.example, http://b.example:8080/"}).cors_origins == (
        "https://a.example",
        "http://b.example:8080",
    )
    assert Settings.from_env({"REFEREE_CORS_ORIGINS": "*"}).cors_origins == ("*",)
    with pytest.raises(ConfigError):
        Settings.from_env({"REFEREE_CORS_ORIGINS": "a.example"})


# -- the metrics directory (PROMETHEUS_MULTIPROC_DIR) --------------------------------
# Containers mount a fresh /tmp, so the image's /tmp/referee-metrics is missing at start:
# serve creates it (tests/test_e2e_ops.py starts a server that way); here, what it cannot use.


def test_a_metrics_dir_that_cannot_be_created_is_one_line(tmp_path):
    # given a directory whose parent is a file: no user, root included, can create it
    blocker = tmp_path / "a-file"
    blocker.write_text("", "utf-8")
    target = blocker / "referee-metrics"
    out = run("serve", "--port", "0", env={"PROMETHEUS_MULTIPROC_DIR": str(target)})
    one_line_error(out, f"PROMETHEUS_MULTIPROC_DIR={target}: cannot create it")


def test_a_metrics_dir_that_is_a_file_is_one_line(tmp_path):
    target = tmp_path / "referee-metrics"
    target.write_text("", "utf-8")
    out = run("serve", "--port", "0", env={"PROMETHEUS_MULTIPROC_DIR": str(target)})
    one_line_error(out, f"PROMETHEUS_MULTIPROC_DIR={target}")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any directory")
def test_a_metrics_dir_under_a_read_only_parent_is_one_line(tmp_path):
    parent = tmp_path / "read-only"
    parent.mkdir(mode=0o500)
    out = run("serve", "--port", "0", env={"PROMETHEUS_MULTIPROC_DIR": str(parent / "referee-metrics")})
    one_line_error(out, "PROMETHEUS_MULTIPROC_DIR", "cannot create it")


# -- --version, --help, --catalog, --metrics-port --------------------------------------


def test_version_is_the_package_metadata():
    from importlib.metadata import version

    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"referee {version('ace-file-referee')}"


def test_serve_help_lists_every_environment_setting():
    from referee.service.config import ENVIRONMENT

    out = run("serve", "--help")
    assert out.returncode == 0
    for setting in ENVIRONMENT:
        assert setting.name in out.stdout
        if setting.flag:
            assert f"{setting.flag} " in out.stdout


def test_every_variable_the_code_reads_is_a_documented_setting():
    import re

    from referee.service.config import ENVIRONMENT, INTERNAL

    named = set()
    for path in (ROOT / "referee").rglob("*.py"):
        named |= set(
            re.findall(
                r"\b(?:REFEREE_[A-Z][A-Z_]*[A-Z]|PROMETHEUS_MULTIPROC_DIR|FORWARDED_ALLOW_IPS)\b",
                path.read_text("utf-8"),
            )
        )
    documented = {s.name for s in ENVIRONMENT}
    assert named - documented - set(INTERNAL) == set()
    assert documented <= named  # and nothing documented that nothing reads


def test_operations_doc_holds_the_settings_table():
    from referee.service.config import settings_table

    doc = (ROOT / "docs" / "operations.md").read_text("utf-8")
    assert settings_table() in doc, "paste referee.service.config.settings_table() into docs/operations.md"


def test_catalog_flag_like_the_other_subcommands(tmp_path):
    bad = tmp_path / "catalog.yaml"
    bad.write_text("id: mine\ncards:\n  - {id: X-1, name: x, kind: dragon}\n", "utf-8")
    one_line_error(run("serve", "--catalog", str(bad)), f"--catalog {bad}", "X-1", "kind")
    one_line_error(run("serve", "--catalog", str(tmp_path / "none.yaml")), "--catalog", "cannot read: No such file")
    # the flag wins over the variable
    one_line_error(
        run("serve", "--catalog", str(bad), env={"REFEREE_CATALOG": str(tmp_path / "none.yaml")}),
        f"--catalog {bad}",
        "X-1",
    )


def test_metrics_port_must_differ_from_the_api_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    one_line_error(run("serve", "--port", str(port), "--metrics-port", str(port)), "--metrics-port")


def test_metrics_port_setting():
    assert Settings.from_env({"REFEREE_METRICS_PORT": "9100"}).metrics_port == 9100
    assert Settings.from_env({}).metrics_port is None
    for bad in ("0", "70000", "http"):
        with pytest.raises(ConfigError, match="REFEREE_METRICS_PORT"):
            Settings.from_env({"REFEREE_METRICS_PORT": bad})


# -- gunicorn's settings come from the one settings table ------------------------------


def gunicorn_config(monkeypatch, env: dict[str, str]) -> dict:
    import runpy

    import referee.service.gunicorn_conf as conf

    for name in [k for k in os.environ if k.startswith("REFEREE_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(conf.__file__)


def test_gunicorn_reads_its_settings_from_the_settings_table(monkeypatch):
    """Given no settings, gunicorn gets the table's defaults; given some, exactly those."""
    from referee.service.config import default

    conf = gunicorn_config(monkeypatch, {})
    assert conf["worker_class"] == "referee.service.worker.GeventWorker"
    assert conf["worker_connections"] == int(default("REFEREE_WORKER_CONNECTIONS"))
    assert conf["workers"] == int(default("REFEREE_WORKERS"))
    assert conf["timeout"] == int(default("REFEREE_TIMEOUT"))
    conf = gunicorn_config(
        monkeypatch,
        {
            "REFEREE_WORKER_CLASS": "sync",
            "REFEREE_WORKER_CONNECTIONS": "4096",
            "REFEREE_WORKERS": "3",
            "REFEREE_TIMEOUT": "12",
            "REFEREE_LOG_LEVEL": "WARNING",
        },
    )
    assert conf["worker_class"] == "referee.service.worker.SyncWorker"
    assert (conf["worker_connections"], conf["workers"], conf["timeout"], conf["loglevel"]) == (4096, 3, 12, "warning")


def test_workers_start_with_what_the_master_loaded_frozen_and_a_larger_young_generation(monkeypatch):
    """The hooks gunicorn runs around each fork: the master's objects out of every collection, and a
    worker's young generation collected every GC_YOUNG allocations (docs/performance.md)."""
    import gc

    conf = gunicorn_config(monkeypatch, {})
    threshold = gc.get_threshold()
    try:
        conf["pre_fork"](None, None)
        assert gc.get_freeze_count() > 10_000  # the modules and the app this test process has loaded
        conf["post_fork"](None, None)
        assert gc.get_threshold() == (conf["GC_YOUNG"], *threshold[1:]) and conf["GC_YOUNG"] > 700
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        conf["_after_fork_in_master"]()  # pre_fork, with no fork after it, left the stop signals blocked here


def test_a_worker_holds_its_stop_signals_from_its_fork_and_the_master_does_not(monkeypatch):
    """Around gunicorn's fork of a worker (pre_fork, then os.fork): the worker starts with SIGTERM,
    SIGQUIT and SIGINT blocked (post_worker_init unblocks them once its handlers are in place: the
    e2e test of a SIGTERM as a worker boots), and the master has them unblocked again at once."""
    import gc

    conf = gunicorn_config(monkeypatch, {})
    stop = conf["WORKER_STOP_SIGNALS"]
    assert stop == {signal.SIGTERM, signal.SIGQUIT, signal.SIGINT}
    read_end, write_end = os.pipe()
    try:
        conf["pre_fork"](None, None)
        pid = os.fork()
        if pid == 0:  # the worker
            os.write(write_end, b"blocked" if stop <= signal.pthread_sigmask(signal.SIG_BLOCK, []) else b"free")
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(read_end, 16) == b"blocked"
        assert not stop & signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the master
    finally:
        gc.unfreeze()
        os.close(read_end)
        os.close(write_end)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop)


@pytest.mark.parametrize(
    "env",
    [
        {"REFEREE_WORKER_CONNECTIONS": "0"},
        {"REFEREE_WORKER_CONNECTIONS": "many"},
        {"REFEREE_WORKER_CLASS": "buffering"},
        {"REFEREE_TIMEOUT": "-1"},
        {"REFEREE_LOG_LEVEL": "loud"},
    ],
)
def test_bad_server_settings_raise_config_error(env):
    with pytest.raises(ConfigError, match=next(iter(env))):
        Settings.from_env(env)


# -- placeholder secrets ---------------------------------------------------------------


def documented_secret_values() -> set[str]:
    """Every literal value the docs and deploy/ give a secret or state key (``NAME: "value"``,
    ``NAME=value``), other than a command that makes one."""
    import re

    pattern = re.compile(r"(REFEREE_(?:SECRET|STATE_KEY)(?:_PREVIOUS)?)\s*[:=]\s*[\"']?([^\s\"'$]{8,})")
    texts = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("deploy/**/*.y*ml"), *ROOT.glob("examples/**/*")]
    return {m[2] for path in texts if path.is_file() for m in pattern.finditer(path.read_text("utf-8", "replace"))}


def test_the_example_secret_is_refused_with_how_to_make_a_real_one():
    """Given secret.example.yaml's placeholder, when the server reads it, then it refuses it and says how."""
    import yaml

    example = yaml.safe_load((ROOT / "deploy/kubernetes/secret.example.yaml").read_text("utf-8"))
    value = example["stringData"]["REFEREE_SECRET"]
    with pytest.raises(ConfigError, match=r"placeholder.*openssl rand -hex 32"):
        Settings.from_env({"REFEREE_SECRET": value})
    assert value in documented_secret_values()


@pytest.mark.parametrize("name", ["REFEREE_SECRET", "REFEREE_SECRET_PREVIOUS", "REFEREE_STATE_KEY"])
def test_no_value_copied_from_the_docs_starts_a_server(name):
    for value in documented_secret_values():
        with pytest.raises(ConfigError, match=name):
            Settings.from_env({name: value})


@pytest.mark.parametrize(
    "value",
    ["change-me-0123456789abcdef-please", "CHANGEME-7f3a9b2c1d4e5f60718293a4b5c6", "your-secret-9f8e7d6c5b4a3f2e1d0c"],
)
def test_placeholder_secrets_are_refused_however_random_they_look(value):
    with pytest.raises(ConfigError, match="placeholder"):
        Settings.from_env({"REFEREE_SECRET": value})


@pytest.mark.parametrize(
    "name,value",
    [
        ("REFEREE_MAX_BODY", "99999999999999999999999"),
        ("REFEREE_MAX_BODY", "17MiB"),
        ("REFEREE_MAX_BODY", "9" * 5000),
        ("REFEREE_WORKERS", "9" * 5000),
        ("REFEREE_WORKERS", "²"),
        ("REFEREE_WORKER_CONNECTIONS", "100001"),
        ("REFEREE_TIMEOUT", "0"),
        ("REFEREE_METRICS_PORT", "9" * 5000),
        ("REFEREE_LEDGER_TTL", "nan"),
        ("REFEREE_CLIENT_TIMEOUT", "inf"),
        ("REFEREE_DRAIN_SECONDS", "1e999"),
        ("REFEREE_CHUNKED_BODY_TIMEOUT", "-1"),
    ],
)
def test_every_numeric_setting_is_bounded_and_refused_in_one_short_line_naming_it(name, value):
    """Issue 39: REFEREE_MAX_BODY had no upper bound; an integer of 5,000 digits was a ValueError."""
    env = {name: value}
    if name == "REFEREE_LEDGER_TTL":
        env.update({"REFEREE_STATE_KEY": "8600ec273fe39d5b43351baf5455dc20d8c27dce703a328b398e48cd5e2823df"})
    with pytest.raises(ConfigError) as refused:
        Settings.from_env(env)
    message = str(refused.value)
    assert message.startswith(name + "=") and "\n" not in message and len(message) < 200, message


def test_serve_refuses_an_unbounded_max_body_in_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--port", "0"],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}, "REFEREE_MAX_BODY": "9" * 30},
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "REFEREE_MAX_BODY=" in lines[0], done.stderr


@pytest.mark.parametrize(
    ("ledger", "said"),
    [
        (None, "private play on, no ledger"),
        ("sqlite:///{tmp}/ledger.db", "private play on, ledger sqlite"),
        ("redis://:hunter2-not-said@127.0.0.1:1/0", "private play on, ledger redis"),
    ],
)
def test_the_start_up_line_names_the_ledgers_kind_and_no_secret(tmp_path, ledger, said):
    """The line `referee serve` prints first says which ledger keeps the games: its kind, never its URL's
    password nor the state key."""
    key = hashlib.sha256(b"start-up line").hexdigest()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["REFEREE_STATE_KEY"] = key
    if ledger is not None:
        env["REFEREE_LEDGER"] = ledger.format(tmp=tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    assert said in line, line
    assert "hunter2" not in line and key not in line
